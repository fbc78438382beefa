// The matmul conformance case, run unchanged on Node (Dawn), Deno and Chromium. It returns results
// instead of asserting, so each runtime's harness can report them and the Node test can assert on
// all three together.

import { compareArrays, describeMismatch, type Gpu, type MatmulShape, matmul, matmulRef, SeededRandom } from '@horizon/kernels';

export interface CaseResult {
  name: string;
  relativeError: number;
  detail: string;
}

/** Shapes drawn from the seed so no dimension is a multiple of the 32×32 tile, plus vec4 and batched cases. */
export function conformanceShapes(seed: number): Array<MatmulShape & { bias: boolean }> {
  const rng = new SeededRandom(seed);
  const awkward = () => {
    let n = rng.int(1, 70);
    if (n % 32 === 0) n += 1;
    return n;
  };
  return [
    { M: awkward(), K: awkward(), N: awkward(), layout: 'nn', bias: false },
    { M: awkward(), K: awkward(), N: awkward(), layout: 'nn', bias: true },
    { M: awkward(), K: 4 * rng.int(1, 17), N: 4 * rng.int(1, 17) + 4, layout: 'nn', bias: true }, // vec4 path
    { M: awkward(), K: awkward(), N: awkward(), layout: 'nt', bias: false },
    { M: awkward(), K: awkward(), N: awkward(), layout: 'tn', bias: false },
    { M: awkward(), K: awkward(), N: awkward(), layout: 'nn', bias: false, batch: 3 },
    { M: 1, K: 1, N: 1, layout: 'nn', bias: false },
  ];
}

export async function runMatmulConformance(gpu: Gpu, seed = 20261130): Promise<CaseResult[]> {
  const rng = new SeededRandom(seed ^ 0x5eed);
  const results: CaseResult[] = [];
  for (const shape of conformanceShapes(seed)) {
    const batch = shape.batch ?? 1;
    const a = rng.uniformArray(batch * shape.M * shape.K);
    const b = rng.uniformArray(batch * shape.K * shape.N);
    const bias = shape.bias ? rng.uniformArray(shape.N) : undefined;
    const got = await matmul(gpu, a, b, shape, bias);
    const want = matmulRef(a, b, shape, bias);
    const name = `${shape.layout} ${batch}×${shape.M}×${shape.K}×${shape.N}${shape.bias ? '+bias' : ''}`;
    const mismatch = compareArrays(got, want);
    results.push({ name, relativeError: mismatch.relativeError, detail: describeMismatch(name, mismatch) });
  }
  return results;
}
