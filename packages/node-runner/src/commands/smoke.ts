// `horizon smoke`: one real kernel through the whole stack. Multiplies random matrices on the GPU,
// checks them against the float64 reference and prints the throughput.

import { compareArrays, type MatmulShape, matmul, matmulRef, recordMatmul, SeededRandom } from '@horizon/kernels';
import { type Command, EXIT, UsageError } from '../cli/command.ts';
import { acquireGpu } from '../platform/acquire-gpu.ts';

const CHECKS: MatmulShape[] = [
  { M: 37, K: 53, N: 29 },
  { M: 64, K: 64, N: 64 },
  { M: 30, K: 41, N: 23, layout: 'nt' },
  { M: 19, K: 26, N: 33, layout: 'tn' },
];
const TOLERANCE = 1e-5;

export const smoke: Command = {
  name: 'smoke',
  summary: 'check the matmul kernel against its float64 reference and time it',
  flags: { size: { type: 'string', description: 'timed matmul size n (n×n×n), default 256', valueName: 'n' } },
  async run({ flags, out }) {
    const size = flags.size === undefined ? 256 : Number(flags.size);
    if (!Number.isInteger(size) || size < 1 || size > 4096) throw new UsageError(`--size must be an integer in [1, 4096], got "${flags.size}".`);
    const gpu = await acquireGpu();
    const rng = new SeededRandom(1);
    let failed = 0;
    for (const shape of CHECKS) {
      const a = rng.uniformArray(shape.M * shape.K);
      const b = rng.uniformArray(shape.K * shape.N);
      const { relativeError } = compareArrays(await matmul(gpu, a, b, shape), matmulRef(a, b, shape));
      const ok = relativeError < TOLERANCE;
      if (!ok) failed++;
      out(
        `  matmul ${shape.layout ?? 'nn'} ${shape.M}×${shape.K}×${shape.N}: relative error ${relativeError.toExponential(2)} ${ok ? 'ok' : `FAILED (> ${TOLERANCE})`}`,
      );
    }
    const A = gpu.upload(rng.uniformArray(size * size), [size, size], 'A');
    const B = gpu.upload(rng.uniformArray(size * size), [size, size], 'B');
    const C = gpu.tensor([size, size], 'f32', 'C');
    const shape = { M: size, K: size, N: size };
    gpu.run((rec) => recordMatmul(rec, gpu, { a: A, b: B, c: C }, shape));
    await gpu.sync();
    const reps = 3;
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) gpu.run((rec) => recordMatmul(rec, gpu, { a: A, b: B, c: C }, shape));
    await gpu.sync();
    const seconds = (performance.now() - t0) / 1000 / reps;
    out(
      `  matmul ${size}³: ${((2 * size ** 3) / seconds / 1e9).toFixed(2)} GFLOP/s (${(seconds * 1000).toFixed(1)} ms) on ${gpu.report.description || gpu.report.architecture}`,
    );
    gpu.destroyDevice();
    out(failed === 0 ? 'smoke: ok' : `smoke: ${failed} check(s) failed`);
    return failed === 0 ? EXIT.ok : EXIT.failed;
  },
};
