// @horizon/core: the platform-free trainer. Knows nothing of Node, Deno or the DOM.

export { type GptConfig, headDim, LAYER_NORM_EPS, type ModelHead, validateGptConfig } from './model/config.ts';
export { initParameters } from './model/init.ts';
export {
  INIT_STD,
  type InitKind,
  PARAMETER_ALIGNMENT,
  type ParameterEntry,
  type ParameterLayout,
  type ParameterSpec,
  parameterEntry,
  parameterLayout,
  parameterSpecs,
} from './model/parameters.ts';
export { type AdamWHyperparameters, referenceAdamW, validateAdamW, weightDecayMask } from './model/reference/adamw.ts';
export {
  compareToGolden,
  FLOAT64_TOLERANCES,
  GOLDEN_FORMAT,
  GOLDEN_VERSION,
  type GoldenActual,
  type GoldenCase,
  type GoldenComparison,
  type GoldenFixture,
  type GoldenTolerances,
  parseGoldenFixture,
  type TensorError,
} from './model/reference/golden.ts';
export {
  type ReferenceCache,
  type ReferenceGradients,
  type ReferenceLayerCache,
  type ReferenceLossOutput,
  type ReferenceOutput,
  referenceBackward,
  referenceForward,
  referenceLoss,
  referenceModelBackward,
  type TokenIds,
} from './model/reference/gpt.ts';
export {
  CharTokenizer,
  type CharTokenizerOptions,
  type DecodeOptions,
  type EncodeOptions,
  PRINTABLE_ASCII,
  SPECIAL_TOKENS,
  type SpecialToken,
} from './tokenizer/char-tokenizer.ts';
