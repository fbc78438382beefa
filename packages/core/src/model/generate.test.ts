import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';
import type { GptConfig } from './config.ts';
import { FIRST_STOP_CHUNK_STEPS, type GeneratedRow, Generator, type SamplingOptions } from './generate.ts';
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

// Reusing the KV cache across calls (cached-rows.ts) must not change a token or a log-prob: every
// call runs on two Generators of one model, one reusing the cache and one re-feeding every context
// from position 0, and their rows must be identical (bit for bit: the decode kernels compute each
// row independently of the batch and of what the other rows do). Prefill passes must not either:
// with them on, a third Generator feeds every context one position per step, and it must agree too.
describe('KV cache kept across calls', () => {
  const turnConfig: GptConfig = { vocabSize: 16, contextLength: 64, layers: 2, heads: 2, width: 32, head: 'lm' };
  const OBSERVATION = [13, 14, 15];

  async function pair({ prefill = true } = {}) {
    const gpu = await testGpu();
    const w = initParameters(parameterLayout(turnConfig), turnConfig.layers, 9).map((x) => x * 8);
    const model = Gpt.fromWeights(gpu, turnConfig, w, 'reuse');
    const reuse = new Generator(model, { prefill });
    const fresh = new Generator(model, { reuseKv: false, prefill });
    const stepwise = prefill ? new Generator(model, { reuseKv: false, prefill: false }) : undefined;
    /** Runs one call on each, checks they agree, and returns the rows and how many dispatches the pair's two took. */
    const call = async (contexts: number[][], budgets: number[], keys: (readonly [number, number])[], seed = 5) => {
      const options: SamplingOptions = { temperature: 1, topK: 0, seed, stream: 2, keys };
      const before = gpu.stats.dispatches;
      const a = await reuse.generate(contexts, budgets, options);
      const mid = gpu.stats.dispatches;
      const b = await fresh.generate(contexts, budgets, options);
      const after = gpu.stats.dispatches;
      expect(a).toEqual(b);
      if (stepwise) expect(a).toEqual(await stepwise.generate(contexts, budgets, options));
      return { rows: a, reuseDispatches: mid - before, freshDispatches: after - mid };
    };
    const dispose = () => {
      reuse.destroy();
      fresh.destroy();
      stepwise?.destroy();
      model.destroy();
    };
    return { call, reuse, dispose };
  }

  /** The next turn's context: this one, the first `keep` sampled tokens (the cut action), an observation. */
  const nextTurn = (ctx: number[], row: GeneratedRow, keep: number) => [...ctx, ...row.ids.slice(0, keep), ...OBSERVATION];

  it('multi-turn: each turn feeds only its new tokens and samples exactly what a full re-prefill samples', async () => {
    // One position per step, so that dispatches count the positions fed.
    const { call, dispose } = await pair({ prefill: false });
    try {
      let contexts = [
        [1, 2, 3, 4],
        [5, 6],
        [7, 8, 9, 10, 11, 12],
      ];
      const keys = contexts.map((_, i) => [i, 0] as const);
      const budget = 6;
      /** Per row, the length of the prefix the previous call fed: its context and the action kept from it. */
      let fedBefore = contexts.map(() => 0);
      for (let turn = 0; turn < 4; turn++) {
        const { rows, reuseDispatches, freshDispatches } = await call(contexts, [budget, budget, budget], keys);
        // A call takes as many steps (a fixed number of dispatches each) as its longest row has
        // positions to feed and sample: the whole context and budget when re-prefilling, at most
        // what follows the prefix fed before when reusing.
        const steps = Math.max(...contexts.map((c) => c.length + budget - 1));
        const perStep = freshDispatches / steps;
        expect(Number.isInteger(perStep)).toBe(true);
        expect(reuseDispatches).toBeLessThanOrEqual(perStep * Math.max(...contexts.map((c, b) => c.length + budget - 1 - fedBefore[b])));
        if (turn > 0) expect(reuseDispatches).toBeLessThan(freshDispatches);
        const keep = contexts.map((_, b) => 2 + ((turn + b) % 4));
        fedBefore = contexts.map((ctx, b) => ctx.length + keep[b]);
        contexts = contexts.map((ctx, b) => nextTurn(ctx, rows[b], keep[b]));
      }
    } finally {
      dispose();
    }
  });

  it('prefill passes feed a long context in a few passes, not a step per position, and sample what stepping samples', async () => {
    const gpu = await testGpu();
    const w = initParameters(parameterLayout(turnConfig), turnConfig.layers, 4).map((x) => x * 8);
    const model = Gpt.fromWeights(gpu, turnConfig, w, 'prefill');
    const passes = new Generator(model, { reuseKv: false });
    const stepwise = new Generator(model, { reuseKv: false, prefill: false });
    try {
      const contexts = [Array.from({ length: 40 }, (_, i) => 1 + (i % 15)), [3, 1, 4], Array.from({ length: 23 }, (_, i) => 15 - (i % 15))];
      const budgets = [3, 6, 1];
      const options: SamplingOptions = { temperature: 0.9, topK: 0, seed: 12, stream: 1, keys: contexts.map((_, i) => [i, 0] as const) };
      const before = gpu.stats.dispatches;
      const a = await passes.generate(contexts, budgets, options);
      const mid = gpu.stats.dispatches;
      const b = await stepwise.generate(contexts, budgets, options);
      expect(a).toEqual(b);
      // Stepping feeds the longest row's 39 context positions and 3 draws, 42 steps; passes feed 39
      // positions in 4 passes (32 + 4 + 2 + 1) and then take 6 steps (the longest budget).
      const stepDispatches = (gpu.stats.dispatches - mid) / 42;
      expect(Number.isInteger(stepDispatches)).toBe(true);
      expect(mid - before).toBeLessThanOrEqual(10 * stepDispatches);
    } finally {
      passes.destroy();
      stepwise.destroy();
      model.destroy();
    }
  });

  it('with stop ids a call ends once every row has drawn its own stop or used its budget, and draws what the full budget draws', async () => {
    const gpu = await testGpu();
    const w = initParameters(parameterLayout(turnConfig), turnConfig.layers, 6).map((x) => x * 8);
    const model = Gpt.fromWeights(gpu, turnConfig, w, 'stops');
    const generator = new Generator(model, { reuseKv: false });
    try {
      const contexts = [[1, 2, 3], [4, 5], [6, 7, 8, 9], [10]];
      const budgets = [56, 56, 56, 0];
      const base: SamplingOptions = { temperature: 1, topK: 0, seed: 3, stream: 0, keys: contexts.map((_, i) => [i, 0] as const) };
      const fullDispatches = gpu.stats.dispatches;
      const full = await generator.generate(contexts, budgets, base);
      const fullCost = gpu.stats.dispatches - fullDispatches;
      // Each row stops on the token its full-budget draw shows at index 2 or 5, so rows stop at different steps.
      const stops = full.map((row, b) => (budgets[b] > 0 ? [row.ids[b % 2 === 0 ? 2 : 5]] : []));
      const before = gpu.stats.dispatches;
      const early = await generator.generate(contexts, budgets, { ...base, stops });
      const dispatches = gpu.stats.dispatches - before;
      early.forEach((row, b) => {
        // The same draws as far as it went, and at least up to its first stop.
        expect(row.ids).toEqual(full[b].ids.slice(0, row.ids.length));
        expect(row.logprobs).toEqual(full[b].logprobs.slice(0, row.ids.length));
        if (budgets[b] > 0) expect(row.ids.length).toBeGreaterThan(full[b].ids.indexOf(stops[b][0]));
      });
      expect(early[3].ids).toEqual([]);
      // Every row's first stop is at index 5 or earlier: the call ends at its first look, after
      // FIRST_STOP_CHUNK_STEPS steps, a fraction of the 56 steps the full budget takes.
      expect(dispatches).toBeLessThan(fullCost / 3);
      expect(Math.max(...early.map((r) => r.ids.length))).toBe(FIRST_STOP_CHUNK_STEPS);
    } finally {
      generator.destroy();
      model.destroy();
    }
  });

  it('rows that join, leave and change places between calls of different sizes still sample as a re-prefill', async () => {
    const { call, dispose } = await pair();
    try {
      const prompts = [[1, 2], [3, 4, 5], [6], [7, 8, 9, 10], [11, 12, 1]];
      const contexts = new Map(prompts.map((p, i) => [i, p]));
      // Which rollouts share each call, in call order: sizes 3, 2, 4, 4 (permuted), 1.
      const schedule = [[0, 1, 2], [2, 0], [3, 0, 2, 4], [4, 2, 3, 0], [3]];
      for (const ids of schedule) {
        const { rows } = await call(
          ids.map((i) => contexts.get(i) as number[]),
          ids.map(() => 5),
          ids.map((i) => [i, 0] as const),
        );
        for (const [k, i] of ids.entries()) contexts.set(i, nextTurn(contexts.get(i) as number[], rows[k], 3));
      }
    } finally {
      dispose();
    }
  });

  it('keeps the decode states of the last four batch sizes, however many sizes it has seen, and reuse still holds', async () => {
    // Without prefill passes, whose buffers a state makes by the contexts' lengths, so that states of one size are alike.
    const { call, reuse, dispose } = await pair({ prefill: false });
    try {
      const gpu = reuse.gpu;
      /** The bytes one decode state of B rows holds: what a fresh Generator allocates for one call of B rows. */
      const stateBytes = async (B: number) => {
        const probe = new Generator(reuse.model, { reuseKv: false, prefill: false });
        const before = gpu.stats.liveTensorBytes;
        await probe.generate(
          Array.from({ length: B }, () => [1]),
          Array.from({ length: B }, () => 1),
          { temperature: 0, topK: 0, seed: 1, stream: 1 },
        );
        const bytes = gpu.stats.liveTensorBytes - before;
        probe.destroy();
        return bytes;
      };
      const start = gpu.stats.liveTensorBytes;
      const contexts = new Map([0, 1, 2, 3, 4, 5].map((i) => [i, [1 + i, 2]]));
      // Calls of 6, 5, 4, 3, 2, 1 rows: six sizes, each row carried on from the call before.
      for (let B = 6; B >= 1; B--) {
        const ids = [...contexts.keys()].slice(0, B);
        const { rows } = await call(
          ids.map((i) => contexts.get(i) as number[]),
          ids.map(() => 3),
          ids.map((i) => [i, 0] as const),
        );
        for (const [k, i] of ids.entries()) contexts.set(i, nextTurn(contexts.get(i) as number[], rows[k], 2));
      }
      const held = gpu.stats.liveTensorBytes - start;
      // What the states of sizes 4, 3, 2 and 1 hold, on each of the two Generators of the pair.
      const fourSizes = 2 * ((await stateBytes(4)) + (await stateBytes(3)) + (await stateBytes(2)) + (await stateBytes(1)));
      expect(held).toBe(fourSizes);
    } finally {
      dispose();
    }
  });

  it('a context that does not extend what was fed (an edited prefix, a new segment) is fed again from position 0', async () => {
    const { call, dispose } = await pair();
    try {
      const keys = [
        [0, 0],
        [1, 0],
      ] as const;
      const { rows } = await call(
        [
          [1, 2, 3, 4, 5],
          [6, 7, 8],
        ],
        [4, 4],
        [...keys],
      );
      const next = [nextTurn([1, 2, 3, 4, 5], rows[0], 2), nextTurn([6, 7, 8], rows[1], 2)];
      // Row 0's first token edited: nothing of its cache may be used; row 1 reuses its own.
      const edited = [[9, ...next[0].slice(1)], next[1]];
      const first = await call(edited, [4, 4], [...keys]);
      expect(first.reuseDispatches).toBe(first.freshDispatches);
      // The same contexts under a new segment of each rollout: no reuse either.
      const next2 = edited.map((ctx, b) => nextTurn(ctx, first.rows[b], 1));
      const second = await call(
        next2,
        [4, 4],
        [
          [0, 1],
          [1, 1],
        ],
      );
      expect(second.reuseDispatches).toBe(second.freshDispatches);
    } finally {
      dispose();
    }
  });
});
