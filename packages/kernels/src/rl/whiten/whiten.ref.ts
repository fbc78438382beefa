// Float64 reference for masked whitening over the whole batch (docs/algorithms/README.md §7; verl
// `masked_whiten`, slime `distributed_masked_whiten`):
//   μ = Σ m·x / n,  σ² = Σ m·(x − μ)² / (n − 1)  (unbiased, as torch.var; 0 when n ≤ 1),
//   out = m·(x − μ) / sqrt(σ² + ε).
// Shapes: values, mask [N] (N = B·T, flattened: the statistics are over every action token of the batch).

export function whitenRef(values: ArrayLike<number>, mask: ArrayLike<number>, eps: number): { whitened: Float64Array; mean: number; variance: number } {
  const N = values.length;
  let n = 0;
  let sum = 0;
  for (let i = 0; i < N; i++) {
    n += mask[i];
    sum += mask[i] * values[i];
  }
  const mean = n > 0 ? sum / n : 0;
  let squares = 0;
  for (let i = 0; i < N; i++) if (mask[i]) squares += (values[i] - mean) ** 2;
  const variance = n > 1 ? squares / (n - 1) : 0;
  const scale = 1 / Math.sqrt(variance + eps);
  const whitened = new Float64Array(N);
  for (let i = 0; i < N; i++) whitened[i] = mask[i] ? (values[i] - mean) * scale : 0;
  return { whitened, mean, variance };
}
