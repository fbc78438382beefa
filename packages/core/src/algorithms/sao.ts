// SAO, "Single-Rollout Asynchronous Optimization for Agentic RL" (Hou, Li, Tang, Dong;
// arXiv:2607.07508; docs/algorithms/sao-dis.md): critic-based PPO on single rollouts, the method its
// authors describe as GLM-5.2's agentic RL pipeline.
//
//   advantages  token-level skip-observation GAE on the critic's values, λ_critic = rl.lambdaCritic
//               (SAO: 1) and length-adaptive λ for the policy when rl.lambdaAlpha > 0 (SAO: 1.5);
//               the code is PPO's (algorithms/critic-gae.ts)
//   critic      rl.criticUpdates value-loss steps per minibatch (SAO's faster value update, K = 2),
//               all on the targets computed once at scoring, then the policy step: K critic
//               updates per policy update, as the paper states; with attention frozen when
//               sao.freezeCriticAttention (Q, K, V and output projections of every block)
//   policy      DIS (eqs. 1–3) against π_roll, band (1 − rl.disLow, 1 + rl.disHigh), always: SAO is
//               defined by it (rl.policyLoss chooses the other methods' surrogate); KL and entropy
//               terms as the recipe places them
//   warm-up     rl.criticWarmupSteps critic-only iterations (SAO: 10), algorithms/critic-warmup.ts
//
// Leaves out: the asynchronous rollout queue (the rollout-lag simulator, train/policy-history.ts,
// stands in for it: rl.rolloutLag), recomputing the critic's values between its K steps and the
// policy's advantages (one re-implementation does; the advantages here come from the values at
// scoring), and value pretraining on a separate large corpus.

import type { Algorithm } from './algorithm.ts';
import { POLICY, REFERENCE } from './algorithm.ts';
import { clippedPolicyUpdate, criticUpdates } from './clipped-policy.ts';
import { criticGaeAdvantages } from './critic-gae.ts';
import { inCriticWarmup } from './critic-warmup.ts';
import { CRITIC } from './ppo.ts';

/** A block's attention parameters by nanoGPT's names (model/parameters.ts): c_attn and c_proj of `.attn.`. */
const ATTENTION = /^transformer\.h\.\d+\.attn\./;

export const sao: Algorithm = {
  name: 'sao',
  models: [POLICY, REFERENCE, CRITIC],
  scores: ['values'],
  advantages: criticGaeAdvantages,

  updates({ rl }, iteration, context) {
    const critic = criticUpdates(rl, CRITIC.name);
    return inCriticWarmup(rl, iteration, context) ? critic : [...critic, clippedPolicyUpdate(rl, 'dis')];
  },

  frozenParameters({ sao: options }, model, parameterNames) {
    return model === CRITIC.name && options.freezeCriticAttention ? parameterNames.filter((name) => ATTENTION.test(name)) : [];
  },
};
