// Named trainer state: parts save and restore by name, through a real checkpoint's files, and an
// entry nobody claims yet is neither lost nor invented.

import { describe, expect, it } from 'vitest';
import { type Checkpoint, decodeCheckpoint, encodeCheckpoint } from '../checkpoint/checkpoint.ts';
import type { JsonValue } from '../envs/environment.ts';
import { parameterLayout } from '../model/parameters.ts';
import { modelConfigs } from '../recipe/checks.ts';
import { recipeVocabSize, recipeVocabulary } from '../recipe/fits.ts';
import { resolveRecipe } from '../recipe/resolve.ts';
import { TrainerState } from './trainer-state.ts';

/** A ring buffer of the last `size` policy versions, the kind of state a rollout-lag simulator keeps. */
class Ring {
  versions: number[] = [];
  constructor(readonly size: number) {}
  push(v: number) {
    this.versions = [...this.versions, v].slice(-this.size);
  }
  part() {
    return {
      save: (): JsonValue => ({ versions: this.versions }),
      restore: (saved: JsonValue) => {
        this.versions = [...((saved as { versions: number[] }).versions ?? [])];
      },
    };
  }
}

describe('TrainerState', () => {
  it('saves every registered part by name and restores it through a checkpoint round trip', async () => {
    const ring = new Ring(3);
    let z0 = 0.5;
    const state = new TrainerState();
    state.register('lag', ring.part());
    state.register('kto.z0', { save: () => z0, restore: (v) => (z0 = v as number) });
    for (const v of [1, 2, 3, 4]) ring.push(v);
    z0 = 0.125;

    const recipe = resolveRecipe({ preset: 'tiny' }).recipe;
    const config = modelConfigs(recipe, recipeVocabSize(recipe)).policy;
    const ckpt: Checkpoint = {
      step: 3,
      recipe,
      models: { policy: { config, params: new Float32Array(parameterLayout(config).totalSize) } },
      rng: {},
      dataCursor: {},
      extra: {},
      vocabulary: recipeVocabulary(recipe),
      trainerState: state.save(),
    };
    const back = await decodeCheckpoint(await encodeCheckpoint(ckpt));
    expect(back.trainerState).toEqual({ lag: { versions: [2, 3, 4] }, 'kto.z0': 0.125 });

    const ring2 = new Ring(3);
    let z0b = 0;
    const resumed = new TrainerState();
    resumed.register('lag', ring2.part());
    resumed.restore(back.trainerState);
    // Registered after the restore: handed its entry at registration.
    resumed.register('kto.z0', { save: () => z0b, restore: (v) => (z0b = v as number) });
    expect(ring2.versions).toEqual([2, 3, 4]);
    expect(z0b).toBe(0.125);
    expect(resumed.unclaimed()).toEqual([]);
    expect(resumed.save()).toEqual(state.save());
  });

  it('keeps an entry no part claims and saves it again unchanged; restored values are copies', () => {
    const state = new TrainerState();
    const saved = { stats: { mean: 1, count: [1, 2] } };
    state.restore(saved);
    expect(state.unclaimed()).toEqual(['stats']);
    expect(state.save()).toEqual(saved);
    (state.save().stats as { mean: number }).mean = 99;
    expect(state.save()).toEqual(saved);
  });

  it('names must be usable as keys, once each', () => {
    const state = new TrainerState();
    const part = { save: () => 1, restore: () => {} };
    expect(() => state.register('Lag', part)).toThrow(/must start with a lowercase letter/);
    state.register('lag', part);
    expect(() => state.register('lag', part)).toThrow('trainer state "lag" is registered twice');
  });
});
