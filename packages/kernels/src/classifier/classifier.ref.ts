// Float64 reference for the fused classifier, from the definitions (docs/algorithms/README.md §5):
//   z = logits/τ,  lse = log Σ_j e^{z_j},  logp = z_target − lse,  p = softmax(z),  H = lse − Σ_j p_j z_j
// and the gradient of L(logp, H) with respect to the logits:
//   ∂L/∂logits_j = [dlogp·(1[j = target] − p_j) + dentropy·(−p_j·(z_j − Σ_k p_k z_k))] / τ
//
// Shape legend:  N rows · V vocabulary
//   logits: [N, V] · targets: [N] · logp, entropy, lse, dlogp, dentropy: [N] · dlogits: [N, V]

import type { ClassifierShape } from './classifier.ts';

function rowStats(logits: ArrayLike<number>, i: number, V: number, tau: number): { z: Float64Array; lse: number; p: Float64Array; meanZ: number } {
  const z = new Float64Array(V);
  for (let j = 0; j < V; j++) z[j] = logits[i * V + j] / tau;
  let max = z[0];
  for (let j = 1; j < V; j++) max = Math.max(max, z[j]);
  let sum = 0;
  for (let j = 0; j < V; j++) sum += Math.exp(z[j] - max);
  const lse = max + Math.log(sum);
  const p = z.map((zj) => Math.exp(zj - lse));
  let meanZ = 0;
  for (let j = 0; j < V; j++) meanZ += p[j] * z[j];
  return { z, lse, p, meanZ };
}

export function classifierForwardRef(
  logits: ArrayLike<number>,
  targets: ArrayLike<number>,
  { N, V }: ClassifierShape,
  temperature = 1,
): { logp: Float64Array; entropy: Float64Array; lse: Float64Array } {
  const logp = new Float64Array(N);
  const entropy = new Float64Array(N);
  const lse = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    const r = rowStats(logits, i, V, temperature);
    lse[i] = r.lse;
    logp[i] = r.z[targets[i]] - r.lse;
    entropy[i] = r.lse - r.meanZ;
  }
  return { logp, entropy, lse };
}

export function classifierBackwardRef(
  logits: ArrayLike<number>,
  targets: ArrayLike<number>,
  dlogp: ArrayLike<number>,
  dentropy: ArrayLike<number> | undefined,
  { N, V }: ClassifierShape,
  temperature = 1,
): Float64Array {
  const dlogits = new Float64Array(N * V);
  for (let i = 0; i < N; i++) {
    const { z, p, meanZ } = rowStats(logits, i, V, temperature);
    for (let j = 0; j < V; j++) {
      const onehot = j === targets[i] ? 1 : 0;
      const dH = dentropy ? dentropy[i] * -p[j] * (z[j] - meanZ) : 0;
      dlogits[i * V + j] = (dlogp[i] * (onehot - p[j]) + dH) / temperature;
    }
  }
  return dlogits;
}
