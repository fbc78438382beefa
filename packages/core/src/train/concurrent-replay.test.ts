// Rollouts replay bit for bit from the seed however concurrent episodes fall into sampler calls.
// Episodes whose tools return at different times are sampled in different calls and rows from one
// run to the next; the GPU sampler keys each draw by (rollout id, segment, position) instead of
// (call, row), so every rollout's tokens and log-probs are the same. A control without the keys
// shows that the batching really differed and that it would change the tokens.

import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';
import { type BatchSampler, collectRollouts, type EpisodeRequest } from '../envs/episode.ts';
import type { Sample } from '../envs/sample.ts';
import { DelayedTurnsEnv } from '../envs/testing/delayed-turns-env.ts';
import type { GptConfig } from '../model/config.ts';
import { Generator } from '../model/generate.ts';
import { Gpt } from '../model/gpt.ts';
import { initParameters } from '../model/init.ts';
import { parameterLayout } from '../model/parameters.ts';
import { CharTokenizer } from '../tokenizer/char-tokenizer.ts';
import { GpuSampler } from './gpu-sampler.ts';

const tokenizer = new CharTokenizer({ characters: 'abcdefgh0123 ', specialTokens: ['<eos>'] });
const config: GptConfig = { vocabSize: tokenizer.vocabSize, contextLength: 40, layers: 1, heads: 2, width: 16, head: 'lm' };
const TURNS = 3;

/** Counts sampler calls and, unless `keyed`, drops the row keys (the sampler's per-call noise). */
function counting(inner: BatchSampler, keyed: boolean): BatchSampler & { calls: number } {
  const wrapper = {
    calls: 0,
    generate: (...args: Parameters<BatchSampler['generate']>) => {
      wrapper.calls++;
      return inner.generate(args[0], args[1], args[2], keyed ? args[3] : undefined);
    },
  };
  return wrapper;
}

async function rollouts(keyed: boolean, delay: (seed: number, turn: number) => number, maxConcurrentEpisodes?: number) {
  const gpu = await testGpu();
  const weights = initParameters(parameterLayout(config), config.layers, 5).map((w) => w * 8);
  const policy = Gpt.fromWeights(gpu, config, weights, 'replay');
  const generator = new Generator(policy);
  try {
    const gpuSampler = new GpuSampler(generator, tokenizer, { temperature: 1, topK: 0 }, 1);
    gpuSampler.reseed(2026, 7);
    const sampler = counting(gpuSampler, keyed);
    const requests: EpisodeRequest[] = Array.from({ length: 8 }, (_, i) => ({
      env: new DelayedTurnsEnv(TURNS, delay),
      seed: 100 + i,
      rolloutId: i,
      groupId: i,
    }));
    const limits = { contextLength: config.contextLength, maxNewTokens: 4, maxTurns: TURNS, ...(maxConcurrentEpisodes ? { maxConcurrentEpisodes } : {}) };
    const samples = await collectRollouts(requests, tokenizer, sampler, limits);
    return { samples, calls: sampler.calls };
  } finally {
    generator.destroy();
    policy.destroy();
  }
}

const tokensOf = (samples: readonly Sample[]) => samples.map((s) => ({ rollout: s.rolloutId, tokens: s.tokens, logprobs: Array.from(s.rolloutLogprobs) }));

describe('replay under concurrency', () => {
  const lockStep = () => 0;
  // Episodes wait 0–12 ms, differently at each turn, so calls hold different rows from run to run.
  const staggered = (seed: number, turn: number) => ((seed * 7 + turn * 5) % 4) * 4;

  it('every rollout samples the same tokens and log-probs whether its episodes run in lock-step or staggered', async () => {
    const a = await rollouts(true, lockStep);
    const b = await rollouts(true, staggered, 3);
    // The batching really differed: lock-step is one call per turn; staggered, at most 3 open, more.
    expect(a.calls).toBe(TURNS);
    expect(b.calls).toBeGreaterThan(a.calls);
    expect(tokensOf(b.samples)).toEqual(tokensOf(a.samples));
    expect(a.samples.every((s) => s.turns.length === TURNS)).toBe(true);
  });

  it('without the row keys the same two schedules sample different tokens (the control)', async () => {
    const a = await rollouts(false, lockStep);
    const b = await rollouts(false, staggered, 3);
    expect(tokensOf(b.samples)).not.toEqual(tokensOf(a.samples));
  });
});
