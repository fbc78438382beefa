// On-policy distillation on the real GPU path (SwiftShader in CI): rollouts of the mixed task are
// scored by routed teachers (train/scoring.ts), and the method's advantage and loss term follow
// from the scores. A teacher identical to the student gives exactly zero; each row is scored by the
// teacher its task tag is routed to.
//
// Shape legend:  B rows · T positions

import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';
import { Gpt } from '../model/gpt.ts';
import { resolveRecipe } from '../recipe/resolve.ts';
import type { Recipe } from '../recipe/schema.ts';
import { collectAndScore } from '../train/collect-and-score.ts';
import { rlIteration } from '../train/rl-iteration.ts';
import { Teachers, type TeacherWeights } from '../train/teachers.ts';
import { TEST_POLICY_SEED, testRlContext } from '../train/testing/rl-context.ts';
import type { LossTerm } from './algorithm.ts';
import { declaredModels } from './declared-models.ts';
import { distill } from './distill.ts';

function distillRecipe(sets: string[] = []): Recipe {
  return resolveRecipe({
    preset: 'mix-distill',
    sets: [
      'distill.teachers=runs/add,runs/sub',
      'model.contextLength=16',
      'rl.promptsPerIteration=8',
      'rl.epochs=1',
      'rl.minibatches=2',
      'eval.heldOutSize=20',
      'eval.oodSize=10',
      ...sets,
    ],
  }).recipe;
}

/** A distillation context: a random student; teacher k's weights from `teacherSeeds[k]` (the student's own seed = identical). */
async function context(recipe: Recipe, teacherSeeds: number[]) {
  const gpu = await testGpu();
  const { ctx, policy, config } = await testRlContext(recipe, distill);
  const weights: TeacherWeights[] = [];
  for (const [k, seed] of teacherSeeds.entries()) {
    const teacher = Gpt.init(gpu, config, seed, 'scratch');
    weights.push({ run: `runs/t${k}`, step: 0, task: recipe.task, config, params: await teacher.readParameters() });
    teacher.destroy();
  }
  const teachers = new Teachers(gpu, recipe, ctx.task, weights);
  return { ctx: { ...ctx, teachers }, teachers, policy, STUDENT_SEED: TEST_POLICY_SEED };
}

describe('on-policy distillation', () => {
  it('declares a teacher role that the run neither builds nor checkpoints, and one policy update per mode', () => {
    expect(distill.models.map((m) => [m.name, m.role, m.trained])).toEqual([
      ['policy', 'policy', true],
      ['reference', 'reference', false],
      ['teacher', 'teacher', false],
    ]);
    expect(distill.scores).toEqual(['teacherLogp']);
    expect(declaredModels(distillRecipe(), 14).map((m) => m.name)).toEqual(['policy', 'reference']);
    const kinds = (terms: readonly LossTerm[]) => terms.map((t) => t.kind);
    expect(distill.updates(distillRecipe(), 0).map((u) => [u.model, kinds(u.terms)])).toEqual([['policy', ['ppo-clip']]]);
    expect(distill.updates(distillRecipe(['distill.mode=loss', 'distill.coef=2', 'rl.klPlacement=loss']), 0).map((u) => [u.model, u.terms])).toEqual([
      [
        'policy',
        [
          { kind: 'distill', coef: 2 },
          { kind: 'kl', coef: 0, estimator: 'k1' },
        ],
      ],
    ]);
  });

  it('a teacher identical to the student gives exactly zero advantage, and a different one does not', async () => {
    const recipe = distillRecipe(['distill.teachers=runs/same', 'distill.route=']);
    const { ctx, STUDENT_SEED } = await context(recipe, [1]);
    expect(STUDENT_SEED).toBe(1);
    const same = await collectAndScore(ctx, 0, 0);
    const teacherLogp = same.scores.teacherLogp as Float32Array;
    expect(Array.from(teacherLogp)).toEqual(Array.from(same.scores.oldLogp));
    let actionTokens = 0;
    for (let i = 0; i < same.advantages.length; i++) {
      expect(same.advantages[i]).toBe(0);
      actionTokens += same.rows.actionMask[i];
    }
    expect(actionTokens).toBeGreaterThan(0);
    expect(same.advantageMetrics['policy/distill_reverse_kl']).toBe(0);

    const other = await collectAndScore((await context(recipe, [7])).ctx, 0, 0);
    const nonzero = Array.from(other.advantages).filter((a, i) => other.rows.actionMask[i] && a !== 0).length;
    expect(nonzero).toBeGreaterThan(0);
    // Â = −coef·(ℓ_student − ℓ_teacher) on action tokens, 0 elsewhere.
    const tl = other.scores.teacherLogp as Float32Array;
    for (let i = 0; i < other.advantages.length; i++) {
      const want = other.rows.actionMask[i] ? -(other.scores.oldLogp[i] - tl[i]) : 0;
      expect(other.advantages[i]).toBeCloseTo(want, 5);
    }
  });

  it('routes each prompt to the teacher of its task tag', async () => {
    const recipe = distillRecipe(['distill.route=addition=2,subtraction=1']);
    const { ctx, teachers } = await context(recipe, [5, 9]);
    const scored = await collectAndScore(ctx, 0, 0);
    const { B, T } = scored.rows;
    // Each teacher alone on the whole batch: the routed result must be, row by row, its teacher's.
    const alone = async (k: number) =>
      (await ctx.scorer.score(scored.rows, ctx.models.byName, ['teacherLogp'], recipe.rl.temperature, Array(B).fill(teachers.models[k])))
        .teacherLogp as Float32Array;
    const byTeacher = [await alone(0), await alone(1)];
    const routed = scored.scores.teacherLogp as Float32Array;
    const seen = new Set<string>();
    for (let b = 0; b < B; b++) {
      const tag = scored.samples[b].meta.task as string;
      seen.add(tag);
      const k = tag === 'addition' ? 1 : 0;
      const row = (a: Float32Array) => Array.from(a.subarray(b * T, (b + 1) * T));
      expect(row(routed), `row ${b} (${tag})`).toEqual(row(byTeacher[k]));
      expect(row(routed), `row ${b} (${tag})`).not.toEqual(row(byTeacher[1 - k]));
    }
    expect([...seen].sort()).toEqual(['addition', 'subtraction']);
  });

  it('as a loss term: zero loss and zero gradient against an identical teacher; a different teacher trains the student', async () => {
    const recipe = distillRecipe(['distill.teachers=runs/same', 'distill.route=', 'distill.mode=loss']);
    const same = await context(recipe, [1]);
    const before = await same.policy.readParameters();
    const still = await rlIteration(same.ctx, 0, 0);
    expect(still.metrics['policy/distill_loss']).toBe(0);
    expect(still.metrics['policy/grad_norm']).toBe(0);
    expect(still.metrics['policy/loss']).toBeUndefined();
    expect(await same.policy.readParameters()).toEqual(before);

    const other = await context(recipe, [7]);
    const start = await other.policy.readParameters();
    const moved = await rlIteration(other.ctx, 0, 0);
    expect(moved.metrics['policy/distill_loss']).toBeGreaterThan(0);
    expect(moved.metrics['policy/grad_norm']).toBeGreaterThan(0);
    expect(await other.policy.readParameters()).not.toEqual(start);
  });
});
