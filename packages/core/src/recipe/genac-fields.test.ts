// GenAC's recipe: its preset, its own section, the checks that refuse a recipe its critic cannot
// run, and the models it declares.

import { REQUIRED_LIMITS } from '@horizon/kernels';
import { describe, expect, it } from 'vitest';
import { declaredModels } from '../algorithms/declared-models.ts';
import { criticVocabulary } from '../algorithms/genac/critic-vocabulary.ts';
import { checkRecipeFitsDevice, recipeVocabSize } from './fits.ts';
import { resolveRecipe } from './resolve.ts';

describe('the genac recipe', () => {
  it('add-genac: groups of 8 rollouts for the Monte-Carlo values, the critic phases first', () => {
    const { rl, genac } = resolveRecipe({ preset: 'add-genac' }).recipe;
    expect(rl).toMatchObject({ algorithm: 'genac', groupSize: 8, promptsPerIteration: 32 });
    expect(genac).toEqual({ sftIterations: 10, sftSteps: 8, sftLr: 3e-3, reinforceIterations: 10, criticLr: 1e-3, criticTokens: 6 });
  });

  it('declares a generative critic with a language-model head over the extended vocabulary', () => {
    const { recipe } = resolveRecipe({ preset: 'add-genac' });
    const models = declaredModels(recipe, recipeVocabSize(recipe));
    expect(models.map((m) => [m.name, m.role, m.trained, m.config.head, m.config.vocabSize])).toEqual([
      ['policy', 'policy', true, 'lm', 13],
      ['reference', 'reference', false, 'lm', 13],
      ['genac-critic', 'generative-critic', true, 'lm', 19],
    ]);
  });

  it('runs on subtraction and the mix too, whose critic vocabulary has their "-"', () => {
    for (const env of ['subtraction', 'mix'] as const) {
      const { recipe } = resolveRecipe({ preset: 'add-genac', sets: [`task.env=${env}`] });
      const critic = declaredModels(recipe, recipeVocabSize(recipe))[2];
      expect(critic.config.vocabSize, env).toBe(recipeVocabSize(recipe) + 6);
      expect(criticVocabulary(recipe.task).characters, env).toContain('-');
    }
  });

  it('refuses a task whose prompts the scripted reasoning cannot read', () => {
    expect(() => resolveRecipe({ preset: 'add-genac', sets: ['task.env=long-stream', 'model.contextLength=64'] })).toThrow(
      /task\.env \(from --set\) must be addition, subtraction, mix for genac/,
    );
  });

  it('refuses a context too short for the critic prompt and its answer', () => {
    // The longest OOD prompt "999+999=" (8) + "L2D32W100|" (10) + 6 critic tokens.
    expect(() => resolveRecipe({ preset: 'add-genac', sets: ['model.contextLength=23'] })).toThrow(
      /model\.contextLength \(from --set\) must be at least 24 for genac/,
    );
    expect(resolveRecipe({ preset: 'add-genac', sets: ['model.contextLength=24'] }).recipe.model.contextLength).toBe(24);
  });

  it('needs groups: one rollout per prompt has no Monte-Carlo value', () => {
    expect(() => resolveRecipe({ preset: 'add-genac', sets: ['rl.groupSize=1'] })).toThrow(/rl\.groupSize \(from --set\) must be at least 2 for genac/);
  });

  it('genac.* is read by genac alone', () => {
    expect(() => resolveRecipe({ sets: ['genac.criticLr=0.01'] })).toThrow(
      /genac\.criticLr \(from --set\) is read by genac; this recipe's rl\.algorithm is ppo/,
    );
  });

  it('sizes the generative critic by model.critic: a head wider than the kernels take is refused', () => {
    const { recipe } = resolveRecipe({ preset: 'add-genac', sets: ['model.critic.width=1024', 'model.critic.heads=2'] });
    const host = { hostMemoryBytes: 8 * 2 ** 30, deviceInHostMemory: true };
    expect(() => checkRecipeFitsDevice(recipe, recipeVocabSize(recipe), REQUIRED_LIMITS, host)).toThrow(/^model\.critic\.width 1024 with 2 heads/);
  });
});
