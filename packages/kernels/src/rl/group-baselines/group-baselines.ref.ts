// Float64 reference for the outcome-reward group baselines (docs/algorithms/grpo.md, docs/algorithms/rloo.md):
//   GRPO:    A_i = (R_i − mean_g) / (std_g + ε), std_g the SAMPLE std (n − 1, as torch.std in verl
//            and TRL), ε = 1e-6 (verl, slime).
//   Dr.GRPO: A_i = R_i − mean_g                 (no std division, arXiv:2503.20783)
//   RLOO:    A_i = R_i − (Σ_{j≠i} R_j)/(n − 1) = n/(n − 1)·(R_i − mean_g)
// A group of one sample has no comparison: its advantage is 0 for every estimator (as TRL; verl's
// mean 0 / std 1 instead turns a singleton's raw score into its advantage).
// Shapes: rewards, groupIds [N] (groups need not be contiguous).

export type GroupEstimator = 'grpo' | 'dr-grpo' | 'rloo';

export const GRPO_EPS = 1e-6;

export function groupBaselinesRef(rewards: ArrayLike<number>, groupIds: ArrayLike<number>, estimator: GroupEstimator, eps = GRPO_EPS): Float64Array {
  const members = new Map<number, number[]>();
  for (let i = 0; i < rewards.length; i++) members.set(groupIds[i], [...(members.get(groupIds[i]) ?? []), i]);
  const out = new Float64Array(rewards.length);
  for (const idx of members.values()) {
    const n = idx.length;
    if (n === 1) continue;
    const mean = idx.reduce((a, i) => a + rewards[i], 0) / n;
    const std = Math.sqrt(idx.reduce((a, i) => a + (rewards[i] - mean) ** 2, 0) / (n - 1));
    for (const i of idx) {
      if (estimator === 'grpo') out[i] = (rewards[i] - mean) / (std + eps);
      else if (estimator === 'dr-grpo') out[i] = rewards[i] - mean;
      else out[i] = rewards[i] - idx.filter((j) => j !== i).reduce((a, j) => a + rewards[j], 0) / (n - 1);
    }
  }
  return out;
}
