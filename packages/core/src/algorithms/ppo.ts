// PPO with a learned critic and token-level GAE — the estimator GLM-5.2 swung back to from GRPO
// (docs/algorithms/ppo-gae.md). Every action token gets its own baseline V(s_t), so credit can
// differ between the digits of one answer, and no group of rollouts per prompt is needed.
//
// Models: the policy, the frozen reference and a critic (a second GPT with a value head) that the
// clipped value loss trains on every minibatch just before the policy; during the recipe's critic
// warm-up iterations only the critic trains.
//
// Follows: Schulman et al. 2017 (clipped surrogate, recorded in train/update-steps.ts) and 2016 (GAE);
// VC-PPO's decoupled λ (λ for the policy, λ_critic — usually 1 — for the critic's targets); slime's
// whitening of advantages over the batch's action tokens. The value convention is docs/algorithms/
// README.md §2: V[t] is read where the logits predicting token t+1 are.
// Leaves out: value pretraining beyond the recipe's critic warm-up iterations, length-adaptive λ and
// compaction's cross-segment discount (the GAE kernel supports both; addition needs neither).
//
// Shape legend:  B rows · T positions

import { gae, whiten } from '@horizon/kernels';
import { type AdvantageInputs, type AdvantageResult, type Algorithm, type ModelDeclaration, maskedStats, POLICY, REFERENCE } from './algorithm.ts';
import { clippedPolicyUpdate } from './clipped-policy.ts';

const CRITIC: ModelDeclaration = { name: 'critic', role: 'critic', trained: true };

export const ppo: Algorithm = {
  name: 'ppo',
  models: [POLICY, REFERENCE, CRITIC],
  scores: ['values'],

  async advantages({ gpu, rows, scores, tokenRewards, recipe }: AdvantageInputs): Promise<AdvantageResult> {
    const { B, T, actionMask } = rows;
    const values = scores.values;
    if (!values) throw new Error('ppo: the batch was scored without a critic');
    // A truncated row bootstraps from V after its last token: the position whose input is that token.
    const bootstrap = new Float32Array(B);
    for (let b = 0; b < B; b++) {
      let last = -1;
      for (let t = 0; t < T; t++) if (actionMask[b * T + t]) last = t;
      if (!rows.terminal[b] && last >= 0 && last + 1 < T) bootstrap[b] = values[b * T + last + 1];
    }
    const { advantages, returns } = await gae(
      gpu,
      { rewards: tokenRewards, values, actionMask, bootstrap },
      { B, T, gamma: recipe.rl.gamma, lambda: recipe.rl.lambda, lambdaCritic: recipe.rl.lambdaCritic, terminal: rows.terminal, tokensAfter: rows.tokensAfter },
    );
    const raw = maskedStats(advantages, actionMask);
    const value = maskedStats(values, actionMask);
    const ret = maskedStats(returns, actionMask);
    const residual = maskedStats(
      Float32Array.from(returns, (r, i) => r - values[i]),
      actionMask,
    );
    // Undefined when the targets barely vary (all rewards equal): report 0, "no better than a constant".
    const explainedVar = ret.std > 1e-6 ? 1 - residual.std ** 2 / ret.std ** 2 : 0;
    const final = recipe.rl.whiten ? (await whiten(gpu, { values: advantages, mask: actionMask }, { B, T })).whitened : advantages;
    return {
      advantages: final,
      returns,
      metrics: {
        'rollout/advantage_mean': raw.mean,
        'rollout/advantage_std': raw.std,
        'critic/value_mean': value.mean,
        'critic/return_mean': ret.mean,
        'critic/explained_var': explainedVar,
      },
    };
  },

  updates({ rl }, iteration) {
    const critic = { model: CRITIC.name, lr: rl.criticLr, terms: [{ kind: 'value', clip: rl.valueClip }] } as const;
    return iteration < rl.criticWarmupSteps ? [critic] : [critic, clippedPolicyUpdate(rl)];
  },
};
