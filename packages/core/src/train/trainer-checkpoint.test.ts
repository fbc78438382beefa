// The Trainer puts its vocabulary and named trainer state into every checkpoint and takes them back:
// a part registered before or after restore gets its saved state, and a checkpoint of another
// vocabulary (a browser checkpoint from before <unk>, which never passes decodeCheckpoint) is
// refused in one sentence before anything is restored. On the GPU (SwiftShader in CI); no training.

import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';
import { decodeCheckpoint, encodeCheckpoint } from '../checkpoint/checkpoint.ts';
import type { JsonValue } from '../envs/environment.ts';
import { resolveRecipe } from '../recipe/resolve.ts';
import { Trainer } from './trainer.ts';

describe('Trainer checkpoints carry the vocabulary and the named trainer state', () => {
  it('saves and restores registered parts through the checkpoint files', async () => {
    const gpu = await testGpu();
    const recipe = resolveRecipe({ preset: 'tiny' }).recipe;
    const first = new Trainer(gpu, recipe);
    let stats: JsonValue = { count: 3, mean: 0.25 };
    first.trainerState.register('stats', { save: () => stats, restore: (v) => (stats = v) });
    const ckpt = await decodeCheckpoint(await encodeCheckpoint(await first.checkpoint()));
    expect(ckpt.vocabulary).toEqual(first.tokenizer.pieceList());
    expect(ckpt.vocabulary).toHaveLength(14);
    expect(ckpt.trainerState).toEqual({ stats: { count: 3, mean: 0.25 } });
    first.dispose();

    const second = new Trainer(gpu, recipe);
    let restored: JsonValue = null;
    second.restore(ckpt);
    second.trainerState.register('stats', { save: () => restored, restore: (v) => (restored = v) });
    expect(restored).toEqual({ count: 3, mean: 0.25 });
    expect((await second.checkpoint()).trainerState).toEqual(ckpt.trainerState);

    // A checkpoint from before checkpoints carried a vocabulary, or with another one.
    const { vocabulary: _, ...old } = ckpt;
    expect(() => second.restore(old as typeof ckpt)).toThrow(
      'this checkpoint records no vocabulary (it was written before checkpoints carried one); start a new run.',
    );
    expect(() => second.restore({ ...ckpt, vocabulary: ckpt.vocabulary.slice(0, 13) })).toThrow(
      /this checkpoint was written with a vocabulary of 13 tokens and this run's tokenizer has 14, differing first at id 13/,
    );
    second.dispose();
  });
});
