// Buffers per batch shape are released once a shape falls out of use (util/shape-cache.ts), as the
// trainer does after every iteration: the runtime's live-tensor count comes back to what the shapes
// still in use hold. On the test GPU.

import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';
import { Gpt } from '../model/gpt.ts';
import { Scorer } from './scoring.ts';

describe('sweeping idle batch shapes', () => {
  it('the scorer keeps the shapes used since the last sweep and releases the rest', async () => {
    const gpu = await testGpu();
    const scorer = new Scorer(gpu);
    const start = gpu.stats.liveTensorBytes;
    scorer.batch(4, 8);
    const oneShape = gpu.stats.liveTensorBytes - start;
    expect(oneShape).toBeGreaterThan(0);
    scorer.sweep();
    expect(gpu.stats.liveTensorBytes - start).toBe(oneShape);
    scorer.batch(8, 8);
    const twoShapes = gpu.stats.liveTensorBytes - start;
    scorer.sweep();
    expect(gpu.stats.liveTensorBytes - start).toBe(twoShapes - oneShape);
    scorer.sweep();
    expect(gpu.stats.liveTensorBytes).toBe(start);
    scorer.destroy();
  });

  it('a model keeps the activation sets of shapes in use and releases the rest', async () => {
    const gpu = await testGpu();
    const model = Gpt.init(gpu, { vocabSize: 12, contextLength: 16, layers: 1, heads: 2, width: 8, head: 'lm' }, 1, 'sweep');
    const start = gpu.stats.liveTensorBytes;
    const a = model.activations(2, 8);
    expect(model.activations(2, 8)).toBe(a);
    model.activations(3, 8);
    model.sweepActivations();
    const both = gpu.stats.liveTensorBytes;
    model.activations(3, 8);
    model.sweepActivations();
    expect(gpu.stats.liveTensorBytes).toBeLessThan(both);
    expect(model.activations(3, 8)).not.toBe(a);
    model.sweepActivations();
    model.sweepActivations();
    expect(gpu.stats.liveTensorBytes).toBe(start);
    model.destroy();
  });
});
