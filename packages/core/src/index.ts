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
