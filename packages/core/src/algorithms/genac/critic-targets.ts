// What the generative critic is trained towards. Both of GenAC's steps aim at the same target, the
// Monte-Carlo value of a prompt under the current actor: the mean reward of the prompt's group of
// rollouts (rl.groupSize of them, all in the batch). Step 1 (SFT) writes it as the value digit;
// step 2 (REINFORCE, the actor frozen) rewards each critic sample by how close its value came:
//
//   r_b = −(v_b − MC_g)²        v_b = digit_b / 10 of critic sample b, g = b's prompt group
//   r_b = −1                     when sample b is malformed (value-digit.ts): the worst a well-formed value can score
//   A_b = r_b − mean_{b' ∈ g} r_b'   (a group baseline; a group of one has A = 0)
//
// Why the squared error and not |v − MC|: minimising E[(v − R)²] gives the mean of the return, its
// value; minimising E|v − R| gives its median, which for a 0/1 reward is 0 or 1 whatever the success
// rate. Against a group mean the two are closer, but only the squared error is unbiased for the mean.
// The REINFORCE loss over the critic's own tokens (mask m, token-mean scales s) is
//
//   L = −Σ_b s_b · A_b · Σ_t m_bt · log π_c(y_bt | y_<t)
//
// — a weighted cross-entropy on what the critic wrote, which is how critic-training.ts steps it.
//
// Shape legend:  B critic samples (one per rollout) · T positions

/** [B] each row's Monte-Carlo value: the mean reward of the rows sharing its group id. */
export function monteCarloValues(groupIds: ArrayLike<number>, rewards: ArrayLike<number>): Float64Array {
  const sum = new Map<number, number>();
  const count = new Map<number, number>();
  for (let b = 0; b < groupIds.length; b++) {
    sum.set(groupIds[b], (sum.get(groupIds[b]) ?? 0) + rewards[b]);
    count.set(groupIds[b], (count.get(groupIds[b]) ?? 0) + 1);
  }
  return Float64Array.from(groupIds, (g) => (sum.get(g) as number) / (count.get(g) as number));
}

/** [B] REINFORCE rewards of the critic's samples; `values[b]` undefined = malformed. */
export function criticRewards(values: readonly (number | undefined)[], mc: ArrayLike<number>): Float64Array {
  return Float64Array.from(values, (v, b) => (v === undefined ? -1 : -((v - mc[b]) ** 2)));
}

/** [B] each reward minus the mean reward of its group. */
export function groupCentred(groupIds: ArrayLike<number>, rewards: ArrayLike<number>): Float64Array {
  const mean = monteCarloValues(groupIds, rewards);
  return Float64Array.from(rewards, (r, b) => r - mean[b]);
}

/** The REINFORCE loss above in float64, from the critic's log-probs [B, T], its mask [B, T] and per-row advantages [B], with token-mean scales. */
export function reinforceLossRef(logp: ArrayLike<number>, mask: ArrayLike<number>, advantages: ArrayLike<number>, B: number, T: number): number {
  let tokens = 0;
  for (let i = 0; i < B * T; i++) tokens += mask[i] ? 1 : 0;
  if (tokens === 0) return 0;
  let loss = 0;
  for (let b = 0; b < B; b++) for (let t = 0; t < T; t++) if (mask[b * T + t]) loss -= (advantages[b] * logp[b * T + t]) / tokens;
  return loss;
}
