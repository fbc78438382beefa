// Float64 reference for the global gradient norm and clip scale:
//   norm = √(Σ_i g_i²) over elements not in a frozen block,   clipScale = min(1, maxNorm / (norm + 1e-6))
//
// Shapes:  grads: [n];  flags: [⌈n / 64⌉]

import { FLAG_BLOCK, FLAG_FROZEN } from '../adamw/flags.ts';

export function gradNormRef(grads: ArrayLike<number>, maxNorm: number, flags?: ArrayLike<number>): { norm: number; clipScale: number } {
  let sum = 0;
  for (let i = 0; i < grads.length; i++) {
    if (flags && flags[Math.floor(i / FLAG_BLOCK)] & FLAG_FROZEN) continue;
    sum += grads[i] * grads[i];
  }
  const norm = Math.sqrt(sum);
  return { norm, clipScale: Math.min(1, maxNorm / (norm + 1e-6)) };
}
