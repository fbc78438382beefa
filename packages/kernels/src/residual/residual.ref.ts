// Float64 reference for residual adds: elementwise a + b (the accumulate form returns the new a).

export function residualAddRef(a: ArrayLike<number>, b: ArrayLike<number>): Float64Array {
  return Float64Array.from(a, (v, i) => v + b[i]);
}
