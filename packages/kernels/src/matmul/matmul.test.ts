import { describe, expect, it } from 'vitest';
import { testGpu } from '../testing/node-gpu.ts';
import { SeededRandom } from '../util/seeded-random.ts';
import { matmulRef } from './matmul.ref.ts';
import { chooseMatmulVariant, type MatmulShape, matmul } from './matmul.ts';

const rng = new SeededRandom(7);

async function check(shape: MatmulShape, withBias = false) {
  const gpu = await testGpu();
  const batch = shape.batch ?? 1;
  const a = rng.uniformArray(batch * shape.M * shape.K);
  const b = rng.uniformArray(batch * shape.K * shape.N);
  const bias = withBias ? rng.uniformArray(shape.N) : undefined;
  const got = await matmul(gpu, a, b, shape, bias);
  const want = matmulRef(a, b, shape, bias);
  expect(got).toBeAllClose(want, { atol: 1e-5, rtol: 1e-5, name: JSON.stringify(shape) });
}

describe('matmul on the GPU against the float64 reference', () => {
  for (const layout of ['nn', 'nt', 'tn'] as const) {
    it(`${layout}: random sizes that are not multiples of the tile`, async () => {
      for (let i = 0; i < 3; i++) {
        const shape = { M: rng.int(1, 45), K: rng.int(1, 45), N: rng.int(1, 45), layout };
        await check(shape, i === 1);
      }
    });
  }

  it('nn vec4 path (K and N multiples of 4) with bias and a ragged M', async () => {
    const shape: MatmulShape = { M: 37, K: 20, N: 44 };
    expect(chooseMatmulVariant(shape, true).vec4).toBe(true);
    await check(shape, true);
  });

  it('batched products', async () => {
    await check({ M: 9, K: 13, N: 11, batch: 4, layout: 'nt' });
    await check({ M: 8, K: 16, N: 12, batch: 3 });
  });

  it('K = 0 gives the bias (or zeros)', async () => {
    const gpu = await testGpu();
    const bias = new Float32Array([1, 2, 3]);
    const got = await matmul(gpu, new Float32Array(0), new Float32Array(0), { M: 2, K: 0, N: 3 }, bias);
    expect(Array.from(got)).toEqual([1, 2, 3, 1, 2, 3]);
  });

  it('rejects operands whose size does not match the shape, naming the operand', async () => {
    const gpu = await testGpu();
    await expect(matmul(gpu, new Float32Array(5), new Float32Array(6), { M: 2, K: 3, N: 2 })).rejects.toThrow(/A .* must hold 6 values/);
    await expect(matmul(gpu, new Float32Array(6), new Float32Array(6), { M: 2, K: -3, N: 2 })).rejects.toThrow(/K must be a non-negative integer/);
  });
});
