// Float64 reference for AdamW, in the textbook form (Loshchilov & Hutter; llm.c's gpt2_update):
//   g = grad·clipScale
//   m ← β1·m + (1 − β1)·g          m̂ = m / (1 − β1ᵗ)
//   v ← β2·v + (1 − β2)·g²         v̂ = v / (1 − β2ᵗ)
//   p ← p − lr·(m̂ / (√v̂ + ε) + wd·p)      (wd only where FLAG_DECAY; FLAG_FROZEN skips the element)
//
// Shapes:  params, grads, m, v: [n];  flags: [⌈n / 64⌉]

import type { AdamWHyperparameters } from './adamw.ts';
import { FLAG_BLOCK, FLAG_DECAY, FLAG_FROZEN } from './flags.ts';

export function adamWRef(
  state: { params: ArrayLike<number>; grads: ArrayLike<number>; m: ArrayLike<number>; v: ArrayLike<number> },
  options: { step: number; hyper: AdamWHyperparameters; clipScale?: number; flags?: ArrayLike<number> },
): { params: Float64Array; m: Float64Array; v: Float64Array } {
  const { lr, beta1, beta2, eps, weightDecay } = options.hyper;
  const t = options.step;
  const clipScale = options.clipScale ?? 1;
  const params = Float64Array.from(state.params);
  const m = Float64Array.from(state.m);
  const v = Float64Array.from(state.v);
  for (let i = 0; i < params.length; i++) {
    const flags = options.flags ? options.flags[Math.floor(i / FLAG_BLOCK)] : FLAG_DECAY;
    if (flags & FLAG_FROZEN) continue;
    const g = state.grads[i] * clipScale;
    m[i] = beta1 * m[i] + (1 - beta1) * g;
    v[i] = beta2 * v[i] + (1 - beta2) * g * g;
    const mHat = m[i] / (1 - beta1 ** t);
    const vHat = v[i] / (1 - beta2 ** t);
    const decay = flags & FLAG_DECAY ? weightDecay : 0;
    params[i] -= lr * (mHat / (Math.sqrt(vHat) + eps) + decay * params[i]);
  }
  return { params, m, v };
}
