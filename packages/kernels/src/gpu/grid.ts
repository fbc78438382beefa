// A 1-D range of invocations laid over a 2-D dispatch, for kernels with one invocation per row or
// per element: WebGPU caps each dispatch dimension at 65535 workgroups, so 65535·64 rows is the most a
// 1-D dispatch reaches (a [N, V] = [512, 50000] elementwise pass needs 100k workgroups of 256).
//
// In WGSL, with `@builtin(global_invocation_id) gid` and `@builtin(num_workgroups) nwg`:
//   let i = flatIndex(gid, nwg);   // then `if (i >= count) { return; }`

import type { Gpu } from './runtime.ts';

/** Workgroups [x, y] that cover `count` invocations of `workgroupSize`, x·y as close to the need as the limit allows. */
export function gridFor(gpu: Gpu, count: number, workgroupSize: number): [number, number] {
  const limit = gpu.device.limits.maxComputeWorkgroupsPerDimension;
  const groups = Math.ceil(count / workgroupSize);
  if (groups <= limit) return [groups, 1];
  const y = Math.ceil(groups / limit);
  if (y > limit) throw new RangeError(`gridFor: ${count} invocations exceed ${limit}² workgroups of ${workgroupSize}`);
  return [Math.ceil(groups / y), y];
}

/** WGSL helper paired with `gridFor`; `WG` is the caller's workgroup size. */
export function flatIndexWgsl(workgroupSize: number): string {
  return /* wgsl */ `
fn flatIndex(gid: vec3u, nwg: vec3u) -> u32 {
  return gid.x + gid.y * nwg.x * ${workgroupSize}u;
}
`;
}
