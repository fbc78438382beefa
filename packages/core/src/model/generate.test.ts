import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';
import type { GptConfig } from './config.ts';
import { Generator } from './generate.ts';
import { Gpt } from './gpt.ts';
import { initParameters } from './init.ts';
import { parameterLayout } from './parameters.ts';
import { referenceForward } from './reference/gpt.ts';

const config: GptConfig = { vocabSize: 11, contextLength: 12, layers: 2, heads: 2, width: 8, head: 'lm' };

function randomWeights(seed: number): Float32Array {
  const w = initParameters(parameterLayout(config), config.layers, seed);
  // Larger weights than GPT-2's init so the next-token distribution is far from uniform.
  for (let i = 0; i < w.length; i++) w[i] *= 12;
  return w;
}

/** log softmax(z/τ)[token] of the last position of `ids`, by the float64 reference model. */
function referenceNext(weights: Float32Array, ids: number[], temperature: number): { argmax: number; logp: (token: number) => number } {
  const { logits } = referenceForward(config, Float64Array.from(weights), Int32Array.from(ids), 1, ids.length);
  const V = config.vocabSize;
  const z = Array.from(logits!.subarray((ids.length - 1) * V, ids.length * V), (x) => x / (temperature || 1));
  const max = Math.max(...z);
  const lse = max + Math.log(z.reduce((s, x) => s + Math.exp(x - max), 0));
  return { argmax: z.indexOf(max), logp: (token) => z[token] - lse };
}

describe('KV-cache generation on the GPU', () => {
  const contexts = [[1, 2, 3], [4], [5, 6, 7, 8, 9], [2, 2]];
  const budgets = [4, 6, 3, 0];

  it('greedy decoding follows the float64 reference model token by token, for ragged prompts', async () => {
    const gpu = await testGpu();
    const weights = randomWeights(1);
    const generator = new Generator(Gpt.fromWeights(gpu, config, weights, 'gen'));
    const rows = await generator.generate(contexts, budgets, { temperature: 0, topK: 0, seed: 1, stream: 0 });
    rows.forEach((row, b) => {
      expect(row.ids.length).toBe(budgets[b]);
      const ids = [...contexts[b]];
      for (const token of row.ids) {
        expect(token, `row ${b} after ${ids.join(',')}`).toBe(referenceNext(weights, ids, 0).argmax);
        ids.push(token);
      }
    });
  });

  it('sampled tokens carry the log-probs of softmax(logits/τ); the same seed replays them', async () => {
    const gpu = await testGpu();
    const weights = randomWeights(2);
    const generator = new Generator(Gpt.fromWeights(gpu, config, weights, 'gen'));
    const options = { temperature: 0.8, topK: 0, seed: 77, stream: 3 };
    const rows = await generator.generate(contexts, budgets, options);
    rows.forEach((row, b) => {
      const ids = [...contexts[b]];
      row.ids.forEach((token, i) => {
        expect(row.logprobs[i]).toBeCloseTo(referenceNext(weights, ids, options.temperature).logp(token), 4);
        ids.push(token);
      });
    });
    const again = await generator.generate(contexts, budgets, options);
    expect(again).toEqual(rows);
    const other = await generator.generate(contexts, budgets, { ...options, seed: 78 });
    expect(other.map((r) => r.ids)).not.toEqual(rows.map((r) => r.ids));
  });

  it('refuses contexts that do not fit and token ids outside the vocabulary', async () => {
    const gpu = await testGpu();
    const generator = new Generator(Gpt.fromWeights(gpu, config, randomWeights(3), 'gen'));
    const opts = { temperature: 1, topK: 0, seed: 1, stream: 0 };
    await expect(generator.generate([[1, 2, 3]], [10], opts)).rejects.toThrow(/exceeds the context length 12/);
    await expect(generator.generate([[1, 11]], [1], opts)).rejects.toThrow(/token 11, outside \[0, 11\)/);
    await expect(generator.generate([[]], [1], opts)).rejects.toThrow(/empty/);
  });
});
