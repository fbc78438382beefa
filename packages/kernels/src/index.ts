// @horizon/kernels: the GPU runtime, WGSL kernels and their float64 references.
// Platform-free: the Node (Dawn) provider is the separate entry point `@horizon/kernels/node`.

export { GpuError, type GpuErrorKind, isGpuError } from './gpu/errors.ts';
export { NO_ADAPTER_REMEDIES, remedyText } from './gpu/remedies.ts';
export {
  type DeviceReport,
  deviceLine,
  LIMITS_THAT_MATTER,
  type LimitName,
  missingLimits,
  REQUIRED_LIMITS,
  type RuntimeName,
} from './gpu/report.ts';
export { type Binding, Gpu, type GpuStats, Recorder } from './gpu/runtime.ts';
export { type DType, elementCount, type HostArray, Tensor } from './gpu/tensor.ts';
export { ceilDiv, f32Bits } from './gpu/wgsl.ts';
export { matmulRef } from './matmul/matmul.ref.ts';
export { chooseMatmulVariant, type MatmulOperands, type MatmulShape, matmul, recordMatmul } from './matmul/matmul.ts';
export type { MatmulLayout } from './matmul/matmul.wgsl.ts';
export { compareArrays, describeMismatch, type Mismatch } from './util/compare.ts';
export { SeededRandom } from './util/seeded-random.ts';
