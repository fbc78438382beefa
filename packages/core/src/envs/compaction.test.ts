// Compaction in the episode runner, host-side with a scripted sampler (LongStream's honest policy):
// segments and their kinds, keys, rewards and tokensAfter; compacted segments neither done nor
// bootstrapped; untrained and deterministic summaries; and, with V = 0, a compacted trajectory's
// GAE advantages (float64 reference) equal to the uncut trajectory's (docs/algorithms/ppo-gae.md §2.5).

import { gaeRef } from '@horizon/kernels';
import { describe, expect, it } from 'vitest';
import { checkOneLambdaPerRollout, criticGaeRowParams } from '../algorithms/critic-gae.ts';
import { CharTokenizer } from '../tokenizer/char-tokenizer.ts';
import { toTrainingRows } from '../train/rows.ts';
import { type CompactionOptions, compactionThreshold } from './compaction.ts';
import type { Environment } from './environment.ts';
import { type BatchSampler, collectRollouts, type RowKey } from './episode.ts';
import { LONG_STREAM_COMPACTION, LONG_STREAM_CONTEXT, LONG_STREAM_MAX_NEW_TOKENS } from './long-stream/demo.ts';
import { LongStreamEnv } from './long-stream/env.ts';
import { type LongStream, longStream } from './long-stream/stream.ts';
import { LONG_STREAM_VOCABULARY } from './long-stream/task.ts';
import { actionTokenCount, checkSampleMasks, KIND_CODE, packSamples, type Sample } from './sample.ts';
import { longStreamPolicy } from './testing/long-stream-policy.ts';
import { scriptedSampler } from './testing/scripted-sampler.ts';

const tokenizer = new CharTokenizer(LONG_STREAM_VOCABULARY);
const RANGE = { minChunks: 7, maxChunks: 12 };

/** The honest policy, recording each call's row keys. */
function honest(keepSteps = 1): BatchSampler & { keys: RowKey[][]; calls: ReturnType<typeof scriptedSampler>['calls'] } {
  const inner = scriptedSampler(tokenizer, (ctx) => longStreamPolicy(ctx, keepSteps));
  const keys: RowKey[][] = [];
  return {
    keys,
    calls: inner.calls,
    generate(contexts, budgets, stops, rowKeys) {
      keys.push([...(rowKeys ?? [])]);
      return inner.generate(contexts, budgets, stops, rowKeys);
    },
  };
}

function run(
  streams: LongStream[],
  compaction: Partial<CompactionOptions> | undefined,
  extra: { maxTurns?: number; seeds?: number[]; sampler?: BatchSampler } = {},
) {
  const requests = streams.map((s, i) => ({ env: new LongStreamEnv(() => s), seed: extra.seeds?.[i] ?? 100 + i, rolloutId: i, groupId: 0 }));
  return collectRollouts(requests, tokenizer, extra.sampler ?? honest(compaction?.keepSteps ?? 1), {
    contextLength: LONG_STREAM_CONTEXT,
    maxNewTokens: LONG_STREAM_MAX_NEW_TOKENS,
    maxTurns: extra.maxTurns ?? 32,
    ...(compaction ? { compaction: { ...LONG_STREAM_COMPACTION, ...compaction } } : {}),
  });
}

const ofRollout = (samples: Sample[], id: number) => samples.filter((s) => s.rolloutId === id);

describe('compaction in the episode runner', () => {
  it('off: one sample per episode, cut at the context as before', async () => {
    const samples = await run([longStream(1, RANGE)], undefined);
    expect(samples).toHaveLength(1);
    expect(samples[0].status).toBe('truncated');
    expect(samples[0].segmentIndex).toBe(0);
    expect(samples[0].compacted).toBeUndefined();
  });

  it('segments: summaries trained, carried ids as context, keys by segment, the reward on every segment, tokensAfter', async () => {
    const streams = [longStream(1, RANGE), longStream(2, RANGE)];
    const sampler = honest();
    const samples = await run(streams, {}, { sampler });
    for (const id of [0, 1]) {
      const segs = ofRollout(samples, id);
      expect(segs.length).toBeGreaterThanOrEqual(3);
      expect(segs.map((s) => s.segmentIndex)).toEqual(segs.map((_, k) => k));
      for (const [k, s] of segs.entries()) {
        checkSampleMasks(s);
        const final = k === segs.length - 1;
        expect(s.status).toBe('completed');
        expect(s.done).toBe(final);
        expect(s.truncated).toBe(false);
        expect(s.compacted).toBe(final ? undefined : true);
        // The verifier's reward (the honest answer is right) on the segment's last trainable token.
        expect(s.reward).toBe(1);
        const lastTrainable = s.actionMask.lastIndexOf(1);
        expect(s.stepRewards).toEqual([{ position: lastTrainable, value: 1 }]);
        expect(s.tokensAfter).toBe(segs.slice(k + 1).reduce((n, later) => n + actionTokenCount(later), 0));
        if (!final) {
          // `<summary>` written by the runner, then the summary the policy sampled: a digit and `</summary>`.
          expect(Array.from(s.tokenKinds.slice(-3))).toEqual([KIND_CODE.user, KIND_CODE.summary, KIND_CODE.summary]);
          expect(s.tokens.at(-1)).toBe(tokenizer.id('</summary>'));
        }
        if (k > 0) {
          // After the 12-token prompt: the carried summary (3 ids) and the previous segment's last step, all context, none trained.
          const carried = s.tokenKinds.slice(12, s.responseStart);
          expect(carried.every((c) => c === KIND_CODE.context)).toBe(true);
          expect(s.tokens[12]).toBe(tokenizer.id('<summary>'));
          expect(s.tokens.slice(13, 15)).toEqual(segs[k - 1].tokens.slice(-2));
          const step = s.responseStart - 15;
          expect([9, 11]).toContain(step);
          expect(s.tokens.slice(15, s.responseStart)).toEqual(segs[k - 1].tokens.slice(-3 - step, -3));
        }
        expect(s.tokens.length).toBeLessThanOrEqual(LONG_STREAM_CONTEXT);
      }
      // The segment's summary is the running sum of every chunk seen before its cut.
      expect(segs.at(-1)?.turns.at(-1)?.action).toBe(streams[id].answer);
    }
    // Every row is keyed by its rollout and its current segment.
    for (const call of sampler.keys) for (const key of call) expect(key.segment).toBeGreaterThanOrEqual(0);
    const segmentsSeen = new Set(sampler.keys.flat().map((k) => `${k.rolloutId}:${k.segment}`));
    expect(segmentsSeen).toEqual(new Set(samples.map((s) => `${s.rolloutId}:${s.segmentIndex}`)));
    // A compacted segment has no bootstrap: terminal in the batch although it is not done.
    const packed = packSamples(samples, LONG_STREAM_CONTEXT, tokenizer.padId);
    expect(Array.from(packed.terminal)).toEqual(samples.map(() => 1));
    expect(Array.from(packed.tokensAfter)).toEqual(samples.map((s) => s.tokensAfter));
  });

  it('a group shares its threshold: one seed, the same cuts', async () => {
    const stream = longStream(3, RANGE);
    const samples = await run([stream, stream], {}, { seeds: [77, 77] });
    expect(ofRollout(samples, 0).map((s) => s.tokens)).toEqual(ofRollout(samples, 1).map((s) => s.tokens));
    const t = compactionThreshold(77, LONG_STREAM_COMPACTION);
    expect(t).toBeGreaterThanOrEqual(48);
    expect(t).toBeLessThanOrEqual(56);
    const thresholds = new Set(Array.from({ length: 200 }, (_, s) => compactionThreshold(s, LONG_STREAM_COMPACTION)));
    expect(thresholds).toEqual(new Set([48, 49, 50, 51, 52, 53, 54, 55, 56]));
  });

  it('a rollout cut at the turn limit: earlier segments compacted (bootstrap 0), the last truncated (bootstrap from V)', async () => {
    const samples = await run([longStream(4, { minChunks: 12, maxChunks: 12 })], {}, { maxTurns: 10 });
    expect(samples.length).toBeGreaterThanOrEqual(2);
    const last = samples.length - 1;
    for (const [k, s] of samples.entries()) {
      expect(s.status).toBe('truncated');
      expect(s.done).toBe(false);
      expect(s.truncated).toBe(k === last);
      expect(s.compacted).toBe(k === last ? undefined : true);
    }
    const packed = packSamples(samples, LONG_STREAM_CONTEXT, tokenizer.padId);
    expect(Array.from(packed.terminal)).toEqual(samples.map((_, k) => (k === last ? 0 : 1)));
    const rows = toTrainingRows(packed, LONG_STREAM_CONTEXT, tokenizer.padId);
    const values = Float32Array.from({ length: rows.B * rows.T }, (_, i) => (i % 7) / 10);
    const { bootstrap } = criticGaeRowParams(rows, values, { lambda: 0.95, lambdaAlpha: 0 });
    const lastAction = rows.actionMask.subarray(last * rows.T, (last + 1) * rows.T).lastIndexOf(1);
    // The truncated row bootstraps from V at its last action position, which the value loss trains.
    expect(Array.from(bootstrap)).toEqual(samples.map((_, k) => (k === last ? values[last * rows.T + lastAction] : 0)));
  });

  it('maxSegments: a rollout that would compact past its last segment ends truncated there, and is scored', async () => {
    const stream = longStream(4, { minChunks: 12, maxChunks: 12 });
    const whole = await run([stream], { maxSegments: undefined });
    expect(whole.length).toBeGreaterThan(2);
    const capped = await run([stream], { maxSegments: 2 });
    expect(capped).toHaveLength(2);
    expect(capped[0].compacted).toBe(true);
    expect(capped[1].truncated).toBe(true);
    expect(capped[1].status).toBe('truncated');
    // The cut comes where the uncapped rollout wrote its second summary: the same tokens up to there.
    expect(capped[1].tokens).toEqual(whole[1].tokens.slice(0, capped[1].tokens.length));
    expect(capped.every((s) => s.stepRewards.length === 1)).toBe(true);
  });

  it('untrained summaries: sampled but kind context, out of the loss; the reward stays on the last action token', async () => {
    const samples = await run([longStream(5, RANGE)], { trainSummaries: false });
    const [first] = samples;
    expect(samples.length).toBeGreaterThanOrEqual(3);
    expect(Array.from(first.tokenKinds.slice(-3))).toEqual([KIND_CODE.user, KIND_CODE.context, KIND_CODE.context]);
    expect(first.actionMask.at(-1)).toBe(0);
    expect(first.rolloutLogprobs.at(-1)).toBe(0);
    expect(first.stepRewards[0].position).toBe(first.actionMask.lastIndexOf(1));
    expect(first.tokenKinds[first.actionMask.lastIndexOf(1)]).toBe(KIND_CODE.action);
    // The next context still carries what the policy wrote.
    expect(samples[1].tokens.slice(12, 15)).toEqual(first.tokens.slice(-3));
  });

  it('deterministic summariser: nothing sampled at the cut, the environment’s running sum carried', async () => {
    const stream = longStream(6, RANGE);
    const sampler = honest();
    const samples = await run([stream], { summariser: 'deterministic' }, { sampler });
    expect(samples.length).toBeGreaterThanOrEqual(3);
    for (const s of samples) expect(s.tokenKinds.includes(KIND_CODE.summary)).toBe(false);
    expect(sampler.calls.every((c) => c.stopStrings.every((stops) => !stops.includes('</summary>')))).toBe(true);
    const second = samples[1];
    const summary = tokenizer.decode(second.tokens.slice(12, 15));
    const seen = samples[0].turns.filter((t) => t.observation?.match(/^<tool_result>\d</)).length;
    expect(summary).toBe(`<summary>${stream.digits.slice(0, seen).reduce((a, d) => a + d, 0) % 10}</summary>`);
    expect(samples.at(-1)?.reward).toBe(1);
  });

  it('the deterministic summariser refuses an environment without summarize()', async () => {
    const inner = new LongStreamEnv(() => longStream(7, RANGE));
    const plain: Environment = {
      name: 'plain',
      verifier: inner.verifier,
      reset: (s) => inner.reset(s),
      step: (a, e) => inner.step(a, e),
      close: () => inner.close(),
    };
    const sampler = honest();
    await expect(
      collectRollouts([{ env: plain, seed: 1, rolloutId: 0, groupId: 0 }], tokenizer, sampler, {
        contextLength: 64,
        maxNewTokens: 8,
        maxTurns: 32,
        compaction: { ...LONG_STREAM_COMPACTION, summariser: 'deterministic' },
      }),
    ).rejects.toThrow(/needs an environment with summarize\(\); plain has none/);
  });

  it('with V = 0, the segments’ advantages are the uncut trajectory’s, under one λ (fixed or length-adaptive)', async () => {
    const samples = await run([longStream(8, RANGE), longStream(9, RANGE)], {});
    const packed = packSamples(samples, LONG_STREAM_CONTEXT, tokenizer.padId);
    const rows = toTrainingRows(packed, LONG_STREAM_CONTEXT, tokenizer.padId);
    const zeros = new Float32Array(rows.B * rows.T);
    for (const rl of [
      { lambda: 0.9, lambdaAlpha: 0, gamma: 0.97 },
      { lambda: 0.95, lambdaAlpha: 1.5, gamma: 1 },
    ]) {
      const { bootstrap, lambda } = criticGaeRowParams(rows, zeros, rl);
      const split = gaeRef(
        { rewards: rows.rewards, values: zeros, actionMask: rows.actionMask, terminal: rows.terminal, bootstrap, tokensAfter: rows.tokensAfter },
        { B: rows.B, T: rows.T, gamma: rl.gamma, lambda },
      );
      for (const id of [0, 1]) {
        const segmentRows = samples.flatMap((s, b) => (s.rolloutId === id ? [b] : []));
        expect(segmentRows.length).toBeGreaterThanOrEqual(3);
        const stitched = segmentRows.flatMap((b) =>
          Array.from(split.advantages.subarray(b * rows.T, (b + 1) * rows.T)).filter((_, t) => rows.actionMask[b * rows.T + t] === 1),
        );
        // Uncut: every trainable token of the trajectory in one row, the reward once at its end.
        const n = stitched.length;
        const uncutLambda = rl.lambdaAlpha > 0 ? Math.fround(1 - 1 / (rl.lambdaAlpha * n)) : Math.fround(rl.lambda);
        const uncut = gaeRef(
          { rewards: Float64Array.from({ length: n }, (_, t) => (t === n - 1 ? 1 : 0)), values: new Float64Array(n), actionMask: new Uint8Array(n).fill(1) },
          { B: 1, T: n, gamma: rl.gamma, lambda: [uncutLambda] },
        );
        expect(stitched).toBeAllClose(uncut.advantages, { atol: 1e-12 });
        // The discount is not trivial: the first token's advantage is well below the last one's.
        expect(stitched[0]).toBeLessThan(0.9 * stitched[n - 1]);
      }
    }
  });

  it('refuses segments of one rollout with different λ', () => {
    expect(() => checkOneLambdaPerRollout([0, 0, 1], [0.9, 0.9, 0.5])).not.toThrow();
    expect(() => checkOneLambdaPerRollout([0, 1, 0], [0.9, 0.5, 0.8])).toThrow(/segments of rollout 0 have GAE λ 0.9 and 0.8/);
  });
});
