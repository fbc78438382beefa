// One RL iteration, top to bottom: rollout → score → rewards → advantages → updates → metrics.
// The method (algorithms/algorithm.ts) supplies the advantages and, per iteration, which models train
// on which loss terms; this loop names no method. Everything random is derived from (run seed,
// iteration), so an iteration replays exactly after a resume.
//
// Shape legend:  B rollouts (prompts × group size) · T training positions

import { actionCounts, type GpuStats, lossScales, SeededRandom, tokenKlRef } from '@horizon/kernels';
import type { Algorithm } from '../algorithms/algorithm.ts';
import type { JsonValue } from '../envs/environment.ts';
import { collectRollouts, type EpisodeRequest, type RolloutLimits, type TokenCodec } from '../envs/episode.ts';
import { hackMetrics } from '../envs/hack-attempts.ts';
import { actionTokenCount, packSamples, type Sample } from '../envs/sample.ts';
import { mixSeed } from '../envs/seeds.ts';
import type { Task } from '../envs/tasks.ts';
import { toolCallMetrics } from '../envs/tool-call.ts';
import type { MetricName } from '../metrics/glossary.ts';
import type { Gpt } from '../model/gpt.ts';
import type { AdamW } from '../model/optimizer.ts';
import type { Recipe } from '../recipe/schema.ts';
import type { BatchTensors } from './batch-tensors.ts';
import { isSuccess } from './evaluate.ts';
import type { GpuSampler } from './gpu-sampler.ts';
import type { PolicyHistory } from './policy-history.ts';
import { rolloutMismatch, truncatedIsAdvantages } from './rollout-mismatch.ts';
import { gatherItems, gatherRows, type TrainingRows, toTrainingRows, trainingLength } from './rows.ts';
import type { Scorer, Scores } from './scoring.ts';
import type { BatchRows, Minibatch, StepMetrics, UpdateSteps } from './update-steps.ts';
import { minibatchBounds, selectTrainable } from './valid-rollouts.ts';

/** Salts separating the run's random streams. */
export const STREAM = { rollout: 11, shuffle: 12, eval: 13 } as const;

/** The method's models by declared name (the policy always among them), and optimizers of the trained ones. */
export interface RlModels {
  byName: ReadonlyMap<string, Gpt> & { get(name: 'policy'): Gpt };
  optimizers: ReadonlyMap<string, AdamW>;
}

/** The teacher that scores a sample (on-policy distillation's routing, train/teachers.ts). */
export interface TeacherRouter {
  teacherFor(sample: Sample): Gpt;
}

export interface RlContext {
  recipe: Recipe;
  task: Task;
  codec: TokenCodec & { padId: number };
  algorithm: Algorithm;
  models: RlModels;
  sampler: GpuSampler;
  scorer: Scorer;
  updates: UpdateSteps;
  limits: RolloutLimits;
  /**
   * Where an iteration's samples come from when they are not the policy's rollouts: labelled
   * completions from a file (KTO's kto.source = "file", labelled-examples.ts), the `count` rows from
   * training position `start`.
   */
  offline?: (start: number, count: number) => Sample[];
  /** The rollout-lag simulator's past policies when `rl.rolloutLag` > 0 (rollouts sample the oldest). */
  history?: PolicyHistory;
  /** Trainer state the method keeps across iterations (UpdateContext.state); saved in checkpoints. */
  methodState?: Record<string, JsonValue>;
  /** Present when the method scores with teachers (the `teacherLogp` score). */
  teachers?: TeacherRouter;
}

export interface IterationResult {
  metrics: Partial<Record<MetricName, number>>;
  /** The batch's samples with per-token channels for samples.jsonl, indexed like `Sample.tokens`. */
  samples: { sample: Sample; channels: Record<string, Float32Array> }[];
}

/** A batch of rollouts, scored and with advantages: everything before the updates. */
export interface ScoredRollouts {
  /** Every rollout of the iteration, failed and dropped ones included. */
  samples: Sample[];
  /** Row b of `rows` is samples[trained[b]]: the samples left after drops (train/valid-rollouts.ts). */
  trained: number[];
  /** How many samples and groups were left out, and why. */
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
  const { kept: trained, metrics: selectionMetrics } = selectTrainable(samples, { grouped: algorithm.grouped === true, dynamicSampling: rl.dynamicSampling });
  const batch = trained.map((i) => samples[i]);
  if (batch.length === 0) return { samples, trained, selectionMetrics, ...emptyBatch(), seconds: { rollout, score: clock.lap(), advantage: 0 } };
  const longest = Math.max(...batch.map((s) => s.tokens.length));
  const rows = toTrainingRows(packSamples(batch, longest, codec.padId), trainingLength(longest, recipe.model.contextLength), codec.padId);
  const rowTeachers = algorithm.scores.includes('teacherLogp') ? batch.map((s) => teacherFor(ctx, s)) : undefined;
  const scores = await ctx.scorer.score(rows, models.byName, algorithm.scores, rl.temperature, rowTeachers);
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
  const result = await algorithm.advantages({ gpu, rows, scores, tokenRewards, recipe, batch: batchOnGpu });
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

/** Runs iteration `iteration` (0-based) on training episodes starting at `cursor`. */
export async function rlIteration(ctx: RlContext, iteration: number, cursor: number): Promise<IterationResult> {
  const { recipe, models } = ctx;
  const rl = recipe.rl;
  const clock = new Stopwatch();
  const traffic = { ...ctx.scorer.gpu.stats };
  const policyLag = ctx.history?.age ?? 0;
  const { samples, trained, selectionMetrics, rows, scores, batch, klPenalty, advantages, returns, advantageMetrics, seconds } = await collectAndScore(
    ctx,
    iteration,
    cursor,
  );
  const { rollout: rolloutSeconds, score: scoreSeconds, advantage: advantageSeconds } = seconds;
  clock.lap();

  // 5. Updates: epochs × minibatches over a fresh shuffle each epoch; on every minibatch each model
  //    the method trains this iteration takes one step, in the method's order. Every loss term of
  //    every minibatch is scaled by denominators of the whole batch (docs/algorithms/README.md §3).
  //    With nothing left to train (every rollout failed or was dropped) the iteration takes no step.
  //    A model may step more than once per minibatch (SAO's K critic updates). A minibatch's rows are
  //    copied out of the batch on the GPU by the first step on them and shared by the others.
  const updates = batch ? ctx.algorithm.updates(recipe, iteration, { metrics: advantageMetrics, state: ctx.methodState ?? {} }) : [];
  // Truncated importance sampling weights the PPO-clip loss, i.e. its advantages (rollout-mismatch.ts).
  const tis =
    rl.tis > 0 && updates.some((u) => u.terms.some((term) => term.kind === 'ppo-clip'))
      ? truncatedIsAdvantages(advantages, scores.oldLogp, rows.rolloutLogp, rows.actionMask, rl.tis)
      : undefined;
  const stepAdvantages = tis?.advantages ?? advantages;
  const scales = lossScales(actionCounts(rows.actionMask, rows.B, rows.T), {
    mode: rl.lossAggregation,
    rolloutIds: rows.rolloutIds,
    constant: rl.maxNewTokens,
  });
  // What the minibatches copy their rows from that was not on the GPU yet.
  if (batch && updates.length > 0) {
    ctx.scorer.gpu.write(batch.scales, scales);
    if (tis) ctx.scorer.gpu.write(batch.advantages, tis.advantages);
  }
  const steps = updates.map(() => [] as StepMetrics[]);
  const stepSeconds = updates.map(() => 0);
  // A batch shrunk by drops need not divide into rl.minibatches: near-equal parts (valid-rollouts.ts).
  const bounds = minibatchBounds(rows.B, rl.minibatches);
  for (let epoch = 0; batch && epoch < rl.epochs && updates.length > 0; epoch++) {
    const order = shuffled(rows.B, mixSeed(recipe.seed, STREAM.shuffle, iteration, epoch));
    for (const [start, end] of bounds) {
      const indices = order.slice(start, end);
      const mb = minibatchRows(batch, indices, () => minibatch(rows, scores, stepAdvantages, returns, scales, indices));
      for (const [u, update] of updates.entries()) {
        const started = performance.now();
        const model = models.byName.get(update.model);
        const optimizer = models.optimizers.get(update.model);
        if (!model || !optimizer) throw new RangeError(`${ctx.algorithm.name} trains "${update.model}", which it does not declare as a trained model`);
        const options = { lr: update.lr, ...recipe.optim, gradClip: rl.gradClip, temperature: rl.temperature };
        if (model === models.byName.get('policy')) ctx.history?.beforePolicyStep();
        steps[u].push(await ctx.updates.step(model, optimizer, mb, update.terms, options));
        stepSeconds[u] += (performance.now() - started) / 1000;
      }
    }
  }
  const updateSeconds = clock.lap();

  // 6. Metrics. What the rollouts looked like is over every rollout that did not fail; the rest is
  //    over the rows trained on.
  const finished = samples.filter((s) => !s.failure);
  const actionTokens = finished.reduce((n, s) => n + actionTokenCount(s), 0);
  const metrics: Partial<Record<MetricName, number>> = {
    ...(finished.length > 0
      ? {
          'rollout/reward': mean(finished.map((s) => s.reward)),
          'rollout/success': mean(finished.map((s) => (isSuccess(s) ? 1 : 0))),
          'rollout/response_length': actionTokens / finished.length,
          'rollout/truncated_frac': mean(finished.map((s) => (s.truncated ? 1 : 0))),
          ...(rl.klPlacement === 'reward' ? { 'rollout/kl_penalty': klPenalty / finished.length } : {}),
        }
      : {}),
    ...toolCallMetrics(finished),
    ...hackMetrics(finished),
    ...selectionMetrics,
    ...advantageMetrics,
    ...(rows.B > 0 ? rolloutMismatch(rows.rolloutLogp, scores.oldLogp, rows.actionMask) : {}),
    ...(tis?.metrics ?? {}),
    ...(ctx.history ? { 'rollout/policy_lag': policyLag } : {}),
    'perf/rollout_s': rolloutSeconds,
    'perf/score_s': scoreSeconds,
    'perf/advantage_s': advantageSeconds,
    'perf/update_s': updateSeconds,
    'perf/tokens_per_s': actionTokens / Math.max(rolloutSeconds, 1e-9),
  };
  // A model that steps several times per minibatch reports the mean over all its steps and their total time.
  const stepsOf = new Map<string, StepMetrics[]>();
  const secondsOf = new Map<string, number>();
  for (const [u, update] of updates.entries()) {
    stepsOf.set(update.model, [...(stepsOf.get(update.model) ?? []), ...steps[u]]);
    secondsOf.set(update.model, (secondsOf.get(update.model) ?? 0) + stepSeconds[u]);
  }
  for (const [model, modelSteps] of stepsOf) {
    Object.assign(metrics, meanOfSteps(modelSteps, modelSteps.length / rl.epochs));
    const timing = UPDATE_SECONDS[model];
    if (timing) metrics[timing] = secondsOf.get(model) as number;
    if (model === 'policy') {
      metrics['policy/lr'] = updates.find((update) => update.model === 'policy')?.lr as number;
      metrics['perf/train_tokens_per_s'] = (rows.B * rows.T * rl.epochs) / Math.max(updateSeconds, 1e-9);
    }
  }
  metrics['perf/iteration_s'] = clock.total();
  Object.assign(metrics, trafficSince(ctx.scorer.gpu.stats, traffic));
  const rowOf = new Map(trained.map((i, b) => [i, b]));
  return {
    metrics,
    samples: samples.map((sample, i) => {
      const b = rowOf.get(i);
      return { sample, channels: b === undefined ? {} : channels(sample, b, rows, scores, advantages) };
    }),
  };
}

/** The host↔GPU traffic between two snapshots of the runtime's counters (docs/design.md §4). */
function trafficSince(now: GpuStats, before: GpuStats): Partial<Record<MetricName, number>> {
  return {
    'perf/submits': now.submits - before.submits,
    'perf/uploads': now.uploads - before.uploads,
    'perf/upload_bytes': now.uploadBytes - before.uploadBytes,
    'perf/readbacks': now.readbacks - before.readbacks,
    'perf/readback_bytes': now.readbackBytes - before.readbackBytes,
  };
}

/** Where a model's update time is logged. */
const UPDATE_SECONDS: Partial<Record<string, MetricName>> = { policy: 'perf/policy_update_s', critic: 'perf/critic_update_s' };

/**
 * Losses report the last epoch (the loss the update ended at, one step per minibatch); every other
 * step metric is the mean over all of the iteration's steps.
 */
const LAST_EPOCH_ONLY: ReadonlySet<MetricName> = new Set(['policy/loss', 'policy/distill_loss']);

function meanOfSteps(steps: readonly StepMetrics[], minibatches: number): StepMetrics {
  const out: StepMetrics = {};
  const names = new Set(steps.flatMap((s) => Object.keys(s) as MetricName[]));
  for (const name of names) {
    const over = LAST_EPOCH_ONLY.has(name) ? steps.slice(-minibatches) : steps;
    out[name] = mean(over.map((s) => s[name] as number));
  }
  return out;
}

const mean = (xs: readonly number[]) => (xs.length > 0 ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);

/** Rows `indices` of the batch on the GPU; their host arrays are gathered only if a step asks for them. */
function minibatchRows(batch: BatchTensors, indices: number[], gather: () => Minibatch): BatchRows {
  let host: Minibatch | undefined;
  return {
    batch,
    indices,
    host: () => {
      host ??= gather();
      return host;
    },
  };
}

function minibatch(rows: TrainingRows, scores: Scores, advantages: Float32Array, returns: Float32Array, scales: Float32Array, indices: number[]): Minibatch {
  const { T } = rows;
  const values = scores.values ?? new Float32Array(rows.B * T);
  return {
    B: indices.length,
    T,
    inputs: gatherRows(rows.inputs, T, indices),
    targets: gatherRows(rows.targets, T, indices),
    mask: gatherRows(rows.actionMask, T, indices),
    scales: gatherItems(scales, indices),
    advantages: gatherRows(advantages, T, indices),
    oldLogp: gatherRows(scores.oldLogp, T, indices),
    rolloutLogp: gatherRows(rows.rolloutLogp, T, indices),
    refLogp: gatherRows(scores.refLogp, T, indices),
    returns: gatherRows(returns, T, indices),
    oldValues: gatherRows(values, T, indices),
    ...(scores.mismatched
      ? {
          mismatched: {
            logp: gatherRows(scores.mismatched.logp, T, indices),
            refLogp: gatherRows(scores.mismatched.refLogp, T, indices),
            mask: gatherRows(scores.mismatched.mask, T, indices),
          },
        }
      : {}),
    ...(scores.teacherLogp ? { teacherLogp: gatherRows(scores.teacherLogp, T, indices) } : {}),
  };
}

/** A permutation of 0…n−1 from `seed` (Fisher–Yates). */
export function shuffled(n: number, seed: number): number[] {
  const rng = new SeededRandom(seed);
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}

/** Training-position arrays of row `b` re-indexed by token (channel[p] = value for tokens[p]). */
function channels(sample: Sample, b: number, rows: TrainingRows, scores: Scores, advantages: Float32Array): Record<string, Float32Array> {
  const L = sample.tokens.length;
  const { T } = rows;
  const byToken = (source: ArrayLike<number>) => {
    const out = new Float32Array(L);
    for (let p = 1; p < L; p++) out[p] = sample.actionMask[p] ? source[b * T + p - 1] : 0;
    return out;
  };
  const result: Record<string, Float32Array> = {
    advantage: byToken(advantages),
    logprob: byToken(scores.oldLogp),
    kl: byToken(Float32Array.from(scores.oldLogp, (x, i) => x - scores.refLogp[i])),
  };
  if (scores.values) result.value = byToken(scores.values);
  return result;
}

class Stopwatch {
  private readonly start = performance.now();
  private last = this.start;

  lap(): number {
    const now = performance.now();
    const seconds = (now - this.last) / 1000;
    this.last = now;
    return seconds;
  }

  total(): number {
    return (performance.now() - this.start) / 1000;
  }
}
