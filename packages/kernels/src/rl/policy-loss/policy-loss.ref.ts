// Float64 reference for the policy losses, from docs/algorithms/ppo-gae.md §4 and docs/algorithms/sao-dis.md §1 (minimized, per token):
//
// PPO clipped surrogate (asymmetric ε, optional dual clip c > 1, arXiv:1912.09729):
//   ρ = exp(clamp(ℓ − ℓ_old, −20, 20))   (the log-ratio clamp of verl/OpenRLHF keeps exp finite)
//   L1 = −A·ρ,  L2 = −A·clip(ρ, 1 − ε_low, 1 + ε_high),  pg = max(L1, L2)
//   dual clip (A < 0 only): pg = min(pg, −c·A)
//   dpg/dℓ = −A·ρ on the L1 branch, 0 where L2 > L1 (clipped), where the dual clip binds, or where
//   the log-ratio clamp binds (as autograd of the same expression gives).
// SAO's DIS (direct double-sided importance sampling, eqs. 1–3), weight detached:
//   ρ = exp(clamp(ℓ − ℓ_roll, −20, 20)),  w = ρ if 1 − ε_low < ρ < 1 + ε_high (STRICT) else 0
//   pg = −sg(w)·A·ℓ,  dpg/dℓ = −w·A
//   (tokens outside the band leave the gradient whatever the sign of A.)
//
// Shapes: logp, oldLogp, advantages [B, T]; mask [B, T]; scales [B] (aggregation, scales.ts).

export type PolicyLossKind = 'ppo' | 'dis';

export interface PolicyLossParams {
  kind: PolicyLossKind;
  epsLow: number;
  epsHigh: number;
  /** PPO dual-clip constant c > 1; 0 or undefined: off. */
  dualClip?: number;
}

export interface TokenPolicyLoss {
  value: number;
  dvalue: number;
  /** PPO: clipped with A < 0 (ρ < 1 − ε_low); DIS: masked below the band (ρ ≤ 1 − ε_low). */
  low: boolean;
  /** PPO: clipped with A > 0 (ρ > 1 + ε_high); DIS: masked above the band (ρ ≥ 1 + ε_high). */
  high: boolean;
  /** PPO: the dual clip bound. */
  dual: boolean;
  ratio: number;
}

export function tokenPolicyLossRef(logp: number, oldLogp: number, advantage: number, params: PolicyLossParams): TokenPolicyLoss {
  const d = logp - oldLogp;
  const ratio = Math.exp(Math.min(20, Math.max(-20, d)));
  const A = advantage;
  if (params.kind === 'dis') {
    const inBand = ratio > 1 - params.epsLow && ratio < 1 + params.epsHigh;
    const w = inBand ? ratio : 0;
    return { value: -w * A * logp, dvalue: -w * A, low: ratio <= 1 - params.epsLow, high: ratio >= 1 + params.epsHigh, dual: false, ratio };
  }
  const l1 = -A * ratio;
  const l2 = -A * Math.min(1 + params.epsHigh, Math.max(1 - params.epsLow, ratio));
  const clipped = l2 > l1;
  let value = Math.max(l1, l2);
  let dvalue = clipped || Math.abs(d) > 20 ? 0 : -A * ratio;
  let dual = false;
  const c = params.dualClip ?? 0;
  if (c > 0 && A < 0 && value > -c * A) {
    value = -c * A;
    dvalue = 0;
    dual = true;
  }
  return { value, dvalue, low: clipped && A < 0, high: clipped && A > 0, dual, ratio };
}

export interface PolicyLossRefResult {
  loss: number;
  perToken: Float64Array;
  grad: Float64Array;
  lowFraction: number;
  highFraction: number;
  dualFraction: number;
}

export function policyLossRef(
  inputs: { logp: ArrayLike<number>; oldLogp: ArrayLike<number>; advantages: ArrayLike<number>; mask: ArrayLike<number>; scales: ArrayLike<number> },
  options: PolicyLossParams & { B: number; T: number },
): PolicyLossRefResult {
  const { B, T } = options;
  const perToken = new Float64Array(B * T);
  const grad = new Float64Array(B * T);
  let loss = 0;
  let n = 0;
  let low = 0;
  let high = 0;
  let dual = 0;
  for (let i = 0; i < B * T; i++) {
    if (!inputs.mask[i]) continue;
    const r = tokenPolicyLossRef(inputs.logp[i], inputs.oldLogp[i], inputs.advantages[i], options);
    const w = inputs.scales[Math.floor(i / T)];
    perToken[i] = r.value;
    grad[i] = w * r.dvalue;
    loss += w * r.value;
    n++;
    low += Number(r.low);
    high += Number(r.high);
    dual += Number(r.dual);
  }
  const frac = (x: number) => (n > 0 ? x / n : 0);
  return { loss, perToken, grad, lowFraction: frac(low), highFraction: frac(high), dualFraction: frac(dual) };
}
