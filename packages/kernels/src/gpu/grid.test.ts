import { describe, expect, it } from 'vitest';
import { testGpu } from '../testing/node-gpu.ts';
import { flatIndexWgsl, gridFor } from './grid.ts';
import type { Gpu } from './runtime.ts';

const fakeGpu = (limit: number) => ({ device: { limits: { maxComputeWorkgroupsPerDimension: limit } } }) as unknown as Gpu;

describe('gridFor', () => {
  it('uses one dimension up to the limit and splits evenly past it', () => {
    expect(gridFor(fakeGpu(65535), 100, 64)).toEqual([2, 1]);
    expect(gridFor(fakeGpu(65535), 65535 * 64, 64)).toEqual([65535, 1]);
    // 512·50 000 logits in workgroups of 256: 100 000 workgroups, two rows of 50 000.
    expect(gridFor(fakeGpu(65535), 512 * 50_000, 256)).toEqual([50_000, 2]);
    const [x, y] = gridFor(fakeGpu(20), 1000, 4); // 250 workgroups under a limit of 20
    expect(x).toBeLessThanOrEqual(20);
    expect(y).toBeLessThanOrEqual(20);
    expect(x * y * 4).toBeGreaterThanOrEqual(1000);
    expect(() => gridFor(fakeGpu(10), 1000, 1)).toThrow(/exceed 10² workgroups/);
  });

  it('flatIndex numbers the invocations of a 2-D dispatch 0, 1, 2, … exactly once', async () => {
    const gpu = await testGpu();
    const wgsl = /* wgsl */ `${flatIndexWgsl(8)}
@group(0) @binding(0) var<storage, read_write> out: array<u32>;
@compute @workgroup_size(8)
fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(num_workgroups) nwg: vec3u) {
  let i = flatIndex(gid, nwg);
  out[i] = out[i] + i + 1u;
}`;
    const out = gpu.tensor([3 * 2 * 8], 'u32', 'out');
    gpu.run((rec) => rec.dispatch(gpu.pipeline(wgsl, 'main', 'flat_index_test'), [out], 3, 2));
    expect(Array.from(await gpu.read(out))).toEqual(Array.from({ length: 48 }, (_, i) => i + 1));
    gpu.destroy(out);
  });
});
