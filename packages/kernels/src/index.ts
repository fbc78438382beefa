// @horizon/kernels: the GPU runtime, WGSL kernels and their float64 references.
// Platform-free: the Node (Dawn) provider is the separate entry point `@horizon/kernels/node`.

export { attentionBackwardRef, attentionForwardRef } from './attention/attention.ref.ts';
export {
  type AttentionBackwardTensors,
  type AttentionForwardTensors,
  type AttentionShape,
  attentionBackward,
  attentionForward,
  checkAttentionShape,
  MAX_HEAD_DIM,
  recordAttentionBackward,
  recordAttentionForward,
} from './attention/attention.ts';
export { decodeAttentionRef, kvCacheWriteRef } from './attention/kv-cache.ref.ts';
export {
  type DecodeAttentionTensors,
  decodeAttention,
  type KvCacheShape,
  type KvCacheWriteTensors,
  kvCacheWrite,
  recordDecodeAttention,
  recordKvCacheWrite,
} from './attention/kv-cache.ts';
export { classifierBackwardRef, classifierForwardRef } from './classifier/classifier.ref.ts';
export {
  type ClassifierBackwardTensors,
  type ClassifierForwardTensors,
  type ClassifierOptions,
  type ClassifierShape,
  classifierBackward,
  classifierForward,
  recordClassifierBackward,
  recordClassifierForward,
} from './classifier/classifier.ts';
export { advanceRef, decodeEmbeddingRef } from './generation/generation.ref.ts';
export { type AdvanceTensors, type DecodeEmbeddingTensors, recordAdvance, recordDecodeEmbedding } from './generation/generation.ts';
export { GpuError, type GpuErrorKind, isGpuError } from './gpu/errors.ts';
export { flatIndexWgsl, gridFor } from './gpu/grid.ts';
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
export { mulhi32, type PhiloxTensors, philox4x32, philoxBlocks, recordPhilox, samplingUniform, uniformFromBits } from './sampling/philox.ts';
export { PHILOX_WGSL } from './sampling/philox.wgsl.ts';
export { type SampleRefRow, sampleRef } from './sampling/sample.ref.ts';
export { checkSampleOptions, MIN_TEMPERATURE, recordSample, type SampleOptions, type SampleShape, type SampleTensors, sample } from './sampling/sample.ts';
export { compareArrays, describeMismatch, type Mismatch } from './util/compare.ts';
export { SeededRandom } from './util/seeded-random.ts';
