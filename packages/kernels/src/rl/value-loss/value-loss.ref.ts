// Float64 reference for the clipped value loss (docs/algorithms/ppo-gae.md §5; verl `compute_value_loss`):
//   V_clip = V_old + clamp(V − V_old, −ε_v, ε_v)
//   L = ½·max((V − R̂)², (V_clip − R̂)²)     (½ as verl, TRL, OpenRLHF, cleanrl; slime omits it)
//   dL/dV = V − R̂ on the unclipped branch, 0 where the clipped branch is strictly larger (there
//   |V − V_old| > ε_v, so V_clip does not move with V). Without ε_v: L = ½(V − R̂)².
// Shapes: values, oldValues, returns, mask [B, T]; scales [B].

export function tokenValueLossRef(V: number, Vold: number, R: number, clip: number | undefined): { value: number; dvalue: number; clipped: boolean } {
  const e1 = V - R;
  // Inside the clip range V_clip = V exactly (V_old + (V − V_old) may round away from V).
  if (clip === undefined || Math.abs(V - Vold) <= clip) return { value: 0.5 * e1 * e1, dvalue: e1, clipped: false };
  const e2 = Vold + Math.min(clip, Math.max(-clip, V - Vold)) - R;
  if (e2 * e2 > e1 * e1) return { value: 0.5 * e2 * e2, dvalue: 0, clipped: true };
  return { value: 0.5 * e1 * e1, dvalue: e1, clipped: false };
}

export function valueLossRef(
  inputs: { values: ArrayLike<number>; oldValues: ArrayLike<number>; returns: ArrayLike<number>; mask: ArrayLike<number>; scales: ArrayLike<number> },
  options: { B: number; T: number; clip?: number },
): { loss: number; perToken: Float64Array; grad: Float64Array; clipFraction: number } {
  const { B, T } = options;
  const perToken = new Float64Array(B * T);
  const grad = new Float64Array(B * T);
  let loss = 0;
  let n = 0;
  let clipped = 0;
  for (let i = 0; i < B * T; i++) {
    if (!inputs.mask[i]) continue;
    const r = tokenValueLossRef(inputs.values[i], inputs.oldValues[i], inputs.returns[i], options.clip);
    const w = inputs.scales[Math.floor(i / T)];
    perToken[i] = r.value;
    grad[i] = w * r.dvalue;
    loss += w * r.value;
    n++;
    clipped += Number(r.clipped);
  }
  return { loss, perToken, grad, clipFraction: n > 0 ? clipped / n : 0 };
}
