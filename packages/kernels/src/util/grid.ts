// Dispatch shapes for kernels with one invocation per element. A dispatch holds at most 65535
// workgroups per dimension, so long 1-D ranges fold into x and y; the shader rebuilds the index as
//   i = gid.x + gid.y * num_workgroups.x * WORKGROUP        (see `gridIndexWgsl`)
// and returns when i is past the end.

import { ceilDiv } from '../gpu/wgsl.ts';

/** Invocations per workgroup for elementwise kernels: 64 is what most GPUs and SwiftShader like. */
export const ELEMENTWISE_WORKGROUP = 64;

/** Workgroup counts [x, y] covering `invocations` invocations in groups of `workgroupSize`. */
export function grid1d(invocations: number, workgroupSize = ELEMENTWISE_WORKGROUP, limit = 65535): [number, number] {
  const groups = ceilDiv(invocations, workgroupSize);
  if (groups <= limit) return [groups, 1];
  const y = ceilDiv(groups, limit);
  return [ceilDiv(groups, y), y];
}

/** WGSL expression for the flat invocation index, given `gid` and `nwg` (num_workgroups) builtins. */
export function gridIndexWgsl(workgroupSize = ELEMENTWISE_WORKGROUP): string {
  return `(gid.x + gid.y * nwg.x * ${workgroupSize}u)`;
}
