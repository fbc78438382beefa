// The policy update PPO, GRPO, Dr.GRPO and RLOO share in Horizon: the PPO clipped surrogate on
// their advantages, β·KL to the reference in the loss when the recipe places it there (GRPO;
// otherwise it was already subtracted from the rewards), and an entropy bonus when c_H > 0.

import type { Recipe } from '../recipe/schema.ts';
import type { LossTerm, ModelUpdate } from './algorithm.ts';

export function clippedPolicyUpdate(rl: Recipe['rl']): ModelUpdate {
  const terms: LossTerm[] = [{ kind: 'ppo-clip', epsLow: rl.clipLow, epsHigh: rl.clipHigh, dualClip: rl.dualClip }];
  if (rl.klPlacement === 'loss') terms.push({ kind: 'kl', coef: rl.klCoef, estimator: rl.klEstimator });
  if (rl.entropyCoef > 0) terms.push({ kind: 'entropy', coef: rl.entropyCoef });
  return { model: 'policy', lr: rl.policyLr, terms };
}
