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
//
// Compaction (docs/algorithms/ppo-gae.md §2.5): a compacted segment is terminal in the batch
// (bootstrap 0) and its advantages are scaled by (γλ)^tokensAfter in the kernel; every segment of
// one rollout must use the same λ, so the length-adaptive λ counts the action tokens of the whole
// rollout (all its rows in the batch), and a batch whose rows of one rollout disagree is refused.
//
// Bootstrap of a truncated row: V at its LAST ACTION position, not the position after it. The
// position after the last action token (its input is that token) is never an action position, so
// the value loss never trains it — V there is whatever the critic extrapolates to a state it was
// never fitted on. The last action position is trained in every batch; its state is one token
// earlier than the cut, which is the bias this choice accepts (docs/algorithms/ppo-gae.md §2.1).
//
// Shape legend:  B rows · T positions

import { gaeSampleParams, lengthAdaptiveLambda, recordGae } from '@horizon/kernels';
import type { Recipe } from '../recipe/schema.ts';
import type { TrainingRows } from '../train/rows.ts';
import { type AdvantageInputs, type AdvantageResult, maskedStats } from './algorithm.ts';
import { rawAdvantagesOf, submitAdvantages } from './gpu-advantages.ts';

/**
 * [B] each row's bootstrap value (V at its last action position when truncated, else 0) and λ
 * (rl.lambda, or the length-adaptive λ of its whole rollout), as the header says.
 */
export function criticGaeRowParams(
  rows: Pick<TrainingRows, 'B' | 'T' | 'actionMask' | 'terminal' | 'rolloutIds'>,
  values: ArrayLike<number>,
  rl: Pick<Recipe['rl'], 'lambda' | 'lambdaAlpha'>,
): { bootstrap: Float32Array; lambda: Float32Array } {
  const { B, T, actionMask } = rows;
  const bootstrap = new Float32Array(B);
  const rolloutTokens = new Map<number, number>();
  for (let b = 0; b < B; b++) {
    let last = -1;
    let tokens = 0;
    for (let t = 0; t < T; t++) {
      if (!actionMask[b * T + t]) continue;
      last = t;
      tokens++;
    }
    if (!rows.terminal[b] && last >= 0) bootstrap[b] = values[b * T + last];
    rolloutTokens.set(rows.rolloutIds[b], (rolloutTokens.get(rows.rolloutIds[b]) ?? 0) + tokens);
  }
  const lambda =
    rl.lambdaAlpha > 0
      ? lengthAdaptiveLambda(
          Array.from(rows.rolloutIds, (id) => rolloutTokens.get(id) ?? 0),
          rl.lambdaAlpha,
        )
      : new Float32Array(B).fill(rl.lambda);
  checkOneLambdaPerRollout(rows.rolloutIds, lambda);
  return { bootstrap, lambda };
}

/** Refuses rows of one rollout (its compaction segments) with different λ: (γλ)^tokensAfter stitches them only under one λ. */
export function checkOneLambdaPerRollout(rolloutIds: ArrayLike<number>, lambda: ArrayLike<number>): void {
  const seen = new Map<number, number>();
  for (let b = 0; b < rolloutIds.length; b++) {
    const first = seen.get(rolloutIds[b]);
    if (first === undefined) seen.set(rolloutIds[b], lambda[b]);
    else if (first !== lambda[b])
      throw new RangeError(
        `the segments of rollout ${rolloutIds[b]} have GAE λ ${first} and ${lambda[b]}; the cross-segment discount (γλ)^tokensAfter needs one λ per rollout`,
      );
  }
}

export async function criticGaeAdvantages({ gpu, rows, scores, tokenRewards, recipe, batch }: AdvantageInputs): Promise<AdvantageResult> {
  const { B, T, actionMask } = rows;
  const values = scores.values;
  if (!values) throw new Error(`${recipe.rl.algorithm}: the batch was scored without a critic`);
  const { bootstrap, lambda } = criticGaeRowParams(rows, values, recipe.rl);
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
