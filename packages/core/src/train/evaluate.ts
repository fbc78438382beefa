// Evaluation on the task's fixed problem sets: greedy decoding (temperature 0), so a model's score
// is a property of its weights alone, the same on every run that reaches the same weights.

import { type BatchSampler, collectRollouts, type RolloutLimits, type TokenCodec } from '../envs/episode.ts';
import { finalSegments } from '../envs/rollouts.ts';
import { actionTokenCount, type Sample } from '../envs/sample.ts';
import type { EvalSplit, Task } from '../envs/tasks.ts';

export interface EvalResult {
  success: number;
  responseLength: number;
  /** Every sample, segments included, in request order. */
  samples: Sample[];
  /** One per problem: each rollout's final segment. */
  finals: Sample[];
}

/** Runs every episode of `split` once and returns the fraction solved (environment `info.correct`, else reward ≥ 1). */
export async function evaluate(task: Task, split: EvalSplit, codec: TokenCodec, greedy: BatchSampler, limits: RolloutLimits): Promise<EvalResult> {
  const seeds = task.evalSeeds(split);
  const requests = seeds.map((seed, i) => ({ env: task.createEnv(split), seed, rolloutId: i, groupId: i }));
  const samples = await collectRollouts(requests, codec, greedy, limits);
  // One problem is one rollout, however many segments compaction cut it into: its final segment says
  // whether it was solved, and its response length is the action tokens of all its segments.
  const finals = finalSegments(samples);
  const solved = finals.filter(isSuccess).length;
  const length = samples.reduce((n, s) => n + actionTokenCount(s), 0);
  return { success: solved / Math.max(1, finals.length), responseLength: length / Math.max(1, finals.length), samples, finals };
}

export function isSuccess(sample: Sample): boolean {
  const correct = sample.meta.correct;
  return typeof correct === 'boolean' ? correct : sample.reward >= 1;
}
