// Float64 reference for Schulman's KL estimators (docs/algorithms/README.md §4, http://joschu.net/blog/kl-approx.html)
// on a token sampled from π_θ, with Δ = ℓ − ℓ_ref (so r = π_ref/π_θ = e^{−Δ}):
//   k1 = Δ                     dk1/dℓ = 1          (unbiased, can be negative)
//   k2 = ½Δ²                   dk2/dℓ = Δ          (biased, low variance)
//   k3 = e^{−Δ} − 1 + Δ ≥ 0    dk3/dℓ = 1 − e^{−Δ} (unbiased for KL(π_θ‖π_ref), low variance)
// For k3, Δ is clamped to [−20, 20] before exp (verl's `low_var_kl`; e^{20} ≈ 4.9e8 keeps f32 finite),
// with zero gradient where the clamp binds.
// Shapes: logp, refLogp, mask [B, T]; scales [B].

/** The estimators above; the recipe's `rl.klEstimator` choices are this list. */
export const KL_ESTIMATORS = ['k1', 'k2', 'k3'] as const;

export type KlEstimator = (typeof KL_ESTIMATORS)[number];

export function tokenKlRef(logp: number, refLogp: number, estimator: KlEstimator): { value: number; dvalue: number } {
  const d = logp - refLogp;
  if (estimator === 'k1') return { value: d, dvalue: 1 };
  if (estimator === 'k2') return { value: 0.5 * d * d, dvalue: d };
  // expm1 avoids the cancellation of e^{−Δ} − 1 for tiny Δ, which even in float64 can dip below 0.
  const dc = Math.min(20, Math.max(-20, d));
  return { value: Math.max(0, Math.expm1(-dc) + dc), dvalue: Math.abs(d) > 20 ? 0 : -Math.expm1(-dc) };
}

export function klRef(
  inputs: { logp: ArrayLike<number>; refLogp: ArrayLike<number>; mask: ArrayLike<number>; scales: ArrayLike<number> },
  options: { B: number; T: number; estimator: KlEstimator; coef?: number },
): { kl: number; perToken: Float64Array; grad: Float64Array } {
  const { B, T } = options;
  const coef = options.coef ?? 1;
  const perToken = new Float64Array(B * T);
  const grad = new Float64Array(B * T);
  let kl = 0;
  for (let i = 0; i < B * T; i++) {
    if (!inputs.mask[i]) continue;
    const r = tokenKlRef(inputs.logp[i], inputs.refLogp[i], options.estimator);
    const w = inputs.scales[Math.floor(i / T)];
    perToken[i] = r.value;
    grad[i] = coef * w * r.dvalue;
    kl += w * r.value;
  }
  return { kl, perToken, grad };
}
