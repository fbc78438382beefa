// `horizon experiment` with arms that learn from other arms, through the real CLI on the runner's
// micro check (distill-runner-check: two experts, a distilled student and SFT on the experts'
// completions, × 3 seeds, on the mixed task): the experts run first from the seed's shared warm
// start and keep their final checkpoints, the student is scored by them, the off-policy arm trains
// on exactly their completions of its prompts, and the page reports each skill.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const main = join(root, 'packages', 'node-runner', 'src', 'main.ts');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const scratch = mkdtempSync(join(tmpdir(), 'horizon-experiment-teachers-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const runs = join(scratch, 'runs');
const docs = join(scratch, 'docs');
const NAME = 'distill-runner-check';
const MD = '.md';

const runDir = (arm: string, seed: number) => join(runs, NAME, arm, String(seed));
const result = (arm: string, seed: number) => JSON.parse(readFileSync(join(runDir(arm, seed), 'result.json'), 'utf8'));
const metricsRows = (arm: string, seed: number) =>
  readFileSync(join(runDir(arm, seed), 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

describe('horizon experiment with teacher arms', () => {
  let outcome: ReturnType<typeof spawnSync>;
  beforeAll(() => {
    outcome = spawnSync(tsx, [main, 'experiment', NAME, '--budget', '30', '--runs', runs, '--docs', docs], { cwd: root, encoding: 'utf8', timeout: 600_000 });
  }, 620_000);

  it('runs all 12 runs from one warm start per seed', () => {
    expect(outcome.status, String(outcome.stderr)).toBe(0);
    expect(readdirSync(join(runs, 'sft'))).toHaveLength(3);
    for (const seed of [1, 2, 3]) {
      const before = ['add-expert', 'sub-expert', 'student', 'expert-sft'].map((arm) => result(arm, seed).curve[0].heldOut);
      expect(new Set(before).size, `seed ${seed}: every arm starts from the same model`).toBe(1);
    }
  });

  it('specialises each expert after the warm start and keeps its final policy for the arms it teaches', () => {
    for (const seed of [1, 2, 3]) {
      expect(metricsRows('add-expert', seed)[0].recipe.task.mix.subtractionShare).toBe(0);
      expect(metricsRows('sub-expert', seed)[0].recipe.task.mix.subtractionShare).toBe(1);
      for (const expert of ['add-expert', 'sub-expert']) expect(readdirSync(join(runDir(expert, seed), 'checkpoints'))).toHaveLength(1);
      expect(existsSync(join(runDir('student', seed), 'checkpoints')), 'an arm nobody learns from keeps no checkpoint').toBe(false);
    }
  });

  it('scores the student with its own seed’s experts', () => {
    for (const seed of [1, 2, 3]) {
      const rows = metricsRows('student', seed);
      expect(rows[0].recipe.distill.teachers).toBe(`${runDir('add-expert', seed)},${runDir('sub-expert', seed)}`);
      const rl = rows.filter((r) => r.phase === 'rl');
      expect(rl).toHaveLength(2);
      // Teachers that trained on their own are not the student, so the sampled reverse-KL estimate
      // (log π_student − log π_teacher on the student's tokens; either sign) is not the exact 0 an
      // identical teacher gives.
      for (const row of rl) expect(Math.abs(row.metrics['policy/distill_reverse_kl'])).toBeGreaterThan(1e-6);
    }
  });

  it('trains the off-policy arm on one routed teacher completion per prompt the student saw', () => {
    for (const seed of [1, 2, 3]) {
      const { teacherSamples, final } = result('expert-sft', seed);
      expect(teacherSamples.kept + teacherSamples.dropped).toBe(2 * 8);
      expect(Object.keys(final.bySkill).sort()).toEqual(['addition', 'subtraction']);
    }
  });

  it('writes the page with a by-skill table and skill comparisons, and leaves the runner check out of the fidelity table', () => {
    const page = readFileSync(join(docs, `${NAME}${MD}`), 'utf8');
    expect(page).toContain('## By skill');
    expect(page).toMatch(/\| student \| [\d.]+% ± [\d.—]+ \(/);
    expect(page).toMatch(/student − add-expert on final held-out addition success is [+−][\d.]+ points/);
    expect(page).toContain('teachers: the final policies of `add-expert` and `sub-expert` at the same seed');
    expect(readFileSync(join(docs, 'README.md'), 'utf8')).not.toContain(NAME);
  });
});
