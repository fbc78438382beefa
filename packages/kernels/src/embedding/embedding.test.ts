import { describe, expect, it } from 'vitest';
import { testGpu } from '../testing/node-gpu.ts';
import { SeededRandom } from '../util/seeded-random.ts';
import { embeddingBackwardRef, embeddingForwardRef } from './embedding.ref.ts';
import { type EmbeddingShape, embeddingBackward, embeddingForward, recordEmbeddingBackward, recordEmbeddingForward } from './embedding.ts';

const rng = new SeededRandom(51);
const tol = { atol: 1e-6, rtol: 1e-5 };

function tokensFor(shape: EmbeddingShape, extra: number[] = []): Uint32Array {
  const ids = Uint32Array.from({ length: shape.B * shape.T }, () => rng.int(0, shape.V - 1));
  extra.forEach((id, i) => {
    ids[i * 3] = id;
  });
  return ids;
}

describe('embedding forward and backward', () => {
  it('forward matches the reference, with a context longer than T', async () => {
    const gpu = await testGpu();
    const shape = { B: 3, T: 7, V: 11, D: 13 };
    const tokens = tokensFor(shape);
    const wte = rng.uniformArray(shape.V * shape.D);
    const wpe = rng.uniformArray(9 * shape.D);
    expect(await embeddingForward(gpu, tokens, wte, wpe, shape)).toBeAllClose(embeddingForwardRef(tokens, wte, wpe, shape), tol);
  });

  it('backward matches the reference with more vocabulary rows than one 64-invocation workgroup', async () => {
    const gpu = await testGpu();
    const shape = { B: 3, T: 11, V: 70, D: 5 };
    const tokens = tokensFor(shape, [69, 64, 65]);
    const dx = rng.uniformArray(shape.B * shape.T * shape.D);
    const got = await embeddingBackward(gpu, tokens, dx, shape);
    const want = embeddingBackwardRef(tokens, dx, shape);
    expect(got.dwte).toBeAllClose(want.dwte, { ...tol, name: 'dwte' });
    expect(got.dwpe).toBeAllClose(want.dwpe, { ...tol, name: 'dwpe' });
  });

  it('backward matches the reference: repeated tokens sum, unused rows stay zero', async () => {
    const gpu = await testGpu();
    const shape = { B: 4, T: 9, V: 19, D: 6 };
    const tokens = tokensFor(shape);
    tokens.fill(5, 0, 10);
    const dx = rng.uniformArray(shape.B * shape.T * shape.D);
    const got = await embeddingBackward(gpu, tokens, dx, shape);
    const want = embeddingBackwardRef(tokens, dx, shape);
    expect(got.dwte).toBeAllClose(want.dwte, { ...tol, name: 'dwte' });
    expect(got.dwpe).toBeAllClose(want.dwpe, { ...tol, name: 'dwpe' });
    const used = new Set(tokens);
    for (let v = 0; v < shape.V; v++) if (!used.has(v)) expect(Array.from(got.dwte.subarray(v * 6, v * 6 + 6))).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('masks token ids ≥ V: zero token embedding forward, no gradient to any row backward', async () => {
    const gpu = await testGpu();
    const shape = { B: 2, T: 5, V: 4, D: 3 };
    const tokens = tokensFor(shape, [4, 0xffffffff, 1000]);
    const wte = rng.uniformArray(shape.V * shape.D);
    const wpe = rng.uniformArray(shape.T * shape.D);
    const x = await embeddingForward(gpu, tokens, wte, wpe, shape);
    expect(x).toBeAllClose(embeddingForwardRef(tokens, wte, wpe, shape), tol);
    expect(Array.from(x.subarray(0, 3))).toEqual(Array.from(wpe.subarray(0, 3)));
    const dx = rng.uniformArray(shape.B * shape.T * shape.D);
    const got = await embeddingBackward(gpu, tokens, dx, shape);
    expect(got.dwte).toBeAllClose(embeddingBackwardRef(tokens, dx, shape).dwte, tol);
  });

  it('backward adds to dwte and dwpe, and leaves wpe rows past T alone', async () => {
    const gpu = await testGpu();
    const shape = { B: 2, T: 3, V: 5, D: 4 };
    const context = 6;
    const tokens = tokensFor(shape);
    const dx = rng.uniformArray(shape.B * shape.T * shape.D);
    const startWte = rng.uniformArray(shape.V * shape.D);
    const startWpe = rng.uniformArray(context * shape.D);
    const t = { tokens: gpu.upload(tokens), dx: gpu.upload(dx), dwte: gpu.upload(startWte), dwpe: gpu.upload(startWpe, [context, shape.D]) };
    gpu.run((rec) => recordEmbeddingBackward(rec, gpu, t, shape));
    const want = embeddingBackwardRef(tokens, dx, shape);
    expect(await gpu.read(t.dwte)).toBeAllClose(
      want.dwte.map((v, i) => v + startWte[i]),
      tol,
    );
    const dwpe = await gpu.read(t.dwpe);
    expect(dwpe.subarray(0, shape.T * shape.D)).toBeAllClose(
      want.dwpe.map((v, i) => v + startWpe[i]),
      tol,
    );
    expect(Array.from(dwpe.subarray(shape.T * shape.D))).toEqual(Array.from(startWpe.subarray(shape.T * shape.D)));
    for (const tensor of Object.values(t)) gpu.destroy(tensor);
  });

  it('rejects bad shapes and operands, naming them', async () => {
    const gpu = await testGpu();
    const shape = { B: 1, T: 4, V: 3, D: 2 };
    await expect(embeddingForward(gpu, new Uint32Array(4), new Float32Array(6), new Float32Array(6), shape)).rejects.toThrow(/wpe holds 6 values/);
    await expect(embeddingForward(gpu, new Uint32Array(4), new Float32Array(6), new Float32Array(8), { ...shape, V: 0 })).rejects.toThrow(
      /V must be at least 1/,
    );
    const x = gpu.tensor([8]);
    const floatTokens = gpu.tensor([4]);
    expect(() => recordEmbeddingForward(gpu.begin(), gpu, { tokens: floatTokens, wte: gpu.tensor([6]), wpe: gpu.tensor([8]), x }, shape)).toThrow(
      /tokens .* must be u32/,
    );
  });
});
