// A field of another method is an error naming it (method-fields.ts, method-field-check.ts): set
// explicitly by --set, a file or a preset, it must be one sentence with the field, the methods that
// read it and the recipe's rl.algorithm; defaults, values equal to the default, a preset's fields
// under a method switched later, and a run's own saved recipe never trigger it.

import { describe, expect, it } from 'vitest';
import { ALGORITHM_BY_NAME } from '../algorithms/index.ts';
import { recipeFieldsHelp } from './fields.ts';
import { methodFieldIssues } from './method-field-check.ts';
import { METHOD_FIELDS, methodFieldsSummary, methodsReading } from './method-fields.ts';
import { PRESET_NAMES } from './presets.ts';
import { RecipeError, resolveRecipe } from './resolve.ts';
import { ALGORITHMS } from './schema.ts';

function message(request: Parameters<typeof resolveRecipe>[0]): string {
  try {
    resolveRecipe(request);
  } catch (error) {
    expect(error).toBeInstanceOf(RecipeError);
    return (error as Error).message;
  }
  throw new Error('the recipe resolved');
}

describe('the method-fields table', () => {
  it('names only real methods, and a section row covers its fields', () => {
    for (const readers of Object.values(METHOD_FIELDS)) for (const name of readers) expect(ALGORITHMS).toContain(name);
    expect(methodsReading('rl.criticLr')).toEqual(['ppo', 'sao']);
    expect(methodsReading('kto.beta')).toEqual(['kto']);
    expect(methodsReading('rl.clipLow')).toBeUndefined();
    expect(methodsReading('ktox')).toBeUndefined();
  });

  it('the help says who reads a method-specific field', () => {
    expect(recipeFieldsHelp()).toMatch(/ {2}rl\.criticLr\s+0\.001\s+critic learning rate \[read by ppo, sao\]/);
    expect(recipeFieldsHelp()).toMatch(/ {2}kto\.beta\s+0\.1\s+.*\[read by kto\]/);
    expect(recipeFieldsHelp()).not.toMatch(/rl\.clipLow.*read by/);
    expect(methodFieldsSummary()).toBe(
      'rl.lambda, rl.lambdaCritic, rl.lambdaAlpha, rl.valueClip, rl.criticLr, rl.criticWarmupSteps, rl.criticWarmupTarget, rl.criticUpdates, rl.truncation (ppo, sao); sao.* (sao); kto.* (kto); distill.* (distill); genac.* (genac); opid.* (opid)',
    );
  });
});

describe('a field of another method', () => {
  it('--set: one sentence naming the field, its readers and the recipe’s method', () => {
    expect(message({ preset: 'add-grpo', sets: ['rl.criticLr=0.002'] })).toBe(
      "rl.criticLr (from --set) is read by ppo, sao; this recipe's rl.algorithm is grpo.",
    );
    expect(message({ sets: ['kto.beta=0.5'] })).toBe("kto.beta (from --set) is read by kto; this recipe's rl.algorithm is ppo.");
    expect(message({ preset: 'add-kto', sets: ['rl.lambda=0.9'] })).toBe("rl.lambda (from --set) is read by ppo, sao; this recipe's rl.algorithm is kto.");
  });

  it('a recipe file: every such field, naming the file', () => {
    const file = { name: 'mine.json', text: JSON.stringify({ extends: 'add-rloo', rl: { criticWarmupSteps: 0, valueClip: 0.5 } }) };
    expect(message({ file }).split('\n')).toEqual([
      "rl.valueClip (from file mine.json) is read by ppo, sao; this recipe's rl.algorithm is rloo.",
      "rl.criticWarmupSteps (from file mine.json) is read by ppo, sao; this recipe's rl.algorithm is rloo.",
    ]);
  });

  it('a preset is judged against its own method', () => {
    const grpo = resolveRecipe({ preset: 'add-grpo' });
    const recipe = { ...grpo.recipe, rl: { ...grpo.recipe.rl, criticLr: 0.5 } };
    expect(methodFieldIssues(recipe, { ...grpo.sources, 'rl.criticLr': 'preset add-grpo' })).toEqual([
      { path: 'rl.criticLr', message: "is read by ppo, sao; preset add-grpo's rl.algorithm is grpo" },
    ]);
  });

  it('never from defaults, a value equal to the default, or a preset’s own fields under a later method', () => {
    for (const preset of PRESET_NAMES) expect(() => resolveRecipe({ preset })).not.toThrow();
    expect(() => resolveRecipe({ preset: 'add-grpo', sets: ['rl.criticLr=0.001'] })).not.toThrow();
    // tiny (PPO) sets rl.criticWarmupSteps = 0; switching its method does not make that the user's setting.
    expect(() => resolveRecipe({ preset: 'tiny', sets: ['rl.algorithm=grpo', 'rl.groupSize=2'] })).not.toThrow();
    // `horizon recipe --json` lists every field; that file resolves again.
    const dumped = { name: 'dump.json', text: JSON.stringify(resolveRecipe({ preset: 'add-kto' }).recipe) };
    expect(resolveRecipe({ file: dumped }).recipe.rl.algorithm).toBe('kto');
  });

  it("a run's saved recipe is not judged again on resume, but a --set on top of it is", () => {
    const saved = resolveRecipe({ preset: 'tiny', sets: ['rl.algorithm=grpo', 'rl.groupSize=2'] }).recipe;
    const file = { name: 'checkpoint 5', text: JSON.stringify(saved) };
    expect(() => resolveRecipe({ file })).toThrow(/rl\.criticWarmupSteps \(from file checkpoint 5\) is read by ppo/);
    expect(resolveRecipe({ file: { ...file, savedByRun: true } }).recipe.rl.criticWarmupSteps).toBe(0);
    expect(() => resolveRecipe({ file: { ...file, savedByRun: true }, sets: ['rl.criticLr=0.01'] })).toThrow(/rl\.criticLr \(from --set\)/);
  });
});

describe('the group presets no longer set rl.criticWarmupSteps', () => {
  it('grpo, dr-grpo and rloo do not read it: their updates are the same for any value', () => {
    for (const preset of ['add-grpo', 'add-dr-grpo', 'add-rloo'] as const) {
      const { recipe } = resolveRecipe({ preset });
      const algorithm = ALGORITHM_BY_NAME[recipe.rl.algorithm];
      for (const iteration of [0, 1, 4, 5, 6])
        expect(algorithm.updates(recipe, iteration)).toEqual(algorithm.updates({ ...recipe, rl: { ...recipe.rl, criticWarmupSteps: 0 } }, iteration));
    }
  });
});
