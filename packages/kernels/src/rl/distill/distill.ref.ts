// Float64 reference for the distillation advantage modifiers, applied after the base estimator
// (docs/algorithms/distillation.md; slime's design):
//
// On-policy distillation, slime form (docs/algorithms/distillation.md §1, `apply_opd_kl_to_advantages`): per token, no discounting,
//   k_t = ℓ^S_t − ℓ^T_t                (sampled reverse-KL estimate, student vs teacher, same token ids)
//   Â_t = m_t·(A_t − λ_opd·k_t)        (A = 0 and reward 0 for pure distillation; slime λ_opd = 1)
// OPID skill advantage (docs/algorithms/distillation.md §2, jinyangwu/OPID `core_gigpo.py`), both log-probs from π_old on the same
// sampled response, detached:
//   Δ_t = m_t·q_b·(ℓ(y_t | h̃, y_<t) − ℓ(y_t | h, y_<t))   (h̃: context with the routed skill injected;
//                                                          q_b = 0 where the analyzer failed)
//   Â_t = m_t·(A^ep_t + w·Δ_t)         (authors' w = 1e-3)
// With an empty skill h̃ = h, so Δ = 0 exactly.
// Shapes: all [B, T] except q [B].

export function opdRef(
  inputs: { studentLogp: ArrayLike<number>; teacherLogp: ArrayLike<number>; mask: ArrayLike<number>; advantages?: ArrayLike<number> },
  coef: number,
) {
  const N = inputs.mask.length;
  const reverseKl = new Float64Array(N);
  const advantages = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    if (!inputs.mask[i]) continue;
    reverseKl[i] = inputs.studentLogp[i] - inputs.teacherLogp[i];
    advantages[i] = (inputs.advantages?.[i] ?? 0) - coef * reverseKl[i];
  }
  return { reverseKl, advantages };
}

export function opidRef(
  inputs: {
    episodeAdvantages: ArrayLike<number>;
    augmentedLogp: ArrayLike<number>;
    originalLogp: ArrayLike<number>;
    mask: ArrayLike<number>;
    skillWeight?: ArrayLike<number>;
  },
  T: number,
  weight: number,
) {
  const N = inputs.mask.length;
  const delta = new Float64Array(N);
  const advantages = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    if (!inputs.mask[i]) continue;
    delta[i] = (inputs.skillWeight?.[Math.floor(i / T)] ?? 1) * (inputs.augmentedLogp[i] - inputs.originalLogp[i]);
    advantages[i] = inputs.episodeAdvantages[i] + weight * delta[i];
  }
  return { delta, advantages };
}
