// OPID on the real GPU path (SwiftShader in CI), tiny: HiddenTestFS rollouts of a random policy go
// through the trainer's iteration (sample, score, the skill-injected pass, advantages, update). An
// empty skill injects nothing, so its views are the rollouts themselves and Δ must be exactly 0 on
// every action token, leaving GRPO's advantages untouched; a real skill moves Δ, and the advantage
// is GRPO's plus coef·Δ. The pre-check runs on honest demonstrations.

import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';
import { resolveRecipe } from '../../recipe/resolve.ts';
import type { Recipe } from '../../recipe/schema.ts';
import type { CharTokenizer } from '../../tokenizer/char-tokenizer.ts';
import { collectAndScore } from '../../train/collect-and-score.ts';
import { rlIteration } from '../../train/rl-iteration.ts';
import { Scorer } from '../../train/scoring.ts';
import { testRlContext } from '../../train/testing/rl-context.ts';
import { grpo } from '../grpo.ts';
import { opidMethod } from './opid.ts';
import { skillDeltaOnDemonstrations } from './pre-check.ts';
import type { Skills } from './skill-parser.ts';

function tinyRecipe(sets: string[] = []): Recipe {
  return resolveRecipe({
    preset: 'hidden-opid',
    sets: [
      'rl.promptsPerIteration=2',
      'rl.groupSize=2',
      'rl.maxTurns=2',
      'rl.epochs=1',
      'rl.minibatches=1',
      'eval.heldOutSize=2',
      'eval.oodSize=2',
      'opid.coef=0.5',
      ...sets,
    ],
  }).recipe;
}

const fixed = (skills: Skills) => opidMethod({ skillsOf: () => skills });

describe('opid on the GPU', () => {
  it('an empty skill gives Δ = 0 on every action token through an iteration, and GRPO’s advantages exactly', async () => {
    const recipe = tinyRecipe();
    const { ctx } = await testRlContext(recipe, fixed({ global: '', steps: {} }));
    const scored = await collectAndScore(ctx, 0, 0);
    const { skillLogp, skillScored, oldLogp } = scored.scores;
    if (!skillLogp || !skillScored) throw new Error('no skill scores');
    let actions = 0;
    for (let i = 0; i < oldLogp.length; i++) {
      if (!scored.rows.actionMask[i]) continue;
      actions++;
      expect(skillScored[i], `position ${i} scored`).toBe(1);
      expect(skillLogp[i], `position ${i}`).toBe(oldLogp[i]);
    }
    expect(actions).toBeGreaterThan(0);
    const { ctx: plain } = await testRlContext(recipe, grpo);
    const baseline = await collectAndScore(plain, 0, 0);
    expect(Array.from(scored.advantages)).toEqual(Array.from(baseline.advantages));

    const result = await rlIteration(ctx, 0, 0);
    expect(result.metrics['policy/skill_delta']).toBe(0);
    expect(result.metrics['rollout/skill_scored_frac']).toBe(1);
    for (const { sample, channels } of result.samples) {
      expect(sample.meta.opidSkills).toEqual({ global: '' });
      expect(Array.from(channels.skill_delta ?? [])).toEqual(new Array(sample.tokens.length).fill(0));
    }
    expect(Number.isFinite(result.metrics['policy/loss'])).toBe(true);
  });

  it('a real skill moves Δ, and the advantage is GRPO’s plus coef·Δ', async () => {
    const recipe = tinyRecipe();
    const { ctx } = await testRlContext(recipe, fixed({ global: 'ls -a;cat task/README;echo expr>f.js;run_tests;submit', steps: {} }));
    const scored = await collectAndScore(ctx, 0, 0);
    const { ctx: plain } = await testRlContext(recipe, grpo);
    const baseline = await collectAndScore(plain, 0, 0);
    const { skillLogp, oldLogp } = scored.scores;
    if (!skillLogp) throw new Error('no skill scores');
    let moved = 0;
    for (let i = 0; i < oldLogp.length; i++) {
      if (!scored.rows.actionMask[i]) continue;
      const delta = skillLogp[i] - oldLogp[i];
      if (delta !== 0) moved++;
      expect(scored.advantages[i]).toBeCloseTo(baseline.advantages[i] + 0.5 * delta, 5);
    }
    expect(moved).toBeGreaterThan(0);
    expect(scored.samples[0].meta.opidRouted).toEqual(expect.arrayContaining(['ls -a;cat task/README;echo expr>f.js;run_tests;submit']));
  });

  it('the first loss is −token-mean of GRPO’s advantage plus coef·Δ, computed on the host from the scores', async () => {
    const recipe = tinyRecipe();
    const method = fixed({ global: 'cat task/README;submit', steps: {} });
    const { ctx: scoring } = await testRlContext(recipe, method);
    const scored = await collectAndScore(scoring, 0, 0);
    const { ctx: plain } = await testRlContext(recipe, grpo);
    const baseline = await collectAndScore(plain, 0, 0);
    const { skillLogp, oldLogp } = scored.scores;
    if (!skillLogp) throw new Error('no skill scores');
    let sum = 0;
    let tokens = 0;
    for (let i = 0; i < oldLogp.length; i++) {
      if (!scored.rows.actionMask[i]) continue;
      sum += baseline.advantages[i] + 0.5 * (skillLogp[i] - oldLogp[i]);
      tokens++;
    }
    // One minibatch, one epoch: the only step is at ratio 1, so the clipped surrogate is −Â itself.
    const { ctx } = await testRlContext(recipe, method);
    const result = await rlIteration(ctx, 0, 0);
    expect(result.metrics['policy/loss']).toBeCloseTo(-sum / tokens, 5);
    expect(Math.abs(sum)).toBeGreaterThan(1e-3);
  });

  it('the pre-check measures Δ on honest demonstrations’ action tokens', async () => {
    const recipe = tinyRecipe();
    const { policy, ctx } = await testRlContext(recipe, fixed({ steps: {} }));
    const tokenizer = ctx.codec as CharTokenizer;
    const result = await skillDeltaOnDemonstrations({ scorer: new Scorer(await testGpu()), policy, task: ctx.task, codec: tokenizer, recipe, count: 4 });
    expect(result.demonstrations).toBe(4);
    // Every demonstration's action tokens are all scored with a skill in route mode (each has a global skill).
    expect(result.tokens).toBeGreaterThan(4 * 50);
    expect(Number.isFinite(result.meanDelta)).toBe(true);
    expect(result.meanDelta).not.toBe(0);
    expect(result.positiveFraction).toBeGreaterThan(0);
    expect(result.positiveFraction).toBeLessThan(1);
  });
});
