// The recipe fields of the rollout-lag simulator, the policy surrogate, SAO and VC-PPO: a lag longer
// than the kept history is one sentence naming the field, the presets say what their methods are,
// and the method-field table names only real fields and sections.

import { describe, expect, it } from 'vitest';
import { MAX_ROLLOUT_LAG } from '../train/policy-history.ts';
import { RECIPE_FIELDS, RECIPE_SECTIONS } from './fields.ts';
import { METHOD_FIELDS } from './method-fields.ts';
import { RecipeError, resolveRecipe } from './resolve.ts';
import { ALGORITHMS } from './schema.ts';

describe('rollout lag, DIS, SAO and VC-PPO fields', () => {
  it('a lag longer than the kept history is one sentence naming rl.rolloutLag', () => {
    expect(resolveRecipe({ sets: [`rl.rolloutLag=${MAX_ROLLOUT_LAG}`] }).recipe.rl.rolloutLag).toBe(MAX_ROLLOUT_LAG);
    let error: unknown;
    try {
      resolveRecipe({ sets: [`rl.rolloutLag=${MAX_ROLLOUT_LAG + 1}`] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RecipeError);
    const message = (error as RecipeError).message;
    expect(message.split('\n')).toHaveLength(1);
    expect(message).toBe(
      `rl.rolloutLag (from --set) must be at most ${MAX_ROLLOUT_LAG}: the trainer keeps the last ${MAX_ROLLOUT_LAG} policies for the rollout-lag simulator, and a lag of ${MAX_ROLLOUT_LAG + 1} needs older ones.`,
    );
    expect(() => resolveRecipe({ sets: ['rl.policyLoss=cispo'] })).toThrow(/rl.policyLoss \(from --set\) must be one of ppo-clip \| dis/);
  });

  it('the defaults change nothing for the existing methods: lag 0, the PPO clip, one critic step, fixed λ, no early warm-up end', () => {
    const { rl, sao } = resolveRecipe().recipe;
    expect(rl).toMatchObject({ rolloutLag: 0, policyLoss: 'ppo-clip', criticUpdates: 1, lambdaAlpha: 0, criticWarmupTarget: 1 });
    expect(sao.freezeCriticAttention).toBe(true);
  });

  it('add-sao and add-vc-ppo are the methods their pages describe', () => {
    const sao = resolveRecipe({ preset: 'add-sao' }).recipe;
    expect(sao.rl).toMatchObject({
      algorithm: 'sao',
      policyLoss: 'dis',
      disLow: 0.3,
      disHigh: 5,
      criticUpdates: 2,
      lambdaAlpha: 1.5,
      lambdaCritic: 1,
      epochs: 1,
      groupSize: 1,
    });
    expect(sao.sao.freezeCriticAttention).toBe(true);
    const vc = resolveRecipe({ preset: 'add-vc-ppo' }).recipe;
    expect(vc.rl).toMatchObject({ algorithm: 'ppo', criticWarmupSteps: 20, criticWarmupTarget: 0.5, lambdaAlpha: 1.5, lambdaCritic: 1 });
  });

  it('every row of the method-field table is a real field or section, read by real methods', () => {
    const paths = new Set([...RECIPE_FIELDS.map((f) => f.path), ...RECIPE_SECTIONS.map((s) => s.path)]);
    for (const [path, methods] of Object.entries(METHOD_FIELDS)) {
      expect(paths.has(path), path).toBe(true);
      for (const method of methods) expect(ALGORITHMS, path).toContain(method);
    }
    expect(METHOD_FIELDS.sao).toEqual(['sao']);
    expect(METHOD_FIELDS['rl.criticUpdates']).toEqual(['ppo', 'sao']);
  });
});
