// Dr.GRPO ("Understanding R1-Zero-Like Training", Liu et al., arXiv:2503.20783, docs/algorithms/grpo.md
// §3): GRPO with its two length and difficulty biases removed. The advantage drops the std division,
// Â_i = R_i − mean_g(R), so groups with a small reward spread are not up-weighted; and the per-response
// 1/|o_i| goes with the reducer `seq-mean-token-sum-norm` (a constant, rl.maxNewTokens), which the
// preset `add-dr-grpo` sets. Models: the policy and the frozen reference; no critic.
// Leaves out: nothing beyond GRPO's omissions; the KL placement and coefficient stay the recipe's.

import { type Algorithm, POLICY, REFERENCE } from './algorithm.ts';
import { clippedPolicyUpdate } from './clipped-policy.ts';
import { groupAdvantages } from './group-baseline.ts';

export const drGrpo: Algorithm = {
  name: 'dr-grpo',
  models: [POLICY, REFERENCE],
  scores: [],
  grouped: true,
  advantages: (inputs) => groupAdvantages(inputs, 'dr-grpo'),
  updates: ({ rl }) => [clippedPolicyUpdate(rl)],
};
