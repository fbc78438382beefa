// The Trainer puts its vocabulary and named trainer state into every checkpoint and takes them back:
// a part registered before or after restore gets its saved state, and a checkpoint of another
// vocabulary is refused in one sentence before anything is restored — also a browser checkpoint,
// which comes from IndexedDB and never passes decodeCheckpoint. On the GPU (SwiftShader in CI); no training.

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
    expect(ckpt.vocabulary).toHaveLength(13);
    expect(ckpt.trainerState).toEqual({ method: {}, stats: { count: 3, mean: 0.25 } });
    first.dispose();

    const second = new Trainer(gpu, recipe);
    let restored: JsonValue = null;
    second.restore(ckpt);
    second.trainerState.register('stats', { save: () => restored, restore: (v) => (restored = v) });
    expect(restored).toEqual({ count: 3, mean: 0.25 });
    expect((await second.checkpoint()).trainerState).toEqual(ckpt.trainerState);

    // A checkpoint with another vocabulary (here: <unk> appended) is refused before anything is restored.
    expect(() => second.restore({ ...ckpt, vocabulary: [...ckpt.vocabulary, '\uFFFD'], trainerState: { stats: 'other' } })).toThrow(
      /this checkpoint was written with a vocabulary of 14 tokens and this run's tokenizer has 13, differing first at id 13/,
    );
    expect(restored).toEqual({ count: 3, mean: 0.25 });
    // A browser checkpoint saved before checkpoints carried a vocabulary has its recipe's: it restores.
    const { vocabulary: _, ...old } = ckpt;
    expect(() => second.restore(old as typeof ckpt)).not.toThrow();
    second.dispose();
  });
});
