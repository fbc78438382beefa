// Float64 reference for KTO as TRL computes it (docs/algorithms/kto.md §1; TRL `kto_trainer.py:_compute_loss`,
// huggingface/trl):
//   r_b  = Σ_t m·(ℓ − ℓ_ref)                         implicit reward of the matched completion
//   kl_b = Σ_t m'·(ℓ' − ℓ'_ref)                      the same for the MISMATCHED pair (x_b, y_{b+1 mod B})
//   z0   = max(0, mean_b kl_b), detached            (no gradient into the mismatched pass)
//   L_b  = λ_D·(1 − σ(β(r_b − z0)))  if desirable,   λ_U·(1 − σ(β(z0 − r_b)))  if undesirable
//   loss = mean_b L_b
//   dloss/dr_b = −λ_D β σ(u)(1 − σ(u))/B, u = β(r_b − z0)   |   +λ_U β σ(u')(1 − σ(u'))/B, u' = β(z0 − r_b)
//   dloss/dℓ_{b,t} = m_{b,t}·dloss/dr_b
// Shapes: logp, refLogp, mask, klLogp, klRefLogp, klMask [B, T]; desirable [B] (1/0).

export interface KtoParams {
  beta: number;
  lambdaD: number;
  lambdaU: number;
}

/** σ(x) = 1/(1 + e^{−x}), without overflow for large |x|. */
export function logistic(x: number): number {
  return x >= 0 ? 1 / (1 + Math.exp(-x)) : Math.exp(x) / (1 + Math.exp(x));
}

export interface KtoRefInputs {
  logp: ArrayLike<number>;
  refLogp: ArrayLike<number>;
  mask: ArrayLike<number>;
  klLogp: ArrayLike<number>;
  klRefLogp: ArrayLike<number>;
  klMask: ArrayLike<number>;
  desirable: ArrayLike<number>;
}

export function ktoRef(inputs: KtoRefInputs, options: KtoParams & { B: number; T: number }) {
  const { B, T, beta, lambdaD, lambdaU } = options;
  const rowSum = (x: ArrayLike<number>, y: ArrayLike<number>, m: ArrayLike<number>, b: number) => {
    let s = 0;
    for (let t = 0; t < T; t++) s += m[b * T + t] * (x[b * T + t] - y[b * T + t]);
    return s;
  };
  const rewards = new Float64Array(B);
  const perSample = new Float64Array(B);
  const dLdr = new Float64Array(B);
  let klMean = 0;
  for (let b = 0; b < B; b++) {
    rewards[b] = rowSum(inputs.logp, inputs.refLogp, inputs.mask, b);
    klMean += rowSum(inputs.klLogp, inputs.klRefLogp, inputs.klMask, b) / B;
  }
  const z0 = B > 0 ? Math.max(0, klMean) : 0;
  let loss = 0;
  for (let b = 0; b < B; b++) {
    if (inputs.desirable[b]) {
      const s = logistic(beta * (rewards[b] - z0));
      perSample[b] = lambdaD * (1 - s);
      dLdr[b] = (-lambdaD * beta * s * (1 - s)) / B;
    } else {
      const s = logistic(beta * (z0 - rewards[b]));
      perSample[b] = lambdaU * (1 - s);
      dLdr[b] = (lambdaU * beta * s * (1 - s)) / B;
    }
    loss += perSample[b] / B;
  }
  const grad = new Float64Array(B * T);
  for (let i = 0; i < B * T; i++) grad[i] = inputs.mask[i] * dLdr[Math.floor(i / T)];
  return { loss, z0, rewards, perSample, grad };
}
