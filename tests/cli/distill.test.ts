// On-policy distillation through the real CLI: bad teachers and routes are one sentence, exit 2,
// and nothing written; and a tiny end to end run — two experts trained on different skills of the
// mixed task, then one student distilled from both — whose reverse KL to its teachers falls and
// whose per-skill held-out success is logged beside the experts' (the figures are written to the
// test's output; the budget is far too small for a claim about success).

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Checkpoint, modelConfigs, parameterLayout, recipeVocabSize, recipeVocabulary, resolveRecipe, saveCheckpoint } from '@horizon/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DirectoryCheckpointStore } from '../../packages/node-runner/src/run/checkpoint-store.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const main = join(root, 'packages', 'node-runner', 'src', 'main.ts');
const scratch = mkdtempSync(join(tmpdir(), 'horizon-distill-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function horizon(args: string[], timeout = 600_000) {
  // `node --import tsx`, not the tsx CLI, which starts a second Node process for each command (measured: 0.3 CPU s more each).
  const run = spawnSync(process.execPath, ['--import', 'tsx', main, ...args], { cwd: root, encoding: 'utf8', timeout });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const sets = (...pairs: string[]) => pairs.flatMap((s) => ['--set', s]);
/** Small enough for two CPU cores: a 16-token context, small evaluation sets. */
const SMALL = sets('model.contextLength=16', 'eval.heldOutSize=100', 'eval.oodSize=10', 'rl.promptsPerIteration=32');

/** A committed run directory holding one checkpoint of `recipeSets` with constant weights (no training). */
async function fakeRun(name: string, recipeSets: string[]): Promise<string> {
  const dir = join(scratch, name);
  mkdirSync(join(dir, 'checkpoints'), { recursive: true });
  const recipe = resolveRecipe({ preset: 'mix-add-expert', sets: recipeSets }).recipe;
  const config = modelConfigs(recipe, recipeVocabSize(recipe)).policy;
  const params = new Float32Array(parameterLayout(config).totalSize).fill(0.01);
  const ckpt: Checkpoint = {
    step: 1,
    recipe,
    models: { policy: { config, params, adam: { step: 1, m: params.slice(), v: params.slice() } }, reference: { config, params: params.slice() } },
    rng: {},
    dataCursor: { train: 32 },
    extra: { phase: 'rl', sftSteps: recipe.sft.steps },
    vocabulary: recipeVocabulary(recipe),
    trainerState: {},
  };
  await saveCheckpoint(new DirectoryCheckpointStore(join(dir, 'checkpoints')), ckpt, { keepLast: 1 });
  return dir;
}

describe('bad teachers and routes: one sentence, exit 2, nothing written', () => {
  let mixRun = '';
  let additionRun = '';
  beforeAll(async () => {
    mixRun = await fakeRun('mix-16', ['model.contextLength=16']);
    additionRun = await fakeRun('addition-16', ['task.env=addition', 'model.contextLength=16']);
    mkdirSync(join(scratch, 'no-checkpoints'));
    mkdirSync(join(scratch, 'uncommitted', 'checkpoints', 'step-3'), { recursive: true });
  });

  const refused = (extra: string[]) => {
    const out = join(scratch, `out-${Math.random().toString(36).slice(2)}`);
    const r = horizon(['train', '--quiet', '--recipe', 'mix-distill', ...SMALL, ...extra, '--out', out], 120_000);
    expect(r.code, r.stderr).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^horizon train: /);
    expect(r.stdout).not.toContain('run directory:');
    expect(existsSync(out)).toBe(false);
    return lines[0];
  };

  it('a teacher path that is not a committed run', () => {
    const missing = join(scratch, 'nowhere');
    expect(refused(sets(`distill.teachers=${missing},${mixRun}`))).toBe(
      `horizon train: distill.teachers: ${missing} is not a committed run (no such directory); name a run directory that \`horizon train\` has written a checkpoint into.`,
    );
    expect(refused(sets(`distill.teachers=${mixRun},${join(scratch, 'no-checkpoints')}`))).toContain('is not a committed run (it has no checkpoints/)');
    expect(refused(sets(`distill.teachers=${join(scratch, 'uncommitted')},${mixRun}`))).toContain(
      'is not a committed run (none of its checkpoints is committed)',
    );
  });

  it('a teacher with another vocabulary or context length', () => {
    expect(refused(sets(`distill.teachers=${mixRun},${additionRun}`))).toBe(
      `horizon train: teacher ${additionRun} has the vocabulary of task.env addition (12 characters), but this run's task.env mix has 13: a teacher must score the student's token ids, so train it on a task with the same vocabulary (for arithmetic: subtraction or mix).`,
    );
    expect(refused([...sets(`distill.teachers=${mixRun},${mixRun}`), ...sets('model.contextLength=20')])).toBe(
      `horizon train: teacher ${mixRun} has a context of 16 tokens, but model.contextLength is 20: set model.contextLength=16 or choose a teacher with the student's context.`,
    );
  });

  it('a route naming a tag no task has, and no teachers at all', () => {
    expect(refused(sets(`distill.teachers=${mixRun},${mixRun}`, 'distill.route=addition=1,multiplication=2'))).toContain(
      'distill.route (from --set) names the tag "multiplication", which no prompt of task.env mix has (its tags: addition, subtraction)',
    );
    expect(refused(sets(`distill.teachers=${mixRun}`, 'task.env=subtraction', 'distill.route=addition=1'))).toContain(
      'names the tag "addition", which no prompt of task.env subtraction has (its tags: subtraction)',
    );
    expect(refused([])).toBe(
      'horizon train: distill.teachers names no teacher run; distillation needs at least one, e.g. --set distill.teachers=runs/a (a committed run directory).',
    );
  });
});

/** The metrics rows of a run's metrics.jsonl. */
function rows(dir: string): { phase: string; step: number; metrics: Record<string, number> }[] {
  return readFileSync(join(dir, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
    .filter((r) => r.kind === 'metrics');
}

const lastEval = (dir: string) =>
  rows(dir)
    .filter((r) => r.phase === 'eval')
    .at(-1)?.metrics ?? {};

/** Each expert's warm start. */
const EXPERT_SFT_STEPS = 100;

describe('a student merged from two experts', () => {
  it('trains an addition and a subtraction expert, distills one student from both, and its reverse KL to them falls', () => {
    const expert = (preset: string, out: string) => {
      const r = horizon([
        'train',
        '--quiet',
        '--recipe',
        preset,
        ...SMALL,
        // 100 SFT steps, not 200: the experts' warm starts were most of this file's time. The student
        // still starts far from them and its reverse KL still falls well above the noise (measured
        // per token: 2.21 2.16 1.73 1.43 … 1.27 1.35 0.52 0.65, the first four 1.88 on average and
        // the last four 0.95; with 200 steps 2.63 against 1.32).
        ...sets(`sft.steps=${EXPERT_SFT_STEPS}`, 'rl.iterations=1', 'rl.criticWarmupSteps=0'),
        '--out',
        out,
      ]);
      expect(r.code, r.stderr).toBe(0);
    };
    const add = join(scratch, 'expert-add');
    const sub = join(scratch, 'expert-sub');
    expert('mix-add-expert', add);
    expert('mix-sub-expert', sub);
    const student = join(scratch, 'student');
    const r = horizon([
      'train',
      '--quiet',
      '--recipe',
      'mix-distill',
      ...SMALL,
      // A student with no warm start is far from its teachers (about 6 nats per token), so 12
      // iterations show the reverse KL falling above the noise; from a 20-step warm start (about 2
      // nats) it did not fall reliably within 60 iterations (docs/algorithms/distillation.md).
      ...sets('sft.steps=0', 'rl.iterations=12', 'rl.policyLr=3e-3', 'eval.interval=0', `distill.teachers=${add},${sub}`),
      '--out',
      student,
    ]);
    expect(r.code, r.stderr).toBe(0);

    const rl = rows(student).filter((row) => row.phase === 'rl');
    expect(rl).toHaveLength(12);
    const kl = rl.map((row) => row.metrics['policy/distill_reverse_kl']);
    const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
    expect(mean(kl.slice(-4))).toBeLessThan(mean(kl.slice(0, 4)));

    const evals = rows(student).filter((row) => row.phase === 'eval');
    const skills = ['eval/held_out_success_addition', 'eval/held_out_success_subtraction'];
    for (const row of evals) for (const name of skills) expect(row.metrics[name]).toBeGreaterThanOrEqual(0);
    const figures = {
      'addition expert': lastEval(add),
      'subtraction expert': lastEval(sub),
      'student after SFT': evals[0].metrics,
      'student after distillation': evals.at(-1)?.metrics ?? {},
    };
    for (const [who, m] of Object.entries(figures)) console.log(`${who}: addition ${m[skills[0]]}, subtraction ${m[skills[1]]}`);
    console.log(`reverse KL per token: ${kl.map((x) => x.toFixed(3)).join(' ')}`);

    // The checkpoint names the teachers and holds only the student's own models.
    const state = JSON.parse(readFileSync(join(student, 'checkpoints', 'step-12', 'state.json'), 'utf8'));
    expect(Object.keys(state.models).sort()).toEqual(['policy', 'reference']);
    expect(state.extra.teachers).toEqual([
      { run: add, step: 1 },
      { run: sub, step: 1 },
    ]);
  }, 1_500_000);
});
