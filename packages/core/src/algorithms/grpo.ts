// GRPO (DeepSeekMath, arXiv:2402.03300, docs/algorithms/grpo.md): G rollouts per prompt; each rollout's
// advantage is its reward's z-score within the group, Â_i = (R_i − mean(R)) / (std(R) + ε),
// broadcast to all its tokens; no critic. The KL to the reference usually goes into the loss (k3),
// which the recipe's `rl.klPlacement` decides. Std convention and ε: kernels/src/rl/group-baselines.
// Models: the policy and the frozen reference; the policy trains on the shared clipped surrogate.
// Leaves out: process supervision (step rewards). DAPO's dynamic sampling is the loop's (rl.dynamicSampling).

import { type Algorithm, POLICY, REFERENCE } from './algorithm.ts';
import { clippedPolicyUpdate } from './clipped-policy.ts';
import { groupAdvantages } from './group-baseline.ts';

export const grpo: Algorithm = {
  name: 'grpo',
  models: [POLICY, REFERENCE],
  scores: [],
  grouped: true,
  advantages: (inputs) => groupAdvantages(inputs, 'grpo'),
  updates: ({ rl }) => [clippedPolicyUpdate(rl)],
};
