// RLOO (Ahmadian et al. 2024, arXiv:2402.14740, docs/algorithms/rloo.md): each rollout's baseline is the
// mean reward of the OTHER rollouts of its prompt, A_i = R_i − mean_{j≠i} R_j = k/(k−1)·(R_i − R̄);
// no std division, so tiny reward spreads are not blown up. As in many frameworks, the advantage is
// plugged into the PPO-clip surrogate rather than plain REINFORCE; the KL usually goes into the reward.
// Models: the policy and the frozen reference; no critic.
// Leaves out: the plain REINFORCE loss of the paper (the clip is inactive on the first epoch anyway).

import { type Algorithm, POLICY, REFERENCE } from './algorithm.ts';
import { clippedPolicyUpdate } from './clipped-policy.ts';
import { groupAdvantages } from './group-baseline.ts';

export const rloo: Algorithm = {
  name: 'rloo',
  models: [POLICY, REFERENCE],
  scores: [],
  grouped: true,
  advantages: (inputs) => groupAdvantages(inputs, 'rloo'),
  updates: ({ rl }) => [clippedPolicyUpdate(rl)],
};
