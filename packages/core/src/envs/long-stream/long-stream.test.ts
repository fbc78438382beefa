// LongStream: its streams, the `next` tool and the verifier, the held-out and OOD sets, how many
// windows its episodes take at the task's compaction settings, and the SFT demonstrations replayed
// through the real environment and episode runner (the honest scripted policy), id for id.

import { describe, expect, it } from 'vitest';
import { recipeChecks } from '../../recipe/checks.ts';
import { compactionOf } from '../../recipe/compaction.ts';
import { resolveRecipe } from '../../recipe/resolve.ts';
import { CharTokenizer } from '../../tokenizer/char-tokenizer.ts';
import { sftBatch } from '../../train/sft.ts';
import { compactionThreshold } from '../compaction.ts';
import { collectRollouts } from '../episode.ts';
import { KIND_CODE } from '../sample.ts';
import { episodeSeed } from '../seeds.ts';
import { createTask } from '../tasks.ts';
import { longStreamPolicy } from '../testing/long-stream-policy.ts';
import { scriptedSampler } from '../testing/scripted-sampler.ts';
import { honestSegments, LONG_STREAM_COMPACTION, LONG_STREAM_CONTEXT, LONG_STREAM_MAX_NEW_TOKENS, segmentTokens } from './demo.ts';
import { LONG_STREAM_PROMPT, LongStreamEnv } from './env.ts';
import { longStream, runningSum, streamKey } from './stream.ts';
import { LONG_STREAM_VOCABULARY } from './task.ts';

const tokenizer = new CharTokenizer(LONG_STREAM_VOCABULARY);
const config = { minChunks: 7, maxChunks: 12, oodMinChunks: 16, oodMaxChunks: 24 };
const sizes = { heldOutSize: 32, oodSize: 16 };
const limits = { contextLength: LONG_STREAM_CONTEXT, maxNewTokens: LONG_STREAM_MAX_NEW_TOKENS, maxTurns: 32, compaction: LONG_STREAM_COMPACTION };

describe('long-stream', () => {
  it('a stream is its seed’s, within the range, and its answer is the digit sum mod 10', () => {
    const range = { minChunks: 7, maxChunks: 12 };
    for (let seed = 0; seed < 50; seed++) {
      const s = longStream(seed, range);
      expect(longStream(seed, range)).toEqual(s);
      expect(s.digits.length).toBeGreaterThanOrEqual(7);
      expect(s.digits.length).toBeLessThanOrEqual(12);
      expect(s.answer).toBe(String(s.digits.reduce((a, d) => a + d, 0) % 10));
    }
    expect(runningSum([9, 9, 3])).toBe('1');
  });

  it('next gives the digits then "end"; the exact sum with <eos> scores 1, anything else 0', async () => {
    const stream = { digits: [4, 7], answer: '1' };
    const env = new LongStreamEnv(() => stream);
    const start = await env.reset(5);
    expect(start.prompt).toBe(LONG_STREAM_PROMPT);
    const results: string[] = [];
    for (let k = 0; k < 4; k++) {
      const out = await env.step('<tool_call>next</tool_call>', 'stop');
      if (out.done) throw new Error('next must not end the episode');
      results.push(typeof out.observation === 'string' ? out.observation : out.observation.map((p) => (typeof p === 'string' ? p : '|')).join(''));
    }
    expect(results).toEqual(['|4|', '|7|', '|end|', '|end|']);
    expect(env.summarize()).toBe('1');
    expect((await env.step('1', 'eos')).done).toBe(true);
    const trajectory = (action: string) => ({
      seed: 5,
      prompt: LONG_STREAM_PROMPT,
      turns: [{ action, ending: 'eos' as const }],
      status: 'completed' as const,
      info: { expected: '1' },
    });
    expect((await env.verifier.score(trajectory('1'))).reward).toBe(1);
    expect((await env.verifier.score(trajectory('2'))).reward).toBe(0);
    await env.close();
  });

  it('held-out streams never train, OOD streams are longer, and the sets are the same in every run', () => {
    const task = createTask({ env: 'long-stream', addition: { minDigits: 1, maxDigits: 2, oodMinDigits: 3, oodMaxDigits: 3 }, longStream: config }, sizes);
    const again = createTask({ env: 'long-stream', addition: { minDigits: 1, maxDigits: 2, oodMinDigits: 3, oodMaxDigits: 3 }, longStream: config }, sizes);
    expect(task.evalSeeds('heldOut')).toEqual(again.evalSeeds('heldOut'));
    expect(task.evalSeeds('heldOut')).toHaveLength(32);
    const heldOut = new Set(task.evalSeeds('heldOut').map((seed) => streamKey(longStream(seed, { minChunks: 7, maxChunks: 12 }))));
    for (const seed of task.evalSeeds('ood')) expect(longStream(seed, { minChunks: 16, maxChunks: 24 }).digits.length).toBeGreaterThanOrEqual(16);
    // A held-out stream's seed, given to the training environment, is redrawn.
    const [first] = task.evalSeeds('heldOut');
    expect(heldOut.has(streamKey(longStream(first, { minChunks: 7, maxChunks: 12 }, heldOut)))).toBe(false);
    expect(task.vocabulary).toBe(LONG_STREAM_VOCABULARY);
    expect(task.trainSeed(1, 0)).not.toBe(episodeSeed(1, 'train', 0));
  });

  it('episodes take 3–6 windows at every threshold for training streams, more for OOD (the numbers of demo.ts)', () => {
    const windows = (chunks: number, threshold: number) => honestSegments({ digits: new Array(chunks).fill(3), answer: '' }, threshold).length;
    for (let threshold = LONG_STREAM_COMPACTION.minThreshold; threshold <= LONG_STREAM_COMPACTION.maxThreshold; threshold++) {
      for (let n = config.minChunks; n <= config.maxChunks; n++) {
        expect(windows(n, threshold)).toBeGreaterThanOrEqual(3);
        expect(windows(n, threshold)).toBeLessThanOrEqual(6);
      }
      expect(windows(config.oodMaxChunks, threshold)).toBeGreaterThan(6);
      for (let n = 1; n <= config.oodMaxChunks; n++)
        for (const segment of honestSegments({ digits: new Array(n).fill(9), answer: '' }, threshold))
          expect(segmentTokens(segment)).toBeLessThanOrEqual(LONG_STREAM_CONTEXT);
    }
    // Uncut, the longest training stream needs 12 + 9·12 + 13 = 133 tokens: two contexts of 64 are not enough.
    expect(segmentTokens(honestSegments({ digits: new Array(12).fill(1), answer: '' }, 1000)[0])).toBe(133);
  });

  it('the demonstrations are what the runner records for the honest policy, segment for segment and id for id', async () => {
    for (const seed of [11, 12, 13, 14]) {
      const stream = longStream(seed, { minChunks: 7, maxChunks: 12 });
      const env = new LongStreamEnv(() => stream);
      const sampler = scriptedSampler(tokenizer, (ctx) => longStreamPolicy(ctx, LONG_STREAM_COMPACTION.keepSteps));
      const samples = await collectRollouts([{ env, seed, rolloutId: 0, groupId: 0 }], tokenizer, sampler, limits);
      const demos = honestSegments(stream, compactionThreshold(seed, LONG_STREAM_COMPACTION));
      expect(samples).toHaveLength(demos.length);
      for (const [k, sample] of samples.entries()) {
        expect(sample.reward).toBe(1);
        const batch = sftBatch([{ prompt: '', completion: '', turns: demos[k] }], tokenizer, tokenizer.eosId, tokenizer.padId, LONG_STREAM_CONTEXT);
        const L = sample.tokens.length;
        const demoTokens = [batch.inputs[0], ...Array.from(batch.targets.subarray(0, L - 1))];
        expect(demoTokens).toEqual(sample.tokens);
        // SFT trains exactly the tokens RL trains: actions and summaries, never the carried context.
        expect(Array.from(batch.mask.subarray(0, L - 1))).toEqual(Array.from(sample.actionMask.subarray(1)));
        if (k < samples.length - 1) expect(sample.tokenKinds.at(-1)).toBe(KIND_CODE.summary);
      }
    }
  });

  it('SFT examples come from training streams and fit the context; the presets resolve and pass the checks', () => {
    const task = createTask({ env: 'long-stream', addition: { minDigits: 1, maxDigits: 2, oodMinDigits: 3, oodMaxDigits: 3 }, longStream: config }, sizes);
    const examples = Array.from({ length: 40 }, (_, i) => task.sftExample(3, i));
    const batch = sftBatch(examples, tokenizer, tokenizer.eosId, tokenizer.padId, LONG_STREAM_CONTEXT);
    expect(batch.B).toBe(40);
    // Some demonstrate a summary, some the final answer.
    expect(examples.some((e) => e.completion.endsWith('</summary>'))).toBe(true);
    expect(examples.some((e) => e.completion.endsWith('<eos>'))).toBe(true);
    for (const name of ['stream-ppo', 'stream-grpo']) {
      const { recipe } = resolveRecipe({ preset: name });
      expect(recipeChecks(recipe)).toEqual([]);
      // The demonstrations assume the task's compaction settings; the presets use them.
      expect(compactionOf(recipe)).toEqual(LONG_STREAM_COMPACTION);
      expect(recipe.model.contextLength).toBe(LONG_STREAM_CONTEXT);
      expect(recipe.rl.maxNewTokens).toBe(LONG_STREAM_MAX_NEW_TOKENS);
    }
  });
});
