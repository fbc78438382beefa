import { describe, expect, it } from 'vitest';
import { testGpu } from '../testing/node-gpu.ts';
import { SeededRandom } from '../util/seeded-random.ts';
import { matmulRef } from './matmul.ref.ts';
import { chooseMatmulVariant, type MatmulShape, matmul } from './matmul.ts';
import { MATMUL_BLOCKING, type MatmulBlocking, type MatmulLayout, matmulTile, matmulWgsl } from './matmul.wgsl.ts';

const rng = new SeededRandom(7);

async function check(shape: MatmulShape, withBias = false, accumulate = false) {
  const gpu = await testGpu();
  const batch = shape.batch ?? 1;
  const a = rng.uniformArray(batch * shape.M * shape.K);
  const b = rng.uniformArray(batch * shape.K * shape.N);
  const bias = withBias ? rng.uniformArray(shape.N) : undefined;
  const accumulateInto = accumulate ? rng.uniformArray(batch * shape.M * shape.N) : undefined;
  const got = await matmul(gpu, a, b, shape, bias, accumulateInto ? { accumulateInto } : {});
  const want = matmulRef(a, b, shape, bias, accumulateInto);
  expect(got).toBeAllClose(want, { atol: 1e-5, rtol: 1e-5, name: JSON.stringify({ ...shape, withBias, accumulate }) });
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

  it('nt vec4 path (K a multiple of 4) with ragged M and N, bias and accumulation', async () => {
    const shape: MatmulShape = { M: 37, K: 28, N: 45, layout: 'nt' };
    expect(chooseMatmulVariant(shape, true).vec4).toBe(true);
    await check(shape, true);
    await check(shape, false, true);
    await check({ M: 3, K: 4, N: 1, layout: 'nt' }, true, true);
  });

  it('tn vec4 path (M and N multiples of 4) with a ragged K (the weight gradient, K = B·T), bias and accumulation', async () => {
    const shape: MatmulShape = { M: 36, K: 23, N: 44, layout: 'tn' };
    expect(chooseMatmulVariant(shape, false).vec4).toBe(true);
    await check(shape);
    await check(shape, true, true);
    await check({ M: 4, K: 1, N: 4, layout: 'tn' }, false, true);
  });

  it('nn vec4 and every scalar path accumulate into C', async () => {
    await check({ M: 13, K: 8, N: 12 }, false, true);
    for (const layout of ['nn', 'nt', 'tn'] as const) {
      const shape: MatmulShape = { M: 10, K: 7, N: 9, layout };
      expect(chooseMatmulVariant(shape, true).vec4).toBe(false);
      await check(shape, true, true);
    }
  });

  it('every path on outputs spanning several 64×64 workgroup tiles in both directions', async () => {
    for (const layout of ['nn', 'nt', 'tn'] as const) {
      await check({ M: 132, K: 8, N: 140, layout }, true);
      await check({ M: 129, K: 5, N: 131, layout }, false, true);
    }
  });

  it('falls back to the scalar path when the contiguous axis is ragged', () => {
    expect(chooseMatmulVariant({ M: 8, K: 8, N: 6 }, false).vec4).toBe(false);
    expect(chooseMatmulVariant({ M: 8, K: 6, N: 8, layout: 'nt' }, false).vec4).toBe(false);
    expect(chooseMatmulVariant({ M: 6, K: 8, N: 8, layout: 'tn' }, false).vec4).toBe(false);
    expect(chooseMatmulVariant({ M: 8, K: 0, N: 8 }, false).vec4).toBe(false);
  });

  it('on SwiftShader the device has quad subgroups, and vec4 paths at least 32 columns wide share rows of A there', async () => {
    const gpu = await testGpu();
    if (gpu.report.architecture === 'swiftshader') expect(gpu.report.quadSubgroups).toBe(true);
    for (const layout of ['nn', 'nt', 'tn'] as const) expect(chooseMatmulVariant({ M: 8, K: 8, N: 32, layout }, false, false, true).shareRows).toBe(true);
    expect(chooseMatmulVariant({ M: 8, K: 8, N: 28, layout: 'nt' }, false, false, true).shareRows).toBeUndefined();
    expect(chooseMatmulVariant({ M: 8, K: 8, N: 34 }, false, false, true).shareRows).toBeUndefined(); // scalar path
    expect(chooseMatmulVariant({ M: 8, K: 8, N: 32 }, false, false, false).shareRows).toBeUndefined();
    const tn = { layout: 'tn', bias: false, accumulate: false, vec4: true, shareRows: true } as const;
    expect(() => matmulWgsl(tn, { rows: 4, cols: 8, workgroup: [8, 8] })).toThrow(/tn: 8 or 16/);
    expect(() => matmulWgsl({ ...tn, vec4: false })).toThrow(/needs a vec4 path/);
  });

  it('shared rows of A give the same bits as every lane loading its own, at ragged edges, batched, with bias and accumulation', async () => {
    const gpu = await testGpu();
    if (!gpu.report.quadSubgroups) return; // the shared path exists only on such devices
    const run = async (
      blocking: MatmulBlocking,
      layout: MatmulLayout,
      shape: { M: number; K: number; N: number; batch: number },
      shareRows: boolean,
      bias: boolean,
      accumulate: boolean,
    ) => {
      const { M, K, N, batch } = shape;
      const r = new SeededRandom(M * 1000 + N);
      const a = gpu.upload(r.uniformArray(batch * M * K));
      const b = gpu.upload(r.uniformArray(batch * K * N));
      const c = gpu.upload(r.uniformArray(batch * M * N));
      const biasT = gpu.upload(r.uniformArray(N));
      const aligned = layout === 'nt' && N % 4 === 0 ? { alignedColumns: true } : {};
      const variant = { layout, bias, accumulate, vec4: true, ...aligned, ...(shareRows ? { shareRows } : {}) };
      const pipeline = gpu.pipeline(matmulWgsl(variant, blocking), 'main', `matmul_test_${layout}_${blocking.rows}_${shareRows}`);
      const bindings = [a, b, c, gpu.uniform([M, K, N, batch]), ...(bias ? [biasT] : [])];
      const tile = matmulTile(blocking);
      gpu.run((rec) => rec.dispatch(pipeline, bindings, Math.ceil(N / tile.cols), Math.ceil(M / tile.rows), batch));
      const got = await gpu.read(c);
      for (const t of [a, b, c, biasT]) gpu.destroy(t);
      return got;
    };
    const cases: [MatmulLayout, { M: number; K: number; N: number; batch: number }, boolean, boolean][] = [
      ['nn', { M: 37, K: 20, N: 44, batch: 1 }, true, false],
      ['nn', { M: 67, K: 8, N: 132, batch: 2 }, false, true],
      ['nt', { M: 37, K: 28, N: 45, batch: 1 }, true, true],
      ['nt', { M: 3, K: 4, N: 1, batch: 3 }, false, false],
      ['nt', { M: 129, K: 12, N: 70, batch: 1 }, true, false],
      ['nt', { M: 37, K: 28, N: 44, batch: 2 }, true, true], // aligned columns: vec4 stores
      ['tn', { M: 36, K: 23, N: 44, batch: 1 }, true, true],
      ['tn', { M: 132, K: 9, N: 68, batch: 2 }, false, false],
      ['tn', { M: 4, K: 1, N: 4, batch: 1 }, false, true],
    ];
    // Both shared blockings against the unshared kernel of the same blocking (same sums, same order).
    for (const blocking of [MATMUL_BLOCKING.shared, MATMUL_BLOCKING.vec4]) {
      for (const [layout, shape, bias, accumulate] of cases) {
        const shared = await run(blocking, layout, shape, true, bias, accumulate);
        const own = await run(blocking, layout, shape, false, bias, accumulate);
        expect(Array.from(shared), `${layout} ${JSON.stringify(shape)} ${blocking.rows}×${blocking.cols}`).toEqual(Array.from(own));
      }
    }
  });

  it('batched products, scalar and vec4', async () => {
    await check({ M: 9, K: 13, N: 11, batch: 4, layout: 'nt' });
    await check({ M: 8, K: 16, N: 12, batch: 3 });
    await check({ M: 9, K: 12, N: 7, batch: 3, layout: 'nt' }, true, true);
    await check({ M: 9, K: 12, N: 12, batch: 3, layout: 'nt' }, true, true); // aligned columns, vec4 stores
    await check({ M: 13, K: 8, N: 28, layout: 'nt' }, true);
    await check({ M: 8, K: 5, N: 12, batch: 2, layout: 'tn' }, true);
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
    await expect(
      matmul(gpu, new Float32Array(6), new Float32Array(6), { M: 2, K: 3, N: 2 }, undefined, { accumulateInto: new Float32Array(3) }),
    ).rejects.toThrow(/accumulateInto holds 3 values, expected 4/);
  });
});
