// The advantage paths recorded on the GPU (critic-gae.ts for PPO and SAO, group-baseline.ts for GRPO,
// Dr.GRPO and RLOO, each with and without whitening) against the kernels' float64 references
// (gaeRef, groupBaselinesRef, whitenRef) on a random batch with awkward sizes: observation gaps inside
// the answers, rows with one action token, truncated rows that bootstrap from V, uneven groups, KL-like
// rewards on every action token; and real compacted LongStream rollouts (segments with tokensAfter,
// compacted rows terminal, one length-adaptive λ per rollout). And the contract the loop relies on:
// what the method returns is exactly what it left in the batch's GPU tensors.
//
// Shape legend:  B rows · T positions

import { gaeRef, groupBaselinesRef, SeededRandom, WHITEN_EPS, whitenRef } from '@horizon/kernels';
import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';
import { collectRollouts } from '../envs/episode.ts';
import { LONG_STREAM_COMPACTION } from '../envs/long-stream/demo.ts';
import { LongStreamEnv } from '../envs/long-stream/env.ts';
import { longStream } from '../envs/long-stream/stream.ts';
import { LONG_STREAM_VOCABULARY } from '../envs/long-stream/task.ts';
import { actionTokenCount, packSamples } from '../envs/sample.ts';
import { longStreamPolicy } from '../envs/testing/long-stream-policy.ts';
import { scriptedSampler } from '../envs/testing/scripted-sampler.ts';
import { resolveRecipe } from '../recipe/resolve.ts';
import type { Recipe } from '../recipe/schema.ts';
import { CharTokenizer } from '../tokenizer/char-tokenizer.ts';
import { type TrainingRows, toTrainingRows } from '../train/rows.ts';
import type { Scores } from '../train/scoring.ts';
import { scoredBatchOnGpu } from '../train/testing/scored-batch.ts';
import type { AdvantageInputs } from './algorithm.ts';
import { ALGORITHM_BY_NAME } from './index.ts';

const B = 13;
const T = 20;
const GROUP_IDS = [0, 0, 0, 1, 1, 2, 2, 2, 2, 3, 4, 4, 4];

/** Prompt positions first, then action tokens with an observation gap in some rows; rewards on action tokens. */
function randomRows(seed: number): { rows: TrainingRows; values: Float32Array } {
  const rng = new SeededRandom(seed);
  const mask = new Uint32Array(B * T);
  const rewards = new Float32Array(B * T);
  const terminal = new Uint32Array(B);
  for (let b = 0; b < B; b++) {
    const start = 2 + Math.floor(rng.next() * 4);
    const length = b === 4 ? 1 : 1 + Math.floor(rng.next() * (T - start - 2));
    const gap = length > 4 && rng.next() < 0.5 ? start + 2 : -1;
    for (let t = start; t < start + length; t++) if (t !== gap && t !== gap + 1) mask[b * T + t] = 1;
    terminal[b] = rng.next() < 0.7 ? 1 : 0;
    for (let t = 0; t < T; t++) if (mask[b * T + t]) rewards[b * T + t] = -0.02 * rng.next();
    let last = T - 1;
    while (!mask[b * T + last]) last--;
    rewards[b * T + last] += rng.next() < 0.5 ? 1 : 0;
  }
  const values = Float32Array.from({ length: B * T }, () => rng.normal() * 0.5);
  const rows: TrainingRows = {
    B,
    T,
    inputs: new Uint32Array(B * T),
    targets: new Uint32Array(B * T),
    actionMask: mask,
    rewards,
    rolloutLogp: new Float32Array(B * T),
    terminal,
    groupIds: Uint32Array.from(GROUP_IDS),
    rolloutIds: Uint32Array.from({ length: B }, (_, b) => b),
    tokensAfter: new Uint32Array(B),
  };
  return { rows, values };
}

async function inputs(recipe: Recipe, rows: TrainingRows, values?: Float32Array): Promise<AdvantageInputs> {
  const gpu = await testGpu();
  const zeros = new Float32Array(rows.B * rows.T);
  const scores: Scores = { oldLogp: zeros, refLogp: zeros, ...(values ? { values } : {}) };
  return { gpu, rows, scores, batch: scoredBatchOnGpu(gpu, rows, scores), tokenRewards: rows.rewards, recipe };
}

function recipeOf(algorithm: Recipe['rl']['algorithm'], sets: string[]): Recipe {
  return resolveRecipe({ sets: [`rl.algorithm=${algorithm}`, 'rl.groupSize=2', 'rl.minibatches=1', ...sets] }).recipe;
}

/** Each truncated row's bootstrap, from the definition (critic-gae.ts): V at its last action position, the last one the value loss trains. */
function bootstrapOf(rows: TrainingRows, values: Float32Array): Float64Array {
  return Float64Array.from({ length: B }, (_, b) => {
    let last = T - 1;
    while (last >= 0 && !rows.actionMask[b * T + last]) last--;
    return !rows.terminal[b] && last >= 0 ? values[b * T + last] : 0;
  });
}

function actionTokens(rows: TrainingRows): number[] {
  return Array.from({ length: B }, (_, b) => rows.actionMask.subarray(b * T, (b + 1) * T).reduce((n, m) => n + m, 0));
}

describe('critic GAE on the GPU agrees with the float64 reference', () => {
  const cases = [
    { name: 'fixed λ, not whitened', sets: ['rl.whiten=false', 'rl.lambda=0.9', 'rl.gamma=0.97', 'rl.lambdaCritic=1'] },
    { name: 'fixed λ, whitened', sets: ['rl.lambda=0.95', 'rl.gamma=1', 'rl.lambdaCritic=0.8'] },
    { name: 'length-adaptive λ (α = 1.5), whitened', sets: ['rl.lambdaAlpha=1.5', 'rl.gamma=0.99', 'rl.lambdaCritic=1'] },
  ];
  for (const { name, sets } of cases) {
    for (const method of ['ppo', 'sao'] as const) {
      it(`${method}: ${name}`, async () => {
        const recipe = recipeOf(method, sets);
        const { rows, values } = randomRows(7);
        const given = await inputs(recipe, rows, values);
        const result = await ALGORITHM_BY_NAME[method].advantages(given);
        const { rl } = recipe;
        const lambda = actionTokens(rows).map((l) => (rl.lambdaAlpha > 0 ? (l === 0 ? 0 : Math.min(1, Math.max(0, 1 - 1 / (rl.lambdaAlpha * l)))) : rl.lambda));
        const want = gaeRef(
          { rewards: rows.rewards, values, actionMask: rows.actionMask, terminal: rows.terminal, bootstrap: bootstrapOf(rows, values) },
          { B, T, gamma: rl.gamma, lambda, lambdaCritic: new Array(B).fill(rl.lambdaCritic) },
        );
        const advantages = rl.whiten ? whitenRef(want.advantages, rows.actionMask, WHITEN_EPS).whitened : want.advantages;
        expect(result.advantages).toBeAllClose(advantages, { atol: 2e-5, rtol: 1e-5 });
        expect(result.returns).toBeAllClose(want.returns, { atol: 2e-5, rtol: 1e-5 });
        expect(result.onGpu).toBe(true);
        const [onGpu, returnsOnGpu] = await given.gpu.readMany([given.batch.advantages, given.batch.returns]);
        expect(Array.from(onGpu)).toEqual(Array.from(result.advantages));
        expect(Array.from(returnsOnGpu)).toEqual(Array.from(result.returns));
      });
    }
  }
});

describe('critic GAE on compacted rollouts: the GPU applies the cross-segment discount as the reference does', () => {
  it('ppo, length-adaptive λ over each whole rollout, not whitened', async () => {
    const tokenizer = new CharTokenizer(LONG_STREAM_VOCABULARY);
    const streams = [7, 8, 9].map((seed) => longStream(seed, { minChunks: 7, maxChunks: 12 }));
    const requests = streams.map((stream, i) => ({ env: new LongStreamEnv(() => stream), seed: 40 + i, rolloutId: i, groupId: i }));
    const sampler = scriptedSampler(tokenizer, (ctx) => longStreamPolicy(ctx, LONG_STREAM_COMPACTION.keepSteps));
    // A turn limit that cuts the longer streams short: such a rollout's final segment bootstraps, its others do not.
    const samples = await collectRollouts(requests, tokenizer, sampler, {
      contextLength: 64,
      maxNewTokens: 8,
      maxTurns: 12,
      compaction: LONG_STREAM_COMPACTION,
    });
    const rows = toTrainingRows(packSamples(samples, 64, tokenizer.padId), 64, tokenizer.padId);
    expect(Array.from(rows.tokensAfter).some((n) => n > 0)).toBe(true);
    expect(Array.from(rows.terminal).includes(0)).toBe(true);
    const rng = new SeededRandom(5);
    const values = Float32Array.from({ length: rows.B * rows.T }, () => rng.normal() * 0.5);
    const recipe = recipeOf('ppo', ['rl.whiten=false', 'rl.lambdaAlpha=1.5', 'rl.gamma=0.99', 'rl.lambdaCritic=1']);
    const result = await ALGORITHM_BY_NAME.ppo.advantages(await inputs(recipe, rows, values));
    const total = new Map<number, number>();
    for (const s of samples) total.set(s.rolloutId, (total.get(s.rolloutId) ?? 0) + actionTokenCount(s));
    const lambda = samples.map((s) => Math.fround(1 - 1 / (1.5 * (total.get(s.rolloutId) ?? 0))));
    const bootstrap = Array.from({ length: rows.B }, (_, b) => {
      const last = rows.actionMask.subarray(b * rows.T, (b + 1) * rows.T).lastIndexOf(1);
      return rows.terminal[b] ? 0 : values[b * rows.T + last];
    });
    const want = gaeRef(
      { rewards: rows.rewards, values, actionMask: rows.actionMask, terminal: rows.terminal, bootstrap, tokensAfter: rows.tokensAfter },
      { B: rows.B, T: rows.T, gamma: 0.99, lambda, lambdaCritic: new Array(rows.B).fill(1) },
    );
    expect(result.advantages).toBeAllClose(want.advantages, { atol: 2e-5, rtol: 1e-5 });
    expect(result.returns).toBeAllClose(want.returns, { atol: 2e-5, rtol: 1e-5 });
  });
});

describe('group baselines on the GPU agree with the float64 reference', () => {
  for (const method of ['grpo', 'dr-grpo', 'rloo'] as const) {
    for (const whiten of [false, true]) {
      it(`${method}${whiten ? ', whitened' : ''}`, async () => {
        const recipe = recipeOf(method, [`rl.whiten=${whiten}`]);
        const { rows } = randomRows(11);
        const given = await inputs(recipe, rows);
        // Targets left over from an earlier batch of this shape must not survive.
        given.gpu.write(given.batch.returns, new Float32Array(B * T).fill(3));
        const result = await ALGORITHM_BY_NAME[method].advantages(given);
        const rolloutRewards = Array.from({ length: B }, (_, b) => rows.rewards.subarray(b * T, (b + 1) * T).reduce((a, r) => a + r, 0));
        const perRollout = groupBaselinesRef(rolloutRewards, GROUP_IDS, method);
        const broadcast = Float64Array.from(rows.actionMask, (m, i) => m * perRollout[Math.floor(i / T)]);
        const want = whiten ? whitenRef(broadcast, rows.actionMask, WHITEN_EPS).whitened : broadcast;
        expect(result.advantages).toBeAllClose(want, { atol: 2e-5, rtol: 1e-5 });
        expect(Array.from(result.returns)).toEqual(new Array(B * T).fill(0));
        const [onGpu, returnsOnGpu] = await given.gpu.readMany([given.batch.advantages, given.batch.returns]);
        expect(Array.from(onGpu)).toEqual(Array.from(result.advantages));
        expect(Array.from(returnsOnGpu)).toEqual(new Array(B * T).fill(0));
      });
    }
  }

  it('a compacted rollout is one member of its group: its task reward once, the KL of all its segments, its advantage on every segment', async () => {
    const recipe = recipeOf('grpo', ['rl.whiten=false']);
    const { rows } = randomRows(11);
    // Rows 0–1, 5–7 and 11–12 are segments of one rollout each; the others are whole rollouts.
    const ROLLOUT_OF_ROW = [0, 0, 1, 2, 3, 4, 4, 4, 5, 6, 7, 8, 8];
    const outcome = [1, 0, 1, 1, 0, 1, 0, 0, 1];
    rows.rolloutIds = Uint32Array.from(ROLLOUT_OF_ROW, (r) => 100 + r);
    const task = new Float32Array(B * T);
    const tokenRewards = new Float32Array(B * T);
    const expected = new Float64Array(outcome.length);
    for (let b = 0; b < B; b++) {
      const last = rows.actionMask.subarray(b * T, (b + 1) * T).lastIndexOf(1);
      task[b * T + last] = outcome[ROLLOUT_OF_ROW[b]]; // every segment carries the verifier's reward
      for (let t = 0; t < T; t++) {
        const kl = rows.actionMask[b * T + t] ? -0.01 * (1 + ((b + t) % 3)) : 0;
        tokenRewards[b * T + t] = task[b * T + t] + kl;
        expected[ROLLOUT_OF_ROW[b]] += kl;
      }
    }
    for (const [r, o] of outcome.entries()) expected[r] += o;
    rows.rewards = task;
    const given = { ...(await inputs(recipe, rows)), tokenRewards };
    const result = await ALGORITHM_BY_NAME.grpo.advantages(given);
    const rolloutGroups = outcome.map((_, r) => GROUP_IDS[ROLLOUT_OF_ROW.indexOf(r)]);
    const perRollout = groupBaselinesRef(expected, rolloutGroups, 'grpo');
    const want = Float64Array.from(rows.actionMask, (m, i) => m * perRollout[ROLLOUT_OF_ROW[Math.floor(i / T)]]);
    expect(result.advantages).toBeAllClose(want, { atol: 2e-5, rtol: 1e-5 });
    // Group 3 (row 9) is one rollout; groups 0, 1, 2, 4 compare two rollouts each.
    expect(result.metrics['rollout/zero_var_groups']).toBeCloseTo(1 / 5, 12);
    const [onGpu] = await given.gpu.readMany([given.batch.advantages]);
    expect(Array.from(onGpu)).toEqual(Array.from(result.advantages));
  });
});
