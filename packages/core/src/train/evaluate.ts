// Evaluation on the task's fixed problem sets: greedy decoding (temperature 0), so a model's score
// is a property of its weights alone, the same on every run that reaches the same weights.

import { type BatchSampler, collectRollouts, type RolloutLimits, type TokenCodec } from '../envs/episode.ts';
import type { Sample } from '../envs/sample.ts';
import type { EvalSplit, Task } from '../envs/tasks.ts';

export interface EvalResult {
  success: number;
  responseLength: number;
  samples: Sample[];
}

/** Runs every episode of `split` once and returns the fraction solved (environment `info.correct`, else reward ≥ 1). */
export async function evaluate(task: Task, split: EvalSplit, codec: TokenCodec, greedy: BatchSampler, limits: RolloutLimits): Promise<EvalResult> {
  const seeds = task.evalSeeds(split);
  const requests = seeds.map((seed, i) => ({ env: task.createEnv(split), seed, rolloutId: i, groupId: i }));
  const samples = await collectRollouts(requests, codec, greedy, limits);
  let solved = 0;
  let length = 0;
  for (const s of samples) {
    if (isSuccess(s)) solved++;
    length += s.actionMask.reduce((a, m) => a + m, 0);
  }
  return { success: solved / Math.max(1, samples.length), responseLength: length / Math.max(1, samples.length), samples };
}

export function isSuccess(sample: Sample): boolean {
  const correct = sample.meta.correct;
  return typeof correct === 'boolean' ? correct : sample.reward >= 1;
}
