import { describe, expect, it } from 'vitest';
import { testGpu } from '../testing/node-gpu.ts';
import { GpuError } from './errors.ts';

describe('GPU runtime', () => {
  it('uploads, reads back, copies and clears tensors, including views into one buffer', async () => {
    const gpu = await testGpu();
    const align = gpu.viewAlignment;
    const flat = gpu.tensor([align * 3], 'f32', 'flat');
    const first = gpu.view(flat, 0, [5], 'first');
    const second = gpu.view(flat, align * 2, [3], 'second');
    gpu.write(first, new Float32Array([1, 2, 3, 4, 5]));
    gpu.write(second, new Float32Array([7, 8, 9]));
    expect(Array.from(await gpu.read(second))).toEqual([7, 8, 9]);
    const whole = await gpu.read(flat);
    expect(Array.from(whole.subarray(0, 5))).toEqual([1, 2, 3, 4, 5]);
    expect(whole[align * 2 + 2]).toBe(9);

    const other = gpu.tensor([4], 'f32', 'other');
    gpu.run((rec) => {
      rec.copy(first, other, 3);
      rec.clear(first);
    });
    expect(Array.from(await gpu.read(other))).toEqual([1, 2, 3, 0]);
    expect(Array.from(await gpu.read(first))).toEqual([0, 0, 0, 0, 0]);
    expect(() => gpu.begin().copy(first, second)).toThrow(/share a buffer/);
  });

  it('reads several tensors back in one submit, in order, each with its own type', async () => {
    const gpu = await testGpu();
    const a = gpu.upload(new Float32Array([1.5, -2]));
    const b = gpu.upload(new Uint32Array([7, 8, 9]));
    const c = gpu.upload(new Float32Array([3]));
    const before = gpu.stats.submits;
    const [ra, rb, rc] = await gpu.readMany([a, b, c]);
    expect(gpu.stats.submits - before).toBe(1);
    expect(ra).toBeInstanceOf(Float32Array);
    expect(rb).toBeInstanceOf(Uint32Array);
    expect([Array.from(ra), Array.from(rb), Array.from(rc)]).toEqual([[1.5, -2], [7, 8, 9], [3]]);
  });

  it('counts uploads and readbacks with their bytes, one readback per readMany however many tensors', async () => {
    const gpu = await testGpu();
    const before = { ...gpu.stats };
    const a = gpu.upload(new Float32Array([1, 2, 3]));
    const b = gpu.upload(new Uint32Array([4, 5]));
    gpu.write(a, new Float32Array([6]), 2);
    expect(gpu.stats.uploads - before.uploads).toBe(3);
    expect(gpu.stats.uploadBytes - before.uploadBytes).toBe(12 + 8 + 4);
    await gpu.readMany([a, b]);
    await gpu.read(b);
    expect(gpu.stats.readbacks - before.readbacks).toBe(2);
    expect(gpu.stats.readbackBytes - before.readbackBytes).toBe(12 + 8 + 8);
  });

  it('refuses misaligned views and views past the end', async () => {
    const gpu = await testGpu();
    const flat = gpu.tensor([gpu.viewAlignment * 2], 'f32', 'flat');
    expect(() => gpu.view(flat, 3, [2])).toThrow(/multiple of/);
    expect(() => gpu.view(flat, gpu.viewAlignment, [gpu.viewAlignment + 1])).toThrow(/past the end/);
  });

  it('reuses pipelines and uniform buffers for identical sources and parameters', async () => {
    const gpu = await testGpu();
    const wgsl = '@group(0) @binding(0) var<storage, read_write> x: array<f32>;\n@compute @workgroup_size(1) fn main() { x[0] = 1.0; }';
    expect(gpu.pipeline(wgsl)).toBe(gpu.pipeline(wgsl));
    expect(gpu.uniform([1, 2, 3])).toBe(gpu.uniform([1, 2, 3]));
    expect(gpu.uniform([1, 2, 3])).not.toBe(gpu.uniform([1, 2, 4]));
  });

  it('turns a shader that does not compile into a typed validation error', async () => {
    const gpu = await testGpu();
    const broken = '@compute @workgroup_size(1) fn main() { let x: f32 = undefined_name; }';
    const out = gpu.tensor([1]);
    gpu.run((rec) => rec.dispatch(gpu.pipeline(broken), [], 1));
    const failure = await gpu.read(out).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(GpuError);
    expect((failure as GpuError).kind).toBe('validation');
    expect((failure as GpuError).message).toMatch(/undefined_name|unresolved/);
  });
});
