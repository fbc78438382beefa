import { describe, expect, it } from 'vitest';
import { testGpu } from '../testing/node-gpu.ts';
import { SeededRandom } from '../util/seeded-random.ts';
import { biasBackwardRef } from './bias.ref.ts';
import { biasBackward } from './bias.ts';

const rng = new SeededRandom(11);

describe('bias backward (column sums) against the float64 reference', () => {
  it('sums many rows into few columns, scalar (ragged N) and vec4 (N % 4 = 0), past one 64-invocation workgroup', async () => {
    const gpu = await testGpu();
    for (const shape of [
      { rows: 1000, N: 37 },
      { rows: 3, N: 67 },
      { rows: 65, N: 1 },
      { rows: 501, N: 36 },
      { rows: 7, N: 260 },
    ]) {
      const dout = rng.uniformArray(shape.rows * shape.N);
      expect(await biasBackward(gpu, dout, shape)).toBeAllClose(biasBackwardRef(dout, shape), { atol: 1e-5, rtol: 1e-5, name: JSON.stringify(shape) });
    }
  });

  it('adds to dbias (gradient accumulation), and zero rows leave it unchanged', async () => {
    const gpu = await testGpu();
    const shape = { rows: 40, N: 20 };
    const dout = rng.uniformArray(shape.rows * shape.N);
    const start = rng.uniformArray(shape.N);
    expect(await biasBackward(gpu, dout, shape, start)).toBeAllClose(biasBackwardRef(dout, shape, start), { atol: 1e-5, rtol: 1e-5 });
    expect(await biasBackward(gpu, new Float32Array(0), { rows: 0, N: 20 }, start)).toEqual(start);
  });

  it('is deterministic: the same input gives the same bits', async () => {
    const gpu = await testGpu();
    const shape = { rows: 777, N: 33 };
    const dout = rng.uniformArray(shape.rows * shape.N, -100, 100);
    const first = await biasBackward(gpu, dout, shape);
    expect(await biasBackward(gpu, dout, shape)).toEqual(first);
  });

  it('rejects a dout that does not match the shape, naming it', async () => {
    const gpu = await testGpu();
    await expect(biasBackward(gpu, new Float32Array(5), { rows: 2, N: 3 })).rejects.toThrow(/biasBackward: dout holds 5 values, expected 6/);
    await expect(biasBackward(gpu, new Float32Array(0), { rows: -1, N: 3 })).rejects.toThrow(/rows must be a non-negative integer/);
  });
});
