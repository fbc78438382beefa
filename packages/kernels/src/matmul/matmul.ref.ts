// Float64 reference for matmul, written from the definition C[m,n] = Σ_k A(m,k)·B(k,n) (+ bias[n]),
// plus C's old value when accumulating. The spec the WGSL is checked against (docs/conventions.md §1).

import type { MatmulShape } from './matmul.ts';

export function matmulRef(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  shape: MatmulShape,
  bias?: ArrayLike<number>,
  accumulateInto?: ArrayLike<number>,
): Float64Array {
  const { M, K, N } = shape;
  const batch = shape.batch ?? 1;
  const layout = shape.layout ?? 'nn';
  const c = new Float64Array(batch * M * N);
  for (let z = 0; z < batch; z++) {
    const aOff = z * M * K;
    const bOff = z * K * N;
    for (let m = 0; m < M; m++) {
      for (let n = 0; n < N; n++) {
        const cIndex = z * M * N + m * N + n;
        let sum = (bias ? bias[n] : 0) + (accumulateInto ? accumulateInto[cIndex] : 0);
        for (let k = 0; k < K; k++) {
          const av = layout === 'tn' ? a[aOff + k * M + m] : a[aOff + m * K + k];
          const bv = layout === 'nt' ? b[bOff + n * K + k] : b[bOff + k * N + n];
          sum += av * bv;
        }
        c[cIndex] = sum;
      }
    }
  }
  return c;
}
