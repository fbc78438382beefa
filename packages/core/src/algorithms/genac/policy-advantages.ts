// The actor's advantages under GenAC: the generative critic gives one value per rollout, from its
// prompt alone (the actor's prompt, size and win rate; critic-prompt.ts), and PPO uses it as the
// baseline of every action token of that rollout:
//
//   A_bt = G_bt − v_b,    G_bt = Σ_{k ≥ t, k an action position} γ^(k−t) r_bk
//
// with r the token rewards (the task reward on the last action token, −β·KL per token when the KL
// is in the reward). Only the value at the answer is read — the paper's critic values states
// token by token; one value per rollout is the simplest reading of it that a prompt-only critic
// supports, and on the single-turn arithmetic tasks GenAC trains every action token follows the
// same prompt. With a value per token this would be GAE (algorithms/critic-gae.ts); with a constant
// baseline GAE at λ = 1 is exactly this sum, so no λ is read. A truncated answer gets no bootstrap: its
// reward is what it earned (0 for an unfinished sum). Whitening, when rl.whiten, is slime's, over
// the batch's action tokens, as the other methods' (kernels' whitenRef, the same formula as the kernel).
//
// Shape legend:  B rows · T positions

import { WHITEN_EPS, whitenRef } from '@horizon/kernels';
import type { TrainingRows } from '../../train/rows.ts';

/** [B, T] the advantages above, 0 off the action mask; `values[b]` is row b's baseline. */
export function baselineAdvantages(
  rows: Pick<TrainingRows, 'B' | 'T' | 'actionMask'>,
  tokenRewards: ArrayLike<number>,
  values: ArrayLike<number>,
  gamma: number,
): Float32Array {
  const { B, T, actionMask } = rows;
  const advantages = new Float32Array(B * T);
  for (let b = 0; b < B; b++) {
    let ret = 0;
    for (let t = T - 1; t >= 0; t--) {
      const i = b * T + t;
      if (!actionMask[i]) continue;
      ret = tokenRewards[i] + gamma * ret;
      advantages[i] = ret - values[b];
    }
  }
  return advantages;
}

/** The advantages whitened over the action tokens (mean 0, variance 1), 0 elsewhere. */
export function whitened(advantages: Float32Array, mask: ArrayLike<number>): Float32Array {
  return Float32Array.from(whitenRef(advantages, mask, WHITEN_EPS).whitened);
}
