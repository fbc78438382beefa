// `horizon recipe` as a user meets it: the resolved table, --json as a recipe file, and bad input
// (unknown recipe, misspelt --set field, bad value, broken file) as one sentence with exit 2.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const main = join(root, 'packages', 'node-runner', 'src', 'main.ts');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const scratch = mkdtempSync(join(tmpdir(), 'horizon-recipe-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function horizon(args: string[]) {
  const run = spawnSync(tsx, [main, 'recipe', ...args], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('horizon recipe', () => {
  it('prints the resolved recipe with the source of each value; --json round-trips as a recipe file', () => {
    const r = horizon(['--recipe', 'tiny', '--set', 'rl.epochs=3', '--set', 'seed=7']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^recipe tiny\nfield\s+value\s+source\n/);
    expect(r.stdout).toMatch(/\nrl\.epochs\s+3\s+--set\n/);
    expect(r.stdout).toMatch(/\nrl\.iterations\s+15\s+preset tiny\n/);
    const json = horizon(['--recipe', 'tiny', '--set', 'seed=7', '--json']);
    const file = join(scratch, 'saved.json');
    writeFileSync(file, json.stdout);
    const again = horizon(['--recipe', file]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/\nseed\s+7\s+file /);
  });

  it('bad input is one sentence on stderr and exit 2', () => {
    const cases: [string[], string][] = [
      [
        ['--recipe', 'add-ppp'],
        'horizon recipe: unknown recipe "add-ppp" (presets: add-ppo, add-ppo-fast, add-grpo, add-dr-grpo, add-rloo, add-kto, add-sao, add-vc-ppo, tiny, mix-add-expert, mix-sub-expert, add-distill, mix-distill, add-genac, hidden-ppo, hidden-hack-ppo, stream-ppo, stream-grpo, ui-ppo, hidden-opid, or a path to a .json recipe file); did you mean "add-ppo"?',
      ],
      [['--set', 'rl.clipLo=0.1'], 'horizon recipe: --set rl.clipLo: no such recipe field; did you mean "rl.clipLow"?'],
      [['--set', 'rl.epochs=0'], 'horizon recipe: rl.epochs (from --set) must be an integer in [1, 1000], got 0.'],
    ];
    for (const [args, message] of cases) {
      const r = horizon(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim()).toBe(message);
      expect(r.stdout).toBe('');
    }
    const broken = join(scratch, 'broken.json');
    writeFileSync(broken, '{"rl": {"epochs": 2,}}');
    const r = horizon(['--recipe', broken]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`horizon recipe: recipe file ${broken} is not valid JSON (`);
  });

  it('--fields lists every field with its default and doc, and the presets', () => {
    const r = horizon(['--fields']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\n {2}rl\.clipLow\s+0\.2\s+PPO ratio clip below/);
    expect(r.stdout).toMatch(/\npresets:\n {2}add-ppo /);
  });
});
