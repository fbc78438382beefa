// `horizon train` through the real CLI: a tiny run writes its run directory; --resume continues it;
// bad input (unknown recipe, bad --set, a taken --out, a missing or corrupt checkpoint, resuming with
// a different recipe) is one sentence and exit 2, and nothing on disk changes.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHORT_TINY_FLAGS } from '../support/recipes.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const main = join(root, 'packages', 'node-runner', 'src', 'main.ts');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const scratch = mkdtempSync(join(tmpdir(), 'horizon-train-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function horizon(args: string[]) {
  const run = spawnSync(tsx, [main, 'train', '--quiet', ...args], { cwd: root, encoding: 'utf8', timeout: 170_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const lines = (file: string) => readFileSync(file, 'utf8').trim().split('\n');

describe('horizon train', () => {
  const run = join(scratch, 'run');
  let first: ReturnType<typeof horizon>;
  beforeAll(() => {
    first = horizon(['--recipe', 'tiny', ...SHORT_TINY_FLAGS, '--out', run]);
  }, 180_000);

  it('writes metrics.jsonl (recipe first), samples.jsonl and committed checkpoints', () => {
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/eval after SFT: held-out success/);
    const metrics = lines(join(run, 'metrics.jsonl'));
    expect(JSON.parse(metrics[0]).recipe.name).toBe('tiny');
    const phases = new Set(metrics.slice(1).map((l) => JSON.parse(l).phase));
    expect([...phases].sort()).toEqual(['eval', 'rl', 'sft']);
    expect(lines(join(run, 'samples.jsonl')).length).toBeGreaterThan(0);
    const steps = readdirSync(join(run, 'checkpoints'));
    expect(steps.length).toBeGreaterThan(0);
    for (const step of steps) expect(existsSync(join(run, 'checkpoints', step, 'COMMIT'))).toBe(true);
  });

  it('--resume continues a finished run for more iterations without repeating any', () => {
    const before = lines(join(run, 'metrics.jsonl'));
    const lastRl = Math.max(
      ...before
        .slice(1)
        .map((l) => JSON.parse(l))
        .filter((r) => r.phase === 'rl')
        .map((r) => r.step),
    );
    const r = horizon(['--resume', run, '--set', `rl.iterations=${lastRl + 2}`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`resuming after iteration ${lastRl}`);
    const rlSteps = lines(join(run, 'metrics.jsonl'))
      .slice(1)
      .map((l) => JSON.parse(l))
      .filter((x) => x.phase === 'rl')
      .map((x) => x.step);
    expect(rlSteps).toEqual(Array.from({ length: lastRl + 2 }, (_, i) => i + 1));
  });

  it('bad input: one sentence, exit 2, nothing written', () => {
    const cases: [string[], RegExp][] = [
      [['--recipe', 'tinyy'], /unknown recipe "tinyy".*did you mean "tiny"/i],
      [['--recipe', 'tiny', '--set', 'rl.clipLo=0.1'], /rl\.clipLo.*did you mean "rl\.clipLow"/],
      [['--recipe', 'tiny', '--set', 'rl.gamma=2'], /rl\.gamma/],
      [['--resume', join(scratch, 'nowhere')], /not a Horizon run directory/],
      [['--resume', run, '--recipe', 'tiny', ...SHORT_TINY_FLAGS, '--set', 'seed=2'], /seed = 1 but this run asks for 2/],
    ];
    for (const [args, message] of cases) {
      const r = horizon(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  it('refuses a taken --out directory without touching it', () => {
    const taken = join(scratch, 'taken');
    mkdirSync(taken);
    writeFileSync(join(taken, 'notes.txt'), 'mine');
    const r = horizon(['--recipe', 'tiny', ...SHORT_TINY_FLAGS, '--out', taken]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/already exists and is not empty/);
    expect(readdirSync(taken)).toEqual(['notes.txt']);
  });

  it('refuses a corrupt checkpoint, naming the file, and leaves the run as it was', () => {
    const copy = join(scratch, 'corrupt');
    spawnSync('cp', ['-r', run, copy]);
    const steps = readdirSync(join(copy, 'checkpoints')).sort((a, b) => Number(a.split('-')[1]) - Number(b.split('-')[1]));
    const policy = join(copy, 'checkpoints', steps.at(-1)!, 'policy.safetensors');
    writeFileSync(policy, readFileSync(policy).subarray(0, 100));
    const before = statSync(join(copy, 'metrics.jsonl')).size;
    const r = horizon(['--resume', copy]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('policy.safetensors');
    expect(statSync(join(copy, 'metrics.jsonl')).size).toBe(before);
  });
});
