// GRPO (DeepSeekMath, arXiv:2402.03300, docs/algorithms/grpo.md): G rollouts per prompt; each rollout's
// advantage is its reward's z-score within the group, Â_i = (R_i − mean(R)) / (std(R) + ε),
// broadcast to all its tokens; no critic. The KL to the reference usually goes into the loss (k3),
// which the recipe's `rl.klPlacement` decides. Std convention and ε: kernels/src/rl/group-baselines.
// Leaves out: process supervision (step rewards) and DAPO's dynamic sampling of zero-variance groups.

import type { AdvantageEstimator } from './algorithm.ts';
import { groupAdvantages } from './group-baseline.ts';

export const grpo: AdvantageEstimator = {
  name: 'grpo',
  usesCritic: false,
  advantages: (inputs) => groupAdvantages(inputs, 'grpo'),
};
