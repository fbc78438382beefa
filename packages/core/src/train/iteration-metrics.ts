// Step 6 of an RL iteration: its metrics (docs: the metric glossary, metrics/glossary.ts) and the
// per-token channels samples.jsonl records. What the rollouts looked like is over every rollout that
// did not fail; the rest is over the rows trained on.
//
// Shape legend:  B rows trained on · T training positions · L one sample's length

import type { GpuStats } from '@horizon/kernels';
import type { ModelUpdate } from '../algorithms/algorithm.ts';
import { hackMetrics } from '../envs/hack-attempts.ts';
import { finalSegments } from '../envs/rollouts.ts';
import { actionTokenCount, type Sample } from '../envs/sample.ts';
import { toolCallMetrics } from '../envs/tool-call.ts';
import type { MetricName } from '../metrics/glossary.ts';
import { monitorMetrics } from '../monitor/metrics.ts';
import type { ScoredRollouts } from './collect-and-score.ts';
import { isSuccess } from './evaluate.ts';
import type { RlContext } from './rl-context.ts';
import { rolloutMismatch } from './rollout-mismatch.ts';
import type { TrainingRows } from './rows.ts';
import type { Scores } from './scoring.ts';
import type { StepMetrics } from './update-steps.ts';

export interface IterationResult {
  metrics: Partial<Record<MetricName, number>>;
  /** The batch's samples with per-token channels for samples.jsonl, indexed like `Sample.tokens`. */
  samples: { sample: Sample; channels: Record<string, Float32Array> }[];
}

/** What the updates did: each update's step metrics and seconds, and the truncated-IS metrics if it applied. */
export interface UpdatesDone {
  updates: readonly ModelUpdate[];
  /** steps[u]: the metrics of every step update u took, in order (epochs × minibatches). */
  steps: StepMetrics[][];
  stepSeconds: number[];
  tisMetrics?: Partial<Record<MetricName, number>>;
  /** What the method's trainOwnModels reported (algorithm.ts). */
  ownMetrics?: Partial<Record<MetricName, number>>;
}

/** What the iteration measured around its steps. */
export interface IterationTiming {
  updateSeconds: number;
  iterationSeconds: number;
  /** The runtime's traffic counters when the iteration began. */
  traffic: GpuStats;
  /** With a rollout-lag simulator: how many policy updates old the sampling policy was. */
  policyLag?: number;
}

/** The iteration's metrics, and its samples with their per-token channels. */
export function iterationResult(ctx: RlContext, scored: ScoredRollouts, done: UpdatesDone, timing: IterationTiming): IterationResult {
  const rl = ctx.recipe.rl;
  const { samples, trained, selectionMetrics, rows, scores, klPenalty, advantages, advantageMetrics, seconds } = scored;
  const { updates, steps, stepSeconds } = done;
  // Per rollout: a compacted rollout's final segment carries its outcome, status and tool calls
  // (envs/rollouts.ts); its response length is the action tokens of all its segments.
  const finished = samples.filter((s) => !s.failure);
  const finals = finalSegments(finished);
  const actionTokens = finished.reduce((n, s) => n + actionTokenCount(s), 0);
  const metrics: Partial<Record<MetricName, number>> = {
    ...(finals.length > 0
      ? {
          'rollout/reward': mean(finals.map((s) => s.reward)),
          'rollout/success': mean(finals.map((s) => (isSuccess(s) ? 1 : 0))),
          'rollout/response_length': actionTokens / finals.length,
          'rollout/truncated_frac': mean(finals.map((s) => (s.truncated ? 1 : 0))),
          ...(rl.klPlacement === 'reward' ? { 'rollout/kl_penalty': klPenalty / finals.length } : {}),
          ...(ctx.limits.compaction ? { 'rollout/segments': finished.length / finals.length } : {}),
        }
      : {}),
    ...toolCallMetrics(finals),
    ...hackMetrics(finals),
    ...monitorMetrics(finals),
    ...selectionMetrics,
    ...advantageMetrics,
    ...(rows.B > 0 ? rolloutMismatch(rows.rolloutLogp, scores.oldLogp, rows.actionMask) : {}),
    ...(done.tisMetrics ?? {}),
    ...(done.ownMetrics ?? {}),
    ...(timing.policyLag !== undefined ? { 'rollout/policy_lag': timing.policyLag } : {}),
    'perf/rollout_s': seconds.rollout,
    'perf/score_s': seconds.score,
    'perf/advantage_s': seconds.advantage,
    'perf/update_s': timing.updateSeconds,
    'perf/tokens_per_s': actionTokens / Math.max(seconds.rollout, 1e-9),
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
    const timingName = UPDATE_SECONDS[model];
    if (timingName) metrics[timingName] = secondsOf.get(model) as number;
    if (model === 'policy') {
      metrics['policy/lr'] = updates.find((update) => update.model === 'policy')?.lr as number;
      metrics['perf/train_tokens_per_s'] = (rows.B * rows.T * rl.epochs) / Math.max(timing.updateSeconds, 1e-9);
    }
  }
  metrics['perf/iteration_s'] = timing.iterationSeconds;
  Object.assign(metrics, trafficSince(ctx.scorer.gpu.stats, timing.traffic));
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
    'perf/live_tensor_bytes': now.liveTensorBytes,
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
  const { skillLogp } = scores;
  if (skillLogp) result.skill_delta = byToken(Float32Array.from(scores.oldLogp, (x, i) => skillLogp[i] - x));
  return result;
}
