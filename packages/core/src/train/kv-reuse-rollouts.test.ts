// Keeping the KV cache across turns changes no rollout: multi-turn episodes (with compaction, so
// some rollouts start new segments) run through collectRollouts and the real GpuSampler on a tiny
// random model, once with the Generator reusing each row's cache between calls and once re-feeding
// every context from position 0 one position per step, and every segment's tokens and log-probs must
// be identical — also with contexts fed in prefill passes, and when staggered observations put the
// rows in different calls, orders and batch sizes.

import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';
import { type BatchSampler, collectRollouts, type EpisodeRequest, type RolloutLimits } from '../envs/episode.ts';
import type { Sample } from '../envs/sample.ts';
import { DelayedTurnsEnv } from '../envs/testing/delayed-turns-env.ts';
import type { GptConfig } from '../model/config.ts';
import { Generator } from '../model/generate.ts';
import { Gpt } from '../model/gpt.ts';
import { initParameters } from '../model/init.ts';
import { parameterLayout } from '../model/parameters.ts';
import { CharTokenizer } from '../tokenizer/char-tokenizer.ts';
import { GpuSampler } from './gpu-sampler.ts';

const tokenizer = new CharTokenizer({ characters: 'abcdefgh0123 ', specialTokens: ['<eos>', '<summary>', '</summary>'] });
const config: GptConfig = { vocabSize: tokenizer.vocabSize, contextLength: 64, layers: 2, heads: 2, width: 32, head: 'lm' };
const TURNS = 6;

const limits = (maxConcurrentEpisodes?: number): RolloutLimits => ({
  contextLength: config.contextLength,
  maxNewTokens: 6,
  maxTurns: TURNS,
  compaction: { minThreshold: 30, maxThreshold: 40, keepSteps: 1, summaryTokens: 6, summariser: 'policy', trainSummaries: true },
  ...(maxConcurrentEpisodes ? { maxConcurrentEpisodes } : {}),
});

async function rollouts(feeding: { reuseKv: boolean; prefill: boolean }, delay: (seed: number, turn: number) => number, maxConcurrentEpisodes?: number) {
  const gpu = await testGpu();
  const weights = initParameters(parameterLayout(config), config.layers, 11).map((w) => w * 8);
  const policy = Gpt.fromWeights(gpu, config, weights, 'kv-reuse');
  const generator = new Generator(policy, feeding);
  try {
    const sampler: BatchSampler & { reseed(...w: number[]): void } = new GpuSampler(generator, tokenizer, { temperature: 1, topK: 0 }, 1);
    sampler.reseed(2026, 3);
    const requests: EpisodeRequest[] = Array.from({ length: 8 }, (_, i) => ({
      env: new DelayedTurnsEnv(TURNS, delay, ['3']),
      seed: 100 + i,
      rolloutId: i,
      groupId: i,
    }));
    const before = gpu.stats.dispatches;
    const samples = await collectRollouts(requests, tokenizer, sampler, limits(maxConcurrentEpisodes));
    return { samples, dispatches: gpu.stats.dispatches - before };
  } finally {
    generator.destroy();
    policy.destroy();
  }
}

const segmentsOf = (samples: readonly Sample[]) =>
  samples.map((s) => ({ rollout: s.rolloutId, segment: s.segmentIndex, tokens: s.tokens, logprobs: Array.from(s.rolloutLogprobs) }));

describe('KV cache kept across turns, end to end', () => {
  it('multi-turn rollouts with compaction sample the same tokens and log-probs with and without reuse, lock-step or staggered', async () => {
    const lockStep = () => 0;
    const staggered = (seed: number, turn: number) => ((seed * 7 + turn * 5) % 4) * 4;
    const off = await rollouts({ reuseKv: false, prefill: false }, lockStep);
    const onStepwise = await rollouts({ reuseKv: true, prefill: false }, lockStep);
    const on = await rollouts({ reuseKv: true, prefill: true }, lockStep);
    const onStaggered = await rollouts({ reuseKv: true, prefill: true }, staggered, 3);
    expect(segmentsOf(onStepwise.samples)).toEqual(segmentsOf(off.samples));
    expect(segmentsOf(on.samples)).toEqual(segmentsOf(off.samples));
    expect(segmentsOf(onStaggered.samples)).toEqual(segmentsOf(off.samples));
    // The episodes really were multi-turn and some compacted into a second segment.
    expect(off.samples.some((s) => (s.segmentIndex ?? 0) > 0)).toBe(true);
    expect(off.samples.some((s) => s.turns.length >= 3)).toBe(true);
    // And reuse really skipped work (fed one position per step, dispatches count the positions fed),
    // and prefill passes skipped more.
    expect(onStepwise.dispatches).toBeLessThan(off.dispatches * 0.75);
    expect(on.dispatches).toBeLessThan(onStepwise.dispatches);
  });
});
