// What distinguishes PPO, GRPO and RLOO in Horizon: the advantage estimator, and whether a critic is
// trained. The loop that samples, scores, updates and logs is shared (train/rl-iteration.ts), as in
// slime where every estimator is a function (batch) → advantages, returns (docs/algorithms/README.md).
//
// Shape legend:  B rows · T positions

import type { Gpu } from '@horizon/kernels';
import type { MetricName } from '../metrics/glossary.ts';
import type { Recipe } from '../recipe/schema.ts';
import type { TrainingRows } from '../train/rows.ts';
import type { Scores } from '../train/scoring.ts';

export interface AdvantageInputs {
  gpu: Gpu;
  rows: TrainingRows;
  scores: Scores;
  /** [B, T] task rewards on their target positions, plus −β·KL per action token when KL is in the reward. */
  tokenRewards: Float32Array;
  recipe: Recipe;
}

export interface AdvantageResult {
  advantages: Float32Array; // [B, T], 0 off the action mask; whitened if the recipe says so
  /** [B, T] critic targets R̂; zeros when the algorithm has no critic. */
  returns: Float32Array;
  metrics: Partial<Record<MetricName, number>>;
}

export interface AdvantageEstimator {
  readonly name: Recipe['rl']['algorithm'];
  /** Trains a critic (value head) beside the policy. */
  readonly usesCritic: boolean;
  advantages(inputs: AdvantageInputs): Promise<AdvantageResult>;
}

/** Mean and standard deviation of `values` where `mask` is 1. */
export function maskedStats(values: ArrayLike<number>, mask: ArrayLike<number>): { mean: number; std: number; count: number } {
  let n = 0;
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    if (!mask[i]) continue;
    n++;
    sum += values[i];
  }
  const mean = n > 0 ? sum / n : 0;
  let sq = 0;
  for (let i = 0; i < values.length; i++) if (mask[i]) sq += (values[i] - mean) ** 2;
  return { mean, std: n > 0 ? Math.sqrt(sq / n) : 0, count: n };
}
