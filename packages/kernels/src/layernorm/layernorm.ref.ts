// Float64 reference for LayerNorm, written from the math (plain loops over rows and features).
//
// Shapes:  R rows · D features;  x, out, dout, dinp: [R, D];  weight, bias: [D];  stats: [2, R]
//   forward:   out = (x − mean)·rstd·weight + bias,   rstd = 1/√(var + ε) (biased variance)
//   backward:  with y = norm = (x − mean)·rstd and g = weight·dout,
//              ∂L/∂x = rstd·(g − mean(g) − y·mean(g·y))        (differentiating through mean and var)
//              ∂L/∂weight = Σ_rows dout·y,   ∂L/∂bias = Σ_rows dout

import type { LayerNormShape } from './layernorm.ts';

export function layerNormForwardRef(
  x: ArrayLike<number>,
  weight: ArrayLike<number>,
  bias: ArrayLike<number>,
  shape: LayerNormShape,
  eps = 1e-5,
): { out: Float64Array; stats: Float64Array } {
  const { rows, D } = shape;
  const out = new Float64Array(rows * D);
  const stats = new Float64Array(2 * rows);
  for (let r = 0; r < rows; r++) {
    const row = Array.from({ length: D }, (_, d) => x[r * D + d]);
    const mean = row.reduce((s, v) => s + v, 0) / D;
    const variance = row.reduce((s, v) => s + (v - mean) ** 2, 0) / D;
    const rstd = 1 / Math.sqrt(variance + eps);
    for (let d = 0; d < D; d++) out[r * D + d] = (row[d] - mean) * rstd * weight[d] + bias[d];
    stats[r] = mean;
    stats[rows + r] = rstd;
  }
  return { out, stats };
}

export function layerNormBackwardRef(
  x: ArrayLike<number>,
  weight: ArrayLike<number>,
  dout: ArrayLike<number>,
  shape: LayerNormShape,
  eps = 1e-5,
): { dinp: Float64Array; dweight: Float64Array; dbias: Float64Array } {
  const { rows, D } = shape;
  const { stats } = layerNormForwardRef(x, weight, new Float64Array(D), shape, eps);
  const dinp = new Float64Array(rows * D);
  const dweight = new Float64Array(D);
  const dbias = new Float64Array(D);
  for (let r = 0; r < rows; r++) {
    const mean = stats[r];
    const rstd = stats[rows + r];
    const y = Array.from({ length: D }, (_, d) => (x[r * D + d] - mean) * rstd);
    const g = Array.from({ length: D }, (_, d) => weight[d] * dout[r * D + d]);
    const gMean = g.reduce((s, v) => s + v, 0) / D;
    const gyMean = g.reduce((s, v, d) => s + v * y[d], 0) / D;
    for (let d = 0; d < D; d++) {
      dinp[r * D + d] = rstd * (g[d] - gMean - y[d] * gyMean);
      dweight[d] += dout[r * D + d] * y[d];
      dbias[d] += dout[r * D + d];
    }
  }
  return { dinp, dweight, dbias };
}
