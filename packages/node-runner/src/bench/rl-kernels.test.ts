// The bench's GPU-tier tests (the one bench file vitest.config.ts lists in GPU_TESTS): the RL-kernel
// rows against their TypeScript reference, and the memory trace of a few tiny training iterations.

import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';
import { memoryGrowth, peakTensorBytes, sameShapePairs, shortRecipe, traceRecipeMemory } from './memory.ts';
import { benchRlKernels } from './rl-kernels.ts';

describe('RL-kernel bench rows', () => {
  it('quick rows: GPU elements/s beside the TypeScript reference, each checked before it is timed', async () => {
    const gpu = await testGpu();
    const wanted = new Set(['gae loop 64×512', 'ppo loss 64×512']);
    const rows = await benchRlKernels(gpu, { quick: true, wants: (name) => wanted.has(name) });
    expect(rows.map((r) => r.name)).toEqual(['gae loop 64×512', 'ppo loss 64×512']);
    for (const row of rows) {
      expect(row.unit).toBe('elements/s');
      expect(row.peerName).toBe('TS reference (CPU)');
      expect(row.ours).toBeGreaterThan(0);
      expect(row.ratio).toBeCloseTo((row.ours as number) / (row.peer as number), 9);
      expect(row.note).toMatch(/checked to \de-\d+/);
    }
  });
});

describe('memory across training iterations', () => {
  it('five tiny PPO iterations: GPU buffers and host RSS do not grow between iterations of one shape, and dispose gives every buffer back', async () => {
    const gpu = await testGpu();
    const m = await traceRecipeMemory(gpu, shortRecipe('tiny', 4, 5, ['rl.promptsPerIteration=8']));
    expect(m.iterations).toHaveLength(5);
    // Something was compared: at least two iterations after the first trained the same shape.
    expect(sameShapePairs(m).length).toBeGreaterThan(0);
    // The trace really counts: the warm start made buffers, and every iteration held some.
    expect(m.sft.peakTensorBytes).toBeGreaterThan(m.baselineBytes);
    for (const it of m.iterations) expect(it.liveTensorBytes).toBeGreaterThan(m.baselineBytes);
    expect(peakTensorBytes(m)).toBeGreaterThanOrEqual(Math.max(...m.iterations.map((i) => i.liveTensorBytes)) - m.baselineBytes);
    expect(memoryGrowth(m)).toEqual([]);
  });
});
