import { describe, expect, it } from 'vitest';
import { testGpu } from '../testing/node-gpu.ts';
import { SeededRandom } from '../util/seeded-random.ts';
import { layerNormBackwardRef, layerNormForwardRef } from './layernorm.ref.ts';
import { LAYERNORM_EPS, type LayerNormShape, layerNormBackward, layerNormForward, recordLayerNormBackward } from './layernorm.ts';

const rng = new SeededRandom(21);
const tol = { atol: 2e-5, rtol: 1e-4 };

function inputs(shape: LayerNormShape, offset = 0) {
  const x = rng.uniformArray(shape.rows * shape.D, offset - 2, offset + 2);
  const weight = rng.uniformArray(shape.D, 0.5, 1.5);
  const bias = rng.uniformArray(shape.D);
  const dout = rng.uniformArray(shape.rows * shape.D);
  return { x, weight, bias, dout };
}

describe('LayerNorm forward', () => {
  it('matches the float64 reference on awkward sizes, stats included', async () => {
    const gpu = await testGpu();
    for (const shape of [
      { rows: 67, D: 37 },
      { rows: 1, D: 1 },
      { rows: 5, D: 130 },
    ]) {
      const { x, weight, bias } = inputs(shape);
      const got = await layerNormForward(gpu, x, weight, bias, shape);
      const want = layerNormForwardRef(x, weight, bias, shape);
      expect(got.out).toBeAllClose(want.out, { ...tol, name: `out ${JSON.stringify(shape)}` });
      expect(got.stats).toBeAllClose(want.stats, { ...tol, name: `stats ${JSON.stringify(shape)}` });
    }
  });

  // At an offset of 1000 a one-pass variance (E[x²] − E[x]², with E[x²] ≈ 1e6 and an f32 ulp of
  // 0.06) would be off by more than 5%; the two-pass variance keeps it to 1e-3. The mean carries
  // the f32 rounding of a sum near 5e4 (ulp 0.004), hence the looser bound on it.
  it('with unit weight and zero bias each row has mean ≈ 0 and variance ≈ 1, even far from zero', async () => {
    const gpu = await testGpu();
    const shape = { rows: 9, D: 48 };
    const { x } = inputs(shape, 1000);
    const { out } = await layerNormForward(gpu, x, new Float32Array(shape.D).fill(1), new Float32Array(shape.D), shape);
    for (let r = 0; r < shape.rows; r++) {
      const row = out.subarray(r * shape.D, (r + 1) * shape.D);
      const mean = row.reduce((s, v) => s + v, 0) / shape.D;
      const variance = row.reduce((s, v) => s + (v - mean) ** 2, 0) / shape.D;
      expect(Math.abs(mean)).toBeLessThan(2e-3);
      expect(variance).toBeCloseTo(1, 3);
    }
  });

  it('a constant row normalises to the bias (variance 0, rstd = 1/√ε)', async () => {
    const gpu = await testGpu();
    const shape = { rows: 2, D: 5 };
    const bias = rng.uniformArray(5);
    const { out, stats } = await layerNormForward(gpu, new Float32Array(10).fill(3), rng.uniformArray(5), bias, shape);
    expect(out).toBeAllClose([...bias, ...bias], tol);
    expect(stats).toBeAllClose([3, 3, 1 / Math.sqrt(LAYERNORM_EPS), 1 / Math.sqrt(LAYERNORM_EPS)], { atol: 0, rtol: 1e-5 });
  });

  it('rejects bad shapes and eps, naming the argument', async () => {
    const gpu = await testGpu();
    const one = new Float32Array(1);
    await expect(layerNormForward(gpu, new Float32Array(3), one, one, { rows: 2, D: 1 })).rejects.toThrow(/layerNormForward: x holds 3 values, expected 2/);
    await expect(layerNormForward(gpu, one, one, one, { rows: 1, D: 0 })).rejects.toThrow(/D must be at least 1/);
    await expect(layerNormForward(gpu, one, one, one, { rows: 1, D: 1 }, 0)).rejects.toThrow(/eps must be a positive finite number/);
  });
});

describe('LayerNorm backward', () => {
  it('the float64 reference gradient matches central finite differences of the reference forward', () => {
    const shape = { rows: 3, D: 6 };
    const { x, weight, bias, dout } = inputs(shape);
    const loss = (xs: ArrayLike<number>, w: ArrayLike<number>, b: ArrayLike<number>) =>
      layerNormForwardRef(xs, w, b, shape).out.reduce((s, v, i) => s + v * dout[i], 0);
    const grads = layerNormBackwardRef(x, weight, dout, shape);
    const h = 1e-6;
    const numeric = (values: ArrayLike<number>, call: (v: Float64Array) => number) =>
      Array.from(values, (_, i) => {
        const plus = Float64Array.from(values);
        const minus = Float64Array.from(values);
        plus[i] += h;
        minus[i] -= h;
        return (call(plus) - call(minus)) / (2 * h);
      });
    expect(grads.dinp).toBeAllClose(
      numeric(x, (v) => loss(v, weight, bias)),
      { atol: 1e-6, rtol: 1e-5, name: 'dinp' },
    );
    expect(grads.dweight).toBeAllClose(
      numeric(weight, (v) => loss(x, v, bias)),
      { atol: 1e-6, rtol: 1e-5, name: 'dweight' },
    );
    expect(grads.dbias).toBeAllClose(
      numeric(bias, (v) => loss(x, weight, v)),
      { atol: 1e-6, rtol: 1e-5, name: 'dbias' },
    );
  });

  it('matches the float64 reference on awkward sizes (rows and D past one 64-invocation workgroup, ragged)', async () => {
    const gpu = await testGpu();
    for (const shape of [
      { rows: 83, D: 21 },
      { rows: 2, D: 35 },
      { rows: 5, D: 70 },
    ]) {
      const { x, weight, bias, dout } = inputs(shape);
      const { stats } = await layerNormForward(gpu, x, weight, bias, shape);
      const got = await layerNormBackward(gpu, x, weight, dout, stats, shape);
      const want = layerNormBackwardRef(x, weight, dout, shape);
      for (const key of ['dinp', 'dweight', 'dbias'] as const) expect(got[key]).toBeAllClose(want[key], { ...tol, name: `${key} ${JSON.stringify(shape)}` });
    }
  });

  it('adds to dinp, dweight and dbias rather than overwriting them', async () => {
    const gpu = await testGpu();
    const shape = { rows: 7, D: 9 };
    const { x, weight, bias, dout } = inputs(shape);
    const { stats } = await layerNormForward(gpu, x, weight, bias, shape);
    const start = { dinp: rng.uniformArray(63), dweight: rng.uniformArray(9), dbias: rng.uniformArray(9) };
    const t = {
      x: gpu.upload(x),
      weight: gpu.upload(weight),
      dout: gpu.upload(dout),
      stats: gpu.upload(stats),
      dinp: gpu.upload(start.dinp),
      dweight: gpu.upload(start.dweight),
      dbias: gpu.upload(start.dbias),
    };
    gpu.run((rec) => recordLayerNormBackward(rec, gpu, t, shape));
    const want = layerNormBackwardRef(x, weight, dout, shape);
    for (const key of ['dinp', 'dweight', 'dbias'] as const) {
      const expected = want[key].map((v, i) => v + start[key][i]);
      expect(await gpu.read(t[key])).toBeAllClose(expected, { ...tol, name: key });
    }
    for (const tensor of Object.values(t)) gpu.destroy(tensor);
  });
});
