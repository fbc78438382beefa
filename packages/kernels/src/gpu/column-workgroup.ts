// The workgroup size of kernels that run one invocation per column and loop over rows (bias and
// LayerNorm parameter gradients): their grids are a few dozen invocations. SwiftShader runs each
// workgroup on one thread, so 64 invocations made one workgroup and used one core of two; as one
// four-lane subgroup per workgroup the columns spread over every core. A device with four-lane
// subgroups (the probe in quad-subgroups.ts) is such a CPU device; elsewhere 64 keeps the lanes of
// a GPU's wide subgroups filled.

import type { Gpu } from './runtime.ts';

export function columnWorkgroupSize(gpu: Gpu): number {
  return gpu.report.quadSubgroups ? 4 : 64;
}
