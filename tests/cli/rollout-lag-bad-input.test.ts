// A rollout lag longer than the trainer's kept history is bad input like any other: one sentence
// naming rl.rolloutLag, exit 2, and no run directory (docs/reliability.md §3.3). A real process.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const main = join(root, 'packages', 'node-runner', 'src', 'main.ts');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const scratch = mkdtempSync(join(tmpdir(), 'horizon-lag-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('rl.rolloutLag', () => {
  it('beyond the kept history: one sentence, exit 2, nothing written', () => {
    const out = join(scratch, 'run');
    const run = spawnSync(tsx, [main, 'train', '--recipe', 'add-sao', '--set', 'rl.rolloutLag=17', '--out', out], {
      cwd: root,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.status, run.stderr).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines, run.stderr).toHaveLength(1);
    expect(lines[0]).toBe(
      'horizon train: rl.rolloutLag (from --set) must be at most 16: the trainer keeps the last 16 policies for the rollout-lag simulator, and a lag of 17 needs older ones.',
    );
    expect(existsSync(out)).toBe(false);
  });
});
