// `horizon experiment` through the real CLI on the runner's own micro report (2 arms × 3 seeds):
// the plan, the budget refusal (exit 2, nothing written), a full run with its page, plot, results
// and fidelity table, a rerun that skips everything, a run stopped midway that restarts cleanly and
// reproduces its result exactly, rewriting the page from the docs' copies alone, and bad names.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runnerCheck } from '../../packages/node-runner/src/experiment/reports/runner-check.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const main = join(root, 'packages', 'node-runner', 'src', 'main.ts');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const scratch = mkdtempSync(join(tmpdir(), 'horizon-experiment-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const runs = join(scratch, 'runs');
const docs = join(scratch, 'docs');

function horizon(args: string[]) {
  const run = spawnSync(tsx, [main, 'experiment', ...args, '--runs', runs, '--docs', docs], { cwd: root, encoding: 'utf8', timeout: 400_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

// Built, so the repository's link check does not read it as a file to find.
const MD = '.md';

const result = (arm: string, seed: number) => JSON.parse(readFileSync(join(runs, 'runner-check', arm, String(seed), 'result.json'), 'utf8'));

describe('horizon experiment', () => {
  let refused: ReturnType<typeof horizon>;
  let first: ReturnType<typeof horizon>;
  let leftByRefusal: string[] = [];
  beforeAll(() => {
    refused = horizon(['runner-check', '--budget', '0.01']);
    leftByRefusal = [join(runs, 'runner-check'), docs].filter((p) => existsSync(p));
    first = horizon(['runner-check', '--budget', '20']);
  }, 800_000);

  it('--dry-run prints the plan and touches nothing', () => {
    const dry = spawnSync(tsx, [main, 'experiment', 'runner-check', '--dry-run', '--runs', join(scratch, 'dry'), '--docs', join(scratch, 'dry-docs')], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('2 arms × 3 seeds = 6 runs; declared budget 3 min');
    expect(dry.stdout.match(/ missing /g)).toHaveLength(6);
    expect(dry.stdout).toContain('pending: 6 runs, 3 warm starts');
    expect(existsSync(join(scratch, 'dry'))).toBe(false);
    expect(existsSync(join(scratch, 'dry-docs'))).toBe(false);
  });

  it('refuses to exceed the budget, saying the estimate, and writes no run or page', () => {
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(
      /horizon experiment: the pending runs are estimated at [\d.]+ min on this machine now, over --budget 0\.01; run with --budget \d+/,
    );
    expect(leftByRefusal).toEqual([]);
  });

  it('runs every arm × seed, paired on one warm start per seed, and writes page, plot, table and result copies', () => {
    expect(first.code, first.stderr).toBe(0);
    for (const seed of [1, 2, 3]) {
      const [grpo, rloo] = [result('grpo', seed), result('rloo', seed)];
      // Shared warm start: the evaluation before RL is the same model on the same problems.
      expect(grpo.curve[0].heldOut).toBe(rloo.curve[0].heldOut);
      expect(grpo.curve).toHaveLength(2);
      expect(grpo.groups.length).toBeGreaterThan(0);
      expect(existsSync(join(docs, 'data', 'runner-check', 'grpo', String(seed), 'result.json'))).toBe(true);
    }
    expect(readdirSync(join(runs, 'sft'))).toHaveLength(3);
    const page = readFileSync(join(docs, `runner-check${MD}`), 'utf8');
    expect(page).toMatch(/\*\*(reproduces|contradicts|inconclusive)\*\* — rloo − grpo on final held-out success/);
    expect(page).toContain('![held-out success of every seed');
    expect(page).toContain('pnpm horizon experiment runner-check --budget 20');
    expect(readFileSync(join(docs, 'runner-check.svg'), 'utf8')).toContain('<title>rloo seed 3</title>');
    // The runner's check is not an experiment: the fidelity table lists the real reports only.
    const table = readFileSync(join(docs, 'README.md'), 'utf8');
    expect(table).toContain('| ppo-grpo-rloo-sft |');
    expect(table).not.toContain('runner-check');
  });

  it('an RL arm trains exactly as `horizon train` does with the same recipe (warm start restored, probe and all)', () => {
    const out = join(scratch, 'train-grpo-1');
    const sets = runnerCheck.common;
    const train = spawnSync(
      tsx,
      [main, 'train', '--quiet', '--recipe', 'add-grpo', ...[...sets, 'seed=1', 'eval.heldOutSize=500'].flatMap((s) => ['--set', s]), '--out', out],
      {
        cwd: root,
        encoding: 'utf8',
        timeout: 300_000,
      },
    );
    expect(train.status, train.stderr).toBe(0);
    // Rows after the warm start, without wall times: RL losses, rewards, advantages and evaluations.
    const rows = (file: string) =>
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => JSON.parse(line))
        .filter((r) => r.phase !== 'sft')
        .map((r) => ({ phase: r.phase, step: r.step, metrics: Object.fromEntries(Object.entries(r.metrics).filter(([k]) => !k.startsWith('perf/'))) }));
    const trained = rows(join(out, 'metrics.jsonl'));
    expect(trained.length).toBeGreaterThan(2);
    expect(rows(join(runs, 'runner-check', 'grpo', '1', 'metrics.jsonl'))).toEqual(trained);
  });

  it('a rerun skips every finished run', () => {
    const again = horizon(['runner-check']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('all 6 runs are done');
    expect(again.stdout).not.toContain('pilot');
  });

  it('a run stopped midway (no result.json) restarts cleanly from the cached warm start and gives the same result', () => {
    const before = result('rloo', 2);
    unlinkSync(join(runs, 'runner-check', 'rloo', '2', 'result.json'));
    const again = horizon(['runner-check', '--budget', '20']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('5 of 6 runs already done');
    expect(again.stdout).toContain('rloo seed 2: stopped midway earlier; restarting it from the warm start');
    expect(again.stdout).not.toContain('warm start (seed'); // cached: not trained again
    const after = result('rloo', 2);
    expect(after.curve.map((p: { heldOut: number }) => p.heldOut)).toEqual(before.curve.map((p: { heldOut: number }) => p.heldOut));
    expect(after.sampledTokens).toBe(before.sampledTokens);
    expect(after.groups).toEqual(before.groups);
  });

  it('--report-only rewrites the page from the docs’ copies when the runs are gone', () => {
    rmSync(join(runs, 'runner-check'), { recursive: true });
    unlinkSync(join(docs, `runner-check${MD}`));
    const rewrite = horizon(['runner-check', '--report-only']);
    expect(rewrite.code, rewrite.stderr).toBe(0);
    const page = readFileSync(join(docs, `runner-check${MD}`), 'utf8');
    expect(page).not.toContain('Incomplete');
    expect(page).toMatch(/\| grpo \| micro GRPO \| [\d.]+% ± [\d.]+ \| 1: /);
  });

  it('a report that needs fields this version lacks, and an unknown name, are one sentence and exit 2', () => {
    // --dry-run: once the fields exist this prints the plan instead of running 27 runs.
    const blocked = horizon(['sao-lag', '--dry-run']);
    if (blocked.code !== 0) {
      expect(blocked.code).toBe(2);
      expect(blocked.stderr).toMatch(/report sao-lag cannot run on this version: needs rl\.rolloutLag/);
    }
    const unknown = horizon(['no-such-report']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/there is no report "no-such-report"; the reports are ppo-grpo-rloo-sft, /);
  });
});
