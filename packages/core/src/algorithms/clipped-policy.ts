// The policy update PPO, GRPO, Dr.GRPO and RLOO share in Horizon: the recipe's surrogate on their
// advantages (`rl.policyLoss`: the PPO clipped ratio to π_old, or SAO's DIS band-masked ratio to
// π_roll, docs/algorithms/sao-dis.md §1), β·KL to the reference in the loss when the recipe places it
// there (GRPO; otherwise it was already subtracted from the rewards), and an entropy bonus when c_H > 0.

import type { Recipe } from '../recipe/schema.ts';
import type { LossTerm, ModelUpdate } from './algorithm.ts';

export function clippedPolicyUpdate(rl: Recipe['rl'], surrogate: Recipe['rl']['policyLoss'] = rl.policyLoss): ModelUpdate {
  const terms: LossTerm[] = [
    surrogate === 'dis'
      ? { kind: 'dis', epsLow: rl.disLow, epsHigh: rl.disHigh }
      : { kind: 'ppo-clip', epsLow: rl.clipLow, epsHigh: rl.clipHigh, dualClip: rl.dualClip },
  ];
  if (rl.klPlacement === 'loss') terms.push({ kind: 'kl', coef: rl.klCoef, estimator: rl.klEstimator });
  if (rl.entropyCoef > 0) terms.push({ kind: 'entropy', coef: rl.entropyCoef });
  return { model: 'policy', lr: rl.policyLr, terms };
}

/** The critic's steps on each minibatch: `rl.criticUpdates` value-loss steps on the same targets (SAO's K). */
export function criticUpdates(rl: Recipe['rl'], critic: string): ModelUpdate[] {
  const update: ModelUpdate = { model: critic, lr: rl.criticLr, terms: [{ kind: 'value', clip: rl.valueClip }] };
  return Array.from({ length: rl.criticUpdates }, () => update);
}
