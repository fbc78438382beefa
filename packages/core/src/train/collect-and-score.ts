// Steps 1–4 of an RL iteration: rollout → score → rewards on tokens → advantages. What comes out is
// everything the updates need, on the host and on the GPU; `horizon sample` stops here.
//
// Shape legend:  B rollouts (prompts × group size) · T training positions

import { tokenKlRef } from '@horizon/kernels';
import { collectRollouts, type EpisodeRequest } from '../envs/episode.ts';
import { packSamples, type Sample } from '../envs/sample.ts';
import { filteredTasksMetric } from '../envs/task-quality/filtered-stream.ts';
import type { MetricName } from '../metrics/glossary.ts';
import type { Gpt } from '../model/gpt.ts';
import type { BatchTensors } from './batch-tensors.ts';
import { type RlContext, STREAM } from './rl-context.ts';
import { type TrainingRows, toTrainingRows, trainingLength } from './rows.ts';
import type { Scores } from './scoring.ts';
import { Stopwatch } from './stopwatch.ts';
import { selectTrainable } from './valid-rollouts.ts';

/** A batch of rollouts, scored and with advantages: everything before the updates. */
export interface ScoredRollouts {
  /** Every rollout of the iteration, failed and dropped ones included. */
  samples: Sample[];
  /** Row b of `rows` is samples[trained[b]]: the samples left after drops (train/valid-rollouts.ts). */
  trained: number[];
  /** How many samples and groups were left out, and why (and how many tasks a task filter skipped). */
  selectionMetrics: Partial<Record<MetricName, number>>;
  rows: TrainingRows;
  scores: Scores;
  /** The same batch on the GPU, advantages and critic targets included; absent when no row is left to train. */
  batch?: BatchTensors;
  /** [B, T] task rewards plus KL shaping. */
  tokenRewards: Float32Array;
  /** Summed −β·KL penalties over all rollouts (KL in the reward only). */
  klPenalty: number;
  advantages: Float32Array; // [B, T]
  returns: Float32Array; // [B, T]
  advantageMetrics: Partial<Record<MetricName, number>>;
  /** The method's AdvantageResult.ownTraining, for its trainOwnModels. */
  ownTraining?: unknown;
  seconds: { rollout: number; score: number; advantage: number };
}

/**
 * Steps 1–4 of an iteration: sample G episodes of each of P prompts (training episodes from
 * `cursor`), score them, place rewards and compute advantages. `horizon sample` uses this alone.
 */
export async function collectAndScore(ctx: RlContext, iteration: number, cursor: number): Promise<ScoredRollouts> {
  const { recipe, task, codec, algorithm, models } = ctx;
  const rl = recipe.rl;
  const clock = new Stopwatch();

  // 1. Rollout: G episodes of each of P prompts, sampled on the GPU with log π_roll recorded.
  const requests: EpisodeRequest[] = [];
  for (let p = 0; p < rl.promptsPerIteration; p++) {
    const seed = task.trainSeed(recipe.seed, cursor + p);
    for (let g = 0; g < rl.groupSize; g++) requests.push({ env: task.createEnv('train'), seed, rolloutId: requests.length, groupId: p });
  }
  ctx.sampler.reseed(recipe.seed, STREAM.rollout, iteration);
  const sample = () => collectRollouts(requests, codec, ctx.sampler, ctx.limits);
  // With a rollout lag, the policy of `history.age` updates ago samples (train/policy-history.ts).
  const samples = ctx.offline ? ctx.offline(cursor * rl.groupSize, requests.length) : ctx.history ? await ctx.history.sampleWith(sample) : await sample();
  const rollout = clock.lap();

  // 2. Score: log π_old, log π_ref and V on every position, exactly the sampled token ids, of the
  //    samples that train (failed rollouts, samples with no trainable token and dropped groups do not).
  //    A method that scores from the rollouts themselves (OPID's skill-injected pass) adds its own.
  const { kept: trained, metrics: selected } = selectTrainable(samples, { grouped: algorithm.grouped === true, dynamicSampling: rl.dynamicSampling });
  // Tasks a task filter left out of the stream before these prompts (offline samples came from no stream).
  const dropped = ctx.offline ? undefined : task.trainTasksDropped;
  const selectionMetrics = dropped ? { ...selected, ...filteredTasksMetric(dropped, recipe.seed, cursor, rl.promptsPerIteration) } : selected;
  const batch = trained.map((i) => samples[i]);
  if (batch.length === 0) return { samples, trained, selectionMetrics, ...emptyBatch(), seconds: { rollout, score: clock.lap(), advantage: 0 } };
  const longest = Math.max(...batch.map((s) => s.tokens.length));
  const packed = packSamples(batch, longest, codec.padId, { truncatedTerminal: rl.truncation === 'terminal' });
  const rows = toTrainingRows(packed, trainingLength(longest, recipe.model.contextLength), codec.padId);
  const rowTeachers = algorithm.scores.includes('teacherLogp') ? batch.map((s) => teacherFor(ctx, s)) : undefined;
  const shared = await ctx.scorer.score(rows, models.byName, algorithm.scores, rl.temperature, rowTeachers);
  const own = algorithm.sampleScores
    ? await algorithm.sampleScores({ samples: batch, rows, scores: shared, scorer: ctx.scorer, models: models.byName, codec, recipe })
    : {};
  const scores = { ...shared, ...own };
  const score = clock.lap();

  // 3. Rewards on tokens: the task reward where the episode placed it, and the KL penalty per action
  //    token when the recipe puts KL in the reward; with KL in the loss the method's KL term has it.
  //    The estimate is the kernels' own (tokenKlRef: k3 through expm1 with Δ clamped to ±20, as the
  //    GPU KL kernel computes it), so both placements penalise the same number.
  const tokenRewards = rows.rewards.slice();
  let klPenalty = 0;
  if (rl.klPlacement === 'reward' && rl.klCoef > 0) {
    for (let i = 0; i < tokenRewards.length; i++) {
      if (!rows.actionMask[i]) continue;
      const penalty = rl.klCoef * tokenKlRef(scores.oldLogp[i], scores.refLogp[i], rl.klEstimator).value;
      tokenRewards[i] -= penalty;
      klPenalty += penalty;
    }
  }

  // 4. Advantages (and critic targets) from the method, on the GPU where its kernels run; what a
  //    method computed on the host goes up once, for every minibatch to copy its rows from.
  const gpu = ctx.scorer.gpu;
  const batchOnGpu = ctx.scorer.batch(rows.B, rows.T);
  const result = await algorithm.advantages({
    gpu,
    rows,
    scores,
    tokenRewards,
    recipe,
    batch: batchOnGpu,
    models: models.byName,
    samples: batch,
    iteration,
    state: ctx.methodState ?? {},
  });
  const { advantages, returns, metrics: advantageMetrics } = result;
  if (!result.onGpu) {
    gpu.write(batchOnGpu.advantages, advantages);
    gpu.write(batchOnGpu.returns, returns);
  }
  return {
    samples,
    trained,
    selectionMetrics,
    rows,
    scores,
    batch: batchOnGpu,
    tokenRewards,
    klPenalty,
    advantages,
    returns,
    advantageMetrics,
    ...(result.ownTraining !== undefined ? { ownTraining: result.ownTraining } : {}),
    seconds: { rollout, score, advantage: clock.lap() },
  };
}

/** A batch with no row left to train: nothing is scored, and the update is skipped. */
function emptyBatch(): Omit<ScoredRollouts, 'samples' | 'trained' | 'selectionMetrics' | 'seconds' | 'batch'> {
  const T = 4;
  const none = new Uint32Array(0);
  const rows: TrainingRows = {
    B: 0,
    T,
    inputs: none,
    targets: none,
    actionMask: none,
    rewards: new Float32Array(0),
    rolloutLogp: new Float32Array(0),
    terminal: none,
    groupIds: none,
    rolloutIds: none,
    tokensAfter: none,
  };
  const empty = new Float32Array(0);
  return {
    rows,
    scores: { oldLogp: empty, refLogp: empty },
    tokenRewards: empty,
    klPenalty: 0,
    advantages: empty,
    returns: empty,
    advantageMetrics: {},
  };
}

function teacherFor(ctx: RlContext, sample: Sample): Gpt {
  if (!ctx.teachers) throw new RangeError(`${ctx.algorithm.name} scores with teachers (distill.teachers), but the trainer was given none`);
  return ctx.teachers.teacherFor(sample);
}
