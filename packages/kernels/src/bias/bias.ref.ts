// Float64 reference for the bias gradient, from the definition: the bias is added to every row, so
// its gradient is the sum of the output gradient over rows.  dbias[n] (+)= Σ_r dout[r, n]

export function biasBackwardRef(dout: ArrayLike<number>, shape: { rows: number; N: number }, dbias?: ArrayLike<number>): Float64Array {
  const { rows, N } = shape;
  const out = new Float64Array(N);
  for (let n = 0; n < N; n++) {
    let sum = dbias ? dbias[n] : 0;
    for (let r = 0; r < rows; r++) sum += dout[r * N + n];
    out[n] = sum;
  }
  return out;
}
