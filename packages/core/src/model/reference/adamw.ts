// Float64 reference AdamW (Loshchilov & Hutter, decoupled weight decay), step for step the
// arithmetic of torch.optim.AdamW 1.13 (single-tensor path), so tests/golden can replay PyTorch's
// first 10 training losses.
//
// Weight decay follows nanoGPT's configure_optimizers: parameters with ≥ 2 dimensions (every
// matmul weight and both embeddings, value_head.weight [1, D] included) decay; LayerNorm gains and
// all biases (1 dimension) do not. weightDecayMask(layout) spells that out per flat element.
//
// Shape legend:  P flat parameter count (layout.totalSize, padding included)

import type { ParameterLayout } from '../parameters.ts';

export interface AdamWHyperparameters {
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
}

/** [P] 1 where AdamW applies weight decay (parameters with ≥ 2 dimensions), 0 elsewhere and in padding. */
export function weightDecayMask(layout: ParameterLayout): Uint8Array {
  const mask = new Uint8Array(layout.totalSize);
  for (const e of layout.entries) if (e.shape.length >= 2) mask.fill(1, e.offset, e.offset + e.size);
  return mask;
}

export function validateAdamW(hp: AdamWHyperparameters): void {
  if (!(Number.isFinite(hp.lr) && hp.lr >= 0)) throw new RangeError(`lr must be finite and ≥ 0, got ${hp.lr}`);
  if (!(hp.beta1 >= 0 && hp.beta1 < 1)) throw new RangeError(`beta1 must be in [0, 1), got ${hp.beta1}`);
  if (!(hp.beta2 >= 0 && hp.beta2 < 1)) throw new RangeError(`beta2 must be in [0, 1), got ${hp.beta2}`);
  if (!(Number.isFinite(hp.eps) && hp.eps > 0)) throw new RangeError(`eps must be finite and > 0, got ${hp.eps}`);
  if (!(Number.isFinite(hp.weightDecay) && hp.weightDecay >= 0)) throw new RangeError(`weightDecay must be finite and ≥ 0, got ${hp.weightDecay}`);
}

/**
 * One AdamW step in place on params, m and v (all [P]); `step` counts from 1 (the bias correction
 * of the first update uses step = 1). Elements where decayMask is 0 get no weight decay.
 *   p ← p·(1 − lr·wd·mask);  m ← β1·m + (1 − β1)·g;  v ← β2·v + (1 − β2)·g²
 *   p ← p − lr/(1 − β1ᵗ) · m / (√v / √(1 − β2ᵗ) + eps)
 */
export function referenceAdamW(
  params: Float64Array,
  grads: ArrayLike<number>,
  m: Float64Array,
  v: Float64Array,
  step: number,
  hp: AdamWHyperparameters,
  decayMask: ArrayLike<number>,
): void {
  validateAdamW(hp);
  if (!Number.isInteger(step) || step < 1) throw new RangeError(`step must be an integer ≥ 1 (the first update is step 1), got ${step}`);
  const n = params.length;
  for (const [name, a] of [
    ['grads', grads],
    ['m', m],
    ['v', v],
    ['decayMask', decayMask],
  ] as const) {
    if (a.length !== n) throw new RangeError(`${name} has ${a.length} values; params has ${n}`);
  }
  const { lr, beta1, beta2, eps, weightDecay } = hp;
  const stepSize = lr / (1 - beta1 ** step);
  const correction2Sqrt = Math.sqrt(1 - beta2 ** step);
  for (let i = 0; i < n; i++) {
    const g = grads[i];
    if (decayMask[i]) params[i] *= 1 - lr * weightDecay;
    m[i] = m[i] * beta1 + g * (1 - beta1);
    v[i] = v[i] * beta2 + (1 - beta2) * g * g;
    params[i] -= stepSize * (m[i] / (Math.sqrt(v[i]) / correction2Sqrt + eps));
  }
}
