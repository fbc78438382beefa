// @horizon/kernels: the GPU runtime, WGSL kernels and their float64 references.
// Platform-free: the Node (Dawn) provider is the separate entry point `@horizon/kernels/node`.

export { adamWRef } from './adamw/adamw.ref.ts';
export {
  ADAMW_STEP_SIZE,
  type AdamWHyperparameters,
  type AdamWOptions,
  type AdamWTensors,
  adamW,
  adamWStepValues,
  recordAdamW,
  writeAdamWStep,
} from './adamw/adamw.ts';
export { FLAG_BLOCK, FLAG_DECAY, FLAG_FROZEN, type FlagRange, parameterFlags } from './adamw/flags.ts';
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
export { biasBackwardRef } from './bias/bias.ref.ts';
export { type BiasBackwardTensors, biasBackward, recordBiasBackward } from './bias/bias.ts';
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
export { embeddingBackwardRef, embeddingForwardRef } from './embedding/embedding.ref.ts';
export {
  type EmbeddingBackwardTensors,
  type EmbeddingForwardTensors,
  type EmbeddingShape,
  embeddingBackward,
  embeddingForward,
  recordEmbeddingBackward,
  recordEmbeddingForward,
} from './embedding/embedding.ts';
export { geluBackwardRef, geluForwardRef } from './gelu/gelu.ref.ts';
export { geluBackward, geluForward, recordGeluBackward, recordGeluForward } from './gelu/gelu.ts';
export { advanceRef, decodeEmbeddingRef, stopCheckRef } from './generation/generation.ref.ts';
export {
  type AdvanceTensors,
  type DecodeEmbeddingTensors,
  NO_STOP,
  recordAdvance,
  recordDecodeEmbedding,
  recordStopCheck,
  type StopCheckTensors,
} from './generation/generation.ts';
export { GpuError, type GpuErrorKind, isGpuError } from './gpu/errors.ts';
export { flatIndexWgsl, gridFor } from './gpu/grid.ts';
export { diagnoseNoAdapter, NO_ADAPTER_REMEDIES, remedyText } from './gpu/remedies.ts';
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
export { gradNormRef } from './gradnorm/gradnorm.ref.ts';
export { type GradNormTensors, gradNorm, recordGradNorm } from './gradnorm/gradnorm.ts';
export { GRAD_NORM_PARTIALS } from './gradnorm/gradnorm.wgsl.ts';
export { layerNormBackwardRef, layerNormForwardRef } from './layernorm/layernorm.ref.ts';
export {
  LAYERNORM_EPS,
  type LayerNormBackwardTensors,
  type LayerNormForwardTensors,
  type LayerNormShape,
  layerNormBackward,
  layerNormForward,
  recordLayerNormBackward,
  recordLayerNormForward,
} from './layernorm/layernorm.ts';
export { matmulRef } from './matmul/matmul.ref.ts';
export { chooseMatmulVariant, type MatmulOperands, type MatmulOptions, type MatmulShape, matmul, recordMatmul } from './matmul/matmul.ts';
export { canShareRows, MATMUL_BLOCKING, type MatmulBlocking, type MatmulLayout, type MatmulVariant, matmulTile, matmulWgsl } from './matmul/matmul.wgsl.ts';
export { residualAddRef } from './residual/residual.ref.ts';
export { recordResidualAccumulate, recordResidualAdd, residualAccumulate, residualAdd } from './residual/residual.ts';
export * from './rl/index.ts';
export { mulhi32, type PhiloxTensors, philox4x32, philoxBlocks, recordPhilox, samplingUniform, uniformFromBits } from './sampling/philox.ts';
export { PHILOX_WGSL } from './sampling/philox.wgsl.ts';
export { type SampleRefRow, sampleRef } from './sampling/sample.ref.ts';
export { checkSampleOptions, MIN_TEMPERATURE, recordSample, type SampleOptions, type SampleShape, type SampleTensors, sample } from './sampling/sample.ts';
export { compareArrays, describeMismatch, type Mismatch } from './util/compare.ts';
export { SeededRandom } from './util/seeded-random.ts';
