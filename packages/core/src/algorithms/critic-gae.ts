// The advantages of the critic methods (PPO, SAO): token-level skip-observation GAE on the critic's
// values, with VC-PPO's decoupled λ (rl.lambda for the policy's advantages, rl.lambdaCritic for the
// critic's targets) and, when rl.lambdaAlpha > 0, VAPO's length-adaptive policy λ per sample,
// λ_b = 1 − 1/(α·l_b) with l_b the sample's action tokens (SAO uses α = 1.5 with λ_critic = 1).
// The value convention is docs/algorithms/README.md §2: V[t] is read where the logits predicting
// token t+1 are. Equations: docs/algorithms/ppo-gae.md §2.
// On the GPU: GAE and whitening are recorded into one encoder on the batch's tensors, where V already
// is (gpu-advantages.ts). The host computes only what needs its own copy of the batch: the token
// rewards with their KL shaping (the loop's, from log π_old and log π_ref read back at scoring), each
// truncated row's bootstrap value and each row's λ, B numbers each, and the metrics.
// Leaves out: compaction's cross-segment discount beyond passing `tokensAfter` (always 0 today).
//
// Shape legend:  B rows · T positions

import { gaeSampleParams, lengthAdaptiveLambda, recordGae } from '@horizon/kernels';
import { type AdvantageInputs, type AdvantageResult, maskedStats } from './algorithm.ts';
import { rawAdvantagesOf, submitAdvantages } from './gpu-advantages.ts';

export async function criticGaeAdvantages({ gpu, rows, scores, tokenRewards, recipe, batch }: AdvantageInputs): Promise<AdvantageResult> {
  const { B, T, actionMask } = rows;
  const values = scores.values;
  if (!values) throw new Error(`${recipe.rl.algorithm}: the batch was scored without a critic`);
  // A truncated row bootstraps from V after its last token: the position whose input is that token.
  const bootstrap = new Float32Array(B);
  const actionTokens = new Float32Array(B);
  for (let b = 0; b < B; b++) {
    let last = -1;
    for (let t = 0; t < T; t++) {
      if (!actionMask[b * T + t]) continue;
      last = t;
      actionTokens[b]++;
    }
    if (!rows.terminal[b] && last >= 0 && last + 1 < T) bootstrap[b] = values[b * T + last + 1];
  }
  const lambda = recipe.rl.lambdaAlpha > 0 ? lengthAdaptiveLambda(actionTokens, recipe.rl.lambdaAlpha) : recipe.rl.lambda;
  const { lambdas, info } = gaeSampleParams(B, { lambda, lambdaCritic: recipe.rl.lambdaCritic, terminal: rows.terminal, tokensAfter: rows.tokensAfter });
  gpu.write(batch.tokenRewards, tokenRewards);
  gpu.write(batch.bootstrap, bootstrap);
  gpu.write(batch.lambdas, lambdas);
  gpu.write(batch.info, info);
  const { whiten } = recipe.rl;
  const rec = gpu.begin('advantages');
  recordGae(
    rec,
    gpu,
    {
      rewards: batch.tokenRewards,
      values: batch.values,
      mask: batch.mask,
      bootstrap: batch.bootstrap,
      lambdas: batch.lambdas,
      info: batch.info,
      advantages: rawAdvantagesOf(batch, whiten),
      returns: batch.returns,
    },
    { B, T, gamma: recipe.rl.gamma },
  );
  const recorded = await submitAdvantages(gpu, rec, batch, { whiten, returns: true });
  const returns = recorded.returns as Float32Array;
  const raw = maskedStats(recorded.raw, actionMask);
  const value = maskedStats(values, actionMask);
  const ret = maskedStats(returns, actionMask);
  const residual = maskedStats(
    Float32Array.from(returns, (r, i) => r - values[i]),
    actionMask,
  );
  // Undefined when the targets barely vary (all rewards equal): report 0, "no better than a constant".
  const explainedVar = ret.std > 1e-6 ? 1 - residual.std ** 2 / ret.std ** 2 : 0;
  return {
    advantages: recorded.advantages,
    returns,
    onGpu: true,
    metrics: {
      'rollout/advantage_mean': raw.mean,
      'rollout/advantage_std': raw.std,
      'critic/value_mean': value.mean,
      'critic/return_mean': ret.mean,
      'critic/explained_var': explainedVar,
    },
  };
}
