// PPO with a learned critic and token-level GAE — the estimator GLM-5.2 swung back to from GRPO
// (docs/algorithms/ppo-gae.md). Every action token gets its own baseline V(s_t), so credit can
// differ between the digits of one answer, and no group of rollouts per prompt is needed.
//
// Models: the policy, the frozen reference and a critic (a second GPT with a value head) that the
// clipped value loss trains on every minibatch just before the policy (`rl.criticUpdates` steps,
// default 1); during the critic warm-up (algorithms/critic-warmup.ts) only the critic trains.
//
// Follows: Schulman et al. 2017 (clipped surrogate, recorded in train/update-steps.ts) and 2016 (GAE);
// VC-PPO (arXiv:2503.01491): decoupled λ (λ or VAPO's length-adaptive λ for the policy, λ_critic —
// usually 1 — for the critic's targets) and value pretraining (the warm-up with an explained-variance
// target; preset add-vc-ppo); slime's whitening of advantages over the batch's action tokens. The
// advantages are algorithms/critic-gae.ts, shared with SAO, which also applies compaction's
// cross-segment discount to a compacted rollout's segments (CompactionRL; docs/algorithms/ppo-gae.md §2.5).
// Leaves out: value pretraining on a separate corpus.

import type { Algorithm, ModelDeclaration } from './algorithm.ts';
import { POLICY, REFERENCE } from './algorithm.ts';
import { clippedPolicyUpdate, criticUpdates } from './clipped-policy.ts';
import { criticGaeAdvantages } from './critic-gae.ts';
import { inCriticWarmup } from './critic-warmup.ts';

export const CRITIC: ModelDeclaration = { name: 'critic', role: 'critic', trained: true };

export const ppo: Algorithm = {
  name: 'ppo',
  models: [POLICY, REFERENCE, CRITIC],
  scores: ['values'],
  advantages: criticGaeAdvantages,

  updates({ rl }, iteration, context) {
    const critic = criticUpdates(rl, CRITIC.name);
    return inCriticWarmup(rl, iteration, context) ? critic : [...critic, clippedPolicyUpdate(rl)];
  },
};
