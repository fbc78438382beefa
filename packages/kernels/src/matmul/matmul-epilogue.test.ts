// The matmul's fused epilogues (matmul.wgsl.ts): a residual addend, GELU's value beside the
// pre-activation, GELU's slope times the product, and tn's row sums of A (the bias gradient), against the float64 references and against
// the unfused kernels they replace, in every layout and on the scalar, vec4 and shared-row paths.

import { describe, expect, it } from 'vitest';
import { geluBackwardRef, geluForwardRef } from '../gelu/gelu.ref.ts';
import { recordGeluBackward, recordGeluForward } from '../gelu/gelu.ts';
import type { Gpu } from '../gpu/runtime.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { recordResidualAdd } from '../residual/residual.ts';
import { testGpu } from '../testing/node-gpu.ts';
import { SeededRandom } from '../util/seeded-random.ts';
import { matmulRef } from './matmul.ref.ts';
import { type MatmulOperands, type MatmulShape, recordMatmul } from './matmul.ts';

type Epilogue = 'addend' | 'gelu-value' | 'gelu-slope' | 'addend+gelu-value';

interface Inputs {
  a: Float32Array;
  b: Float32Array;
  bias?: Float32Array;
  /** The addend, or GELU's argument for the slope: C's shape. */
  side: Float32Array;
}

function inputs(shape: MatmulShape, bias: boolean, seed: number): Inputs {
  const r = new SeededRandom(seed);
  const batch = shape.batch ?? 1;
  const scale = (x: Float32Array, s: number) => x.map((v) => v * s);
  return {
    a: r.uniformArray(batch * shape.M * shape.K),
    b: r.uniformArray(batch * shape.K * shape.N),
    ...(bias ? { bias: r.uniformArray(shape.N) } : {}),
    side: scale(r.uniformArray(batch * shape.M * shape.N), 3), // GELU's curved part, −3 … 3
  };
}

/** Runs one fused matmul; returns C and, for gelu-value, the activation. */
async function fused(gpu: Gpu, shape: MatmulShape, x: Inputs, epilogue: Epilogue): Promise<{ c: Float32Array; act?: Float32Array }> {
  const size = (shape.batch ?? 1) * shape.M * shape.N;
  const owned: Tensor[] = [];
  const up = (v: Float32Array) => {
    const t = gpu.upload(v, [v.length]);
    owned.push(t);
    return t;
  };
  const c = gpu.tensor([size], 'f32', 'C');
  const act = gpu.tensor([size], 'f32', 'act');
  owned.push(c, act);
  const ops: MatmulOperands = { a: up(x.a), b: up(x.b), c, ...(x.bias ? { bias: up(x.bias) } : {}) };
  if (epilogue.startsWith('addend')) ops.addend = up(x.side);
  if (epilogue.endsWith('gelu-value')) ops.geluOut = act;
  if (epilogue === 'gelu-slope') ops.geluSlopeAt = up(x.side);
  try {
    gpu.run((rec) => recordMatmul(rec, gpu, ops, shape));
    return { c: await gpu.read(c), ...(ops.geluOut ? { act: await gpu.read(act) } : {}) };
  } finally {
    for (const t of owned) gpu.destroy(t);
  }
}

/** The same through the kernels it replaces: matmul, then residual_add / GELU forward / GELU backward. */
async function unfused(gpu: Gpu, shape: MatmulShape, x: Inputs, epilogue: Epilogue): Promise<{ c: Float32Array; act?: Float32Array }> {
  const size = (shape.batch ?? 1) * shape.M * shape.N;
  const A = gpu.upload(x.a, [x.a.length]);
  const B = gpu.upload(x.b, [x.b.length]);
  const Bias = x.bias ? gpu.upload(x.bias, [x.bias.length]) : undefined;
  const Side = gpu.upload(x.side, [size]);
  const [product, c, act] = [gpu.tensor([size], 'f32'), gpu.tensor([size], 'f32'), gpu.tensor([size], 'f32')];
  try {
    gpu.run((rec) => {
      recordMatmul(rec, gpu, { a: A, b: B, c: product, ...(Bias ? { bias: Bias } : {}) }, shape);
      if (epilogue.startsWith('addend')) recordResidualAdd(rec, gpu, { a: product, b: Side, out: c });
      else if (epilogue === 'gelu-slope') recordGeluBackward(rec, gpu, { x: Side, dout: product, dinp: c });
      else rec.copy(product, c);
      if (epilogue.endsWith('gelu-value')) recordGeluForward(rec, gpu, { x: c, out: act });
    });
    return { c: await gpu.read(c), ...(epilogue.endsWith('gelu-value') ? { act: await gpu.read(act) } : {}) };
  } finally {
    for (const t of [A, B, Bias, Side, product, c, act]) if (t) gpu.destroy(t);
  }
}

function reference(shape: MatmulShape, x: Inputs, epilogue: Epilogue): { c: Float64Array; act?: Float64Array } {
  let c = Float64Array.from(matmulRef(x.a, x.b, shape, x.bias));
  if (epilogue.startsWith('addend')) c = c.map((v, i) => v + x.side[i]);
  if (epilogue === 'gelu-slope') return { c: geluBackwardRef(x.side, c) };
  return { c, ...(epilogue.endsWith('gelu-value') ? { act: geluForwardRef(c) } : {}) };
}

const EPILOGUES: Epilogue[] = ['addend', 'gelu-value', 'gelu-slope', 'addend+gelu-value'];
// Ragged and whole shapes: the scalar path (sizes not multiples of 4), vec4, and on quad-subgroup
// devices the shared rows (N ≥ 32); batched once per layout.
const SHAPES: MatmulShape[] = [
  { M: 13, K: 7, N: 9, layout: 'nn' },
  { M: 37, K: 20, N: 44, layout: 'nn' },
  { M: 9, K: 12, N: 7, batch: 2, layout: 'nt' },
  { M: 67, K: 32, N: 128, layout: 'nt' },
  { M: 6, K: 5, N: 10, layout: 'tn' },
  { M: 36, K: 23, N: 44, batch: 2, layout: 'tn' },
];

describe('matmul epilogues', () => {
  for (const epilogue of EPILOGUES) {
    it(`${epilogue}: the float64 reference and the unfused kernels, every layout and path`, async () => {
      const gpu = await testGpu();
      for (const [i, shape] of SHAPES.entries()) {
        const x = inputs(shape, i % 2 === 0, 100 + i);
        const name = `${epilogue} ${JSON.stringify(shape)}`;
        const got = await fused(gpu, shape, x, epilogue);
        const want = reference(shape, x, epilogue);
        const old = await unfused(gpu, shape, x, epilogue);
        expect(got.c).toBeAllClose(want.c, { atol: 1e-5, rtol: 1e-5, name });
        expect(got.c).toBeAllClose(old.c, { atol: 1e-6, rtol: 1e-6, name: `${name} against unfused` });
        if (want.act) {
          expect(got.act!).toBeAllClose(want.act, { atol: 1e-5, rtol: 1e-5, name: `${name} act` });
          expect(got.act!).toBeAllClose(old.act!, { atol: 1e-6, rtol: 1e-6, name: `${name} act against unfused` });
        }
      }
    });
  }

  it('tn row sums: the bias gradient beside dW, added to its starting values, with C accumulated, on the scalar, vec4 and shared paths', async () => {
    const gpu = await testGpu();
    const shapes: MatmulShape[] = [
      { M: 6, K: 5, N: 10, layout: 'tn' },
      { M: 1, K: 13, N: 3, layout: 'tn' },
      { M: 36, K: 23, N: 12, layout: 'tn' },
      { M: 32, K: 70, N: 96, layout: 'tn' },
      { M: 20, K: 9, N: 44, layout: 'tn' },
    ];
    for (const [i, shape] of shapes.entries()) {
      const r = new SeededRandom(300 + i);
      const a = r.uniformArray(shape.K * shape.M);
      const b = r.uniformArray(shape.K * shape.N);
      const c0 = r.uniformArray(shape.M * shape.N);
      const sums0 = r.uniformArray(shape.M);
      const [A, B, C, Sums] = [a, b, c0, sums0].map((v) => gpu.upload(v, [v.length]));
      try {
        gpu.run((rec) => recordMatmul(rec, gpu, { a: A, b: B, c: C, rowSumsOfA: Sums }, shape, { accumulate: true }));
        const name = JSON.stringify(shape);
        expect(await gpu.read(C)).toBeAllClose(matmulRef(a, b, shape, undefined, c0), { atol: 1e-5, rtol: 1e-5, name });
        const want = Float64Array.from(sums0, (v, m) => {
          let sum = v;
          for (let k = 0; k < shape.K; k++) sum += a[k * shape.M + m];
          return sum;
        });
        expect(await gpu.read(Sums)).toBeAllClose(want, { atol: 1e-5, rtol: 1e-5, name: `${name} row sums` });
      } finally {
        for (const t of [A, B, C, Sums]) gpu.destroy(t);
      }
    }
  });

  it('refuses an epilogue with accumulation, two GELU epilogues at once, and a side tensor of the wrong size', async () => {
    const gpu = await testGpu();
    const shape = { M: 4, K: 4, N: 4 };
    const [a, b, c, d] = [0, 1, 2, 3].map(() => gpu.tensor([16], 'f32'));
    const small = gpu.tensor([15], 'f32');
    const [rows, eight] = [gpu.tensor([4], 'f32'), gpu.tensor([8], 'f32')];
    const record = (ops: MatmulOperands, accumulate = false) => gpu.run((rec) => recordMatmul(rec, gpu, ops, shape, { accumulate }));
    try {
      expect(() => record({ a, b, c, addend: d }, true)).toThrow(/does not combine with accumulate/);
      expect(() => record({ a, b, c, geluOut: d, geluSlopeAt: a })).toThrow(/geluOut and geluSlopeAt/);
      expect(() => record({ a, b, c, addend: small })).toThrow(/addend for M=4, K=4, N=4/);
      expect(() => record({ a, b, c, rowSumsOfA: rows })).toThrow(/a tn epilogue/);
      const batched = { M: 2, K: 2, N: 4, batch: 2, layout: 'tn' as const };
      expect(() => gpu.run((rec) => recordMatmul(rec, gpu, { a: eight, b, c, rowSumsOfA: rows }, batched))).toThrow(/got batch 2/);
    } finally {
      for (const t of [a, b, c, d, small, rows, eight]) gpu.destroy(t);
    }
  });
});
