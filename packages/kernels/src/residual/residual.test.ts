import { describe, expect, it } from 'vitest';
import { testGpu } from '../testing/node-gpu.ts';
import { SeededRandom } from '../util/seeded-random.ts';
import { residualAddRef } from './residual.ref.ts';
import { recordResidualAccumulate, residualAccumulate, residualAdd } from './residual.ts';

const rng = new SeededRandom(41);

describe('residual add and accumulate', () => {
  it('out = a + b and a += b match the reference, scalar (ragged n) and vec4 (n % 4 = 0)', async () => {
    const gpu = await testGpu();
    for (const n of [1027, 1028, 1]) {
      const a = rng.uniformArray(n);
      const b = rng.uniformArray(n);
      expect(await residualAdd(gpu, a, b)).toBeAllClose(residualAddRef(a, b), { atol: 0, rtol: 1e-7, name: `add n = ${n}` });
      expect(await residualAccumulate(gpu, a, b)).toBeAllClose(residualAddRef(a, b), { atol: 0, rtol: 1e-7, name: `accumulate n = ${n}` });
    }
  });

  it('accumulating twice into the same stream adds both branches (a view inside a larger buffer stays in bounds)', async () => {
    const gpu = await testGpu();
    for (const n of [70, 72]) {
      const align = gpu.viewAlignment;
      const base = gpu.upload(new Float32Array(align + n + 5).fill(7));
      const stream = gpu.view(base, align, [n]);
      const b1 = rng.uniformArray(n);
      const b2 = rng.uniformArray(n);
      const B1 = gpu.upload(b1);
      const B2 = gpu.upload(b2);
      gpu.run((rec) => {
        recordResidualAccumulate(rec, gpu, { a: stream, b: B1 });
        recordResidualAccumulate(rec, gpu, { a: stream, b: B2 });
      });
      const all = await gpu.read(base);
      expect(all.subarray(align, align + n)).toBeAllClose(
        Array.from(b1, (v, i) => 7 + v + b2[i]),
        { atol: 1e-6, rtol: 1e-6, name: `n = ${n}` },
      );
      expect(Array.from(all.subarray(0, align))).toEqual(new Array(align).fill(7));
      expect(Array.from(all.subarray(align + n))).toEqual([7, 7, 7, 7, 7]);
      for (const t of [base, B1, B2]) gpu.destroy(t);
    }
  });

  it('refuses operands of different lengths, naming them', async () => {
    const gpu = await testGpu();
    await expect(residualAdd(gpu, new Float32Array(4), new Float32Array(3))).rejects.toThrow(/residualAdd: b holds 3 values, expected 4/);
  });
});
