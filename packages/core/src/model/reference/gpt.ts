// The float64 reference GPT: the whole forward and backward of the model in ../config.ts, over
// Float64Arrays in the flat parameter layout of ../parameters.ts, built from ./layers.ts. It is the
// spec the GPU model is checked against (tests/golden/), and is itself checked against finite differences
// (gpt.test.ts) and against PyTorch (tests/golden/, fixture from tools/golden/gpt_golden.py).
// It allocates freely and runs in plain loops: use tiny configurations.
//
// Shape legend:  B batch · T tokens (≤ contextLength) · N = B·T · V vocabSize · D width · H heads
//                L layers · P flat parameter count (layout.totalSize, padding included)

import { type GptConfig, LAYER_NORM_EPS, validateGptConfig } from '../config.ts';
import { type ParameterLayout, parameterLayout } from '../parameters.ts';
import {
  attentionBackward,
  attentionForward,
  crossEntropyBackward,
  crossEntropyForward,
  embeddingBackward,
  embeddingForward,
  geluBackward,
  geluForward,
  layerNormBackward,
  layerNormForward,
  linearBackward,
  linearForward,
  mseBackward,
  mseForward,
  residualBackward,
  residualForward,
} from './layers.ts';

type F64 = Float64Array;
export type TokenIds = Int32Array | Uint32Array;

/** Activations of one transformer block, kept for the backward pass. */
export interface ReferenceLayerCache {
  input: F64; // [N, D] residual stream entering the block
  ln1: F64; // [N, D]
  ln1Mean: F64; // [N]
  ln1Rstd: F64; // [N]
  qkv: F64; // [N, 3D]
  att: F64; // [B, H, T, T] attention probabilities
  attY: F64; // [N, D] attention output before c_proj
  attProj: F64; // [N, D]
  residual1: F64; // [N, D] input + attProj
  ln2: F64; // [N, D]
  ln2Mean: F64; // [N]
  ln2Rstd: F64; // [N]
  fc: F64; // [N, 4D] before GELU
  fcGelu: F64; // [N, 4D]
  fcProj: F64; // [N, D]
  output: F64; // [N, D] residual1 + fcProj
}

export interface ReferenceCache {
  config: GptConfig;
  layout: ParameterLayout;
  B: number;
  T: number;
  tokens: TokenIds; // [B, T]
  embedded: F64; // [N, D] wte[tokens] + wpe
  layers: ReferenceLayerCache[];
  lnf: F64; // [N, D] final LayerNorm output, the head's input
  lnfMean: F64; // [N]
  lnfRstd: F64; // [N]
}

export interface ReferenceOutput {
  /** [B, T, V], present for the 'lm' head. */
  logits?: F64;
  /** [B, T], present for the 'value' head. */
  values?: F64;
  cache: ReferenceCache;
}

export interface ReferenceLossOutput extends ReferenceOutput {
  loss: number;
}

export interface ReferenceGradients {
  loss: number;
  /** [P] in the flat parameter layout; padding stays 0. */
  grads: F64;
}

/** name → that parameter's slice of a flat buffer (a view, not a copy). */
function views(layout: ParameterLayout, flat: F64): Record<string, F64> {
  const out: Record<string, F64> = {};
  for (const e of layout.entries) out[e.name] = flat.subarray(e.offset, e.offset + e.size);
  return out;
}

function checkInputs(config: GptConfig, layout: ParameterLayout, params: F64, tokens: TokenIds, B: number, T: number): void {
  if (!Number.isInteger(B) || B < 1) throw new RangeError(`B must be a positive integer, got ${B}`);
  if (!Number.isInteger(T) || T < 1 || T > config.contextLength) {
    throw new RangeError(`T must be an integer in [1, contextLength = ${config.contextLength}], got ${T}`);
  }
  if (params.length !== layout.totalSize) throw new RangeError(`params has ${params.length} values; the layout of this config needs ${layout.totalSize}`);
  for (let i = 0; i < params.length; i++) {
    if (!Number.isFinite(params[i])) throw new RangeError(`params[${i}] is ${params[i]}; parameters must be finite`);
  }
  if (tokens.length !== B * T) throw new RangeError(`tokens has ${tokens.length} values; expected B·T = ${B * T}`);
  for (let i = 0; i < tokens.length; i++) {
    if (!(tokens[i] >= 0 && tokens[i] < config.vocabSize)) throw new RangeError(`tokens[${i}] = ${tokens[i]} is outside [0, vocabSize = ${config.vocabSize})`);
  }
}

// ------------------------------------------------------------------ forward

/** Runs the model on tokens [B, T]; returns logits [B, T, V] or values [B, T] and the activations. */
export function referenceForward(config: GptConfig, params: F64, tokens: TokenIds, B: number, T: number): ReferenceOutput {
  validateGptConfig(config);
  const layout = parameterLayout(config);
  checkInputs(config, layout, params, tokens, B, T);
  const p = views(layout, params);
  const { width: D, heads: H, vocabSize: V } = config;
  const N = B * T;

  const embedded = new Float64Array(N * D);
  embeddingForward(embedded, tokens, p['transformer.wte.weight'], p['transformer.wpe.weight'], B, T, D);
  const layers: ReferenceLayerCache[] = [];
  let x: F64 = embedded;
  for (let l = 0; l < config.layers; l++) {
    const n = (s: string) => p[`transformer.h.${l}.${s}`];
    const c: ReferenceLayerCache = {
      input: x,
      ln1: new Float64Array(N * D),
      ln1Mean: new Float64Array(N),
      ln1Rstd: new Float64Array(N),
      qkv: new Float64Array(N * 3 * D),
      att: new Float64Array(B * H * T * T),
      attY: new Float64Array(N * D),
      attProj: new Float64Array(N * D),
      residual1: new Float64Array(N * D),
      ln2: new Float64Array(N * D),
      ln2Mean: new Float64Array(N),
      ln2Rstd: new Float64Array(N),
      fc: new Float64Array(N * 4 * D),
      fcGelu: new Float64Array(N * 4 * D),
      fcProj: new Float64Array(N * D),
      output: new Float64Array(N * D),
    };
    layerNormForward(c.ln1, c.ln1Mean, c.ln1Rstd, x, n('ln_1.weight'), n('ln_1.bias'), N, D, LAYER_NORM_EPS);
    linearForward(c.qkv, c.ln1, n('attn.c_attn.weight'), n('attn.c_attn.bias'), N, D, 3 * D);
    attentionForward(c.attY, c.att, c.qkv, B, T, D, H);
    linearForward(c.attProj, c.attY, n('attn.c_proj.weight'), n('attn.c_proj.bias'), N, D, D);
    residualForward(c.residual1, x, c.attProj, N * D);
    layerNormForward(c.ln2, c.ln2Mean, c.ln2Rstd, c.residual1, n('ln_2.weight'), n('ln_2.bias'), N, D, LAYER_NORM_EPS);
    linearForward(c.fc, c.ln2, n('mlp.c_fc.weight'), n('mlp.c_fc.bias'), N, D, 4 * D);
    geluForward(c.fcGelu, c.fc, N * 4 * D);
    linearForward(c.fcProj, c.fcGelu, n('mlp.c_proj.weight'), n('mlp.c_proj.bias'), N, 4 * D, D);
    residualForward(c.output, c.residual1, c.fcProj, N * D);
    layers.push(c);
    x = c.output;
  }
  const lnf = new Float64Array(N * D);
  const lnfMean = new Float64Array(N);
  const lnfRstd = new Float64Array(N);
  layerNormForward(lnf, lnfMean, lnfRstd, x, p['transformer.ln_f.weight'], p['transformer.ln_f.bias'], N, D, LAYER_NORM_EPS);
  const cache: ReferenceCache = { config, layout, B, T, tokens, embedded, layers, lnf, lnfMean, lnfRstd };

  if (config.head === 'lm') {
    const logits = new Float64Array(N * V); // [B, T, V]
    linearForward(logits, lnf, p['lm_head.weight'], null, N, D, V);
    return { logits, cache };
  }
  const values = new Float64Array(N); // [B, T]
  linearForward(values, lnf, p['value_head.weight'], p['value_head.bias'], N, D, 1);
  return { values, cache };
}

// ------------------------------------------------------------------ loss

function checkLossInputs(config: GptConfig, targets: ArrayLike<number>, lossMask: ArrayLike<number>, N: number): void {
  if (targets.length !== N) throw new RangeError(`targets has ${targets.length} values; expected B·T = ${N}`);
  if (lossMask.length !== N) throw new RangeError(`lossMask has ${lossMask.length} values; expected B·T = ${N}`);
  for (let i = 0; i < N; i++) {
    const w = lossMask[i];
    if (!(Number.isFinite(w) && w >= 0)) throw new RangeError(`lossMask[${i}] = ${w}; weights must be finite and ≥ 0 (1 = counts, 0 = ignored)`);
    if (w === 0) continue; // ignored positions may hold any target, e.g. −1
    const y = targets[i];
    if (config.head === 'lm' && !(Number.isInteger(y) && y >= 0 && y < config.vocabSize)) {
      throw new RangeError(`targets[${i}] = ${y} is outside [0, vocabSize = ${config.vocabSize}) at a position lossMask counts`);
    }
    if (config.head === 'value' && !Number.isFinite(y)) throw new RangeError(`targets[${i}] = ${y}; value targets must be finite`);
  }
}

/**
 * Forward plus loss. 'lm': mean cross-entropy of targets [B, T] (token ids) over the positions
 * lossMask [B, T] counts; 'value': mean squared error against targets [B, T] over the same.
 * The mean is Σ w·ℓ / Σ w, so fractional weights also work; with nothing counted the loss is 0.
 */
export function referenceLoss(
  config: GptConfig,
  params: F64,
  tokens: TokenIds,
  B: number,
  T: number,
  targets: ArrayLike<number>,
  lossMask: ArrayLike<number>,
): ReferenceLossOutput {
  validateGptConfig(config);
  checkLossInputs(config, targets, lossMask, B * T);
  const out = referenceForward(config, params, tokens, B, T);
  const loss = out.logits ? crossEntropyForward(out.logits, targets, lossMask, B * T, config.vocabSize) : mseForward(out.values!, targets, lossMask, B * T);
  return { ...out, loss };
}

// ------------------------------------------------------------------ backward

/**
 * Backpropagates dOutput — dlogits [B, T, V] for 'lm', dvalues [B, T] for 'value' — through the
 * model whose activations `cache` holds. Returns the flat gradient [P]; padding stays 0. This is the
 * entry point for losses computed elsewhere (PPO, distillation), which supply their own dOutput.
 */
export function referenceModelBackward(params: F64, cache: ReferenceCache, dOutput: F64): F64 {
  const { config, layout, B, T } = cache;
  const { width: D, heads: H, vocabSize: V } = config;
  const N = B * T;
  const expected = config.head === 'lm' ? N * V : N;
  if (dOutput.length !== expected)
    throw new RangeError(`dOutput has ${dOutput.length} values; expected ${config.head === 'lm' ? 'B·T·V' : 'B·T'} = ${expected}`);
  if (params.length !== layout.totalSize) throw new RangeError(`params has ${params.length} values; the layout of this config needs ${layout.totalSize}`);
  const p = views(layout, params);
  const grads = new Float64Array(layout.totalSize);
  const g = views(layout, grads);

  const dlnf = new Float64Array(N * D);
  if (config.head === 'lm') linearBackward(dlnf, g['lm_head.weight'], null, dOutput, cache.lnf, p['lm_head.weight'], N, D, V);
  else linearBackward(dlnf, g['value_head.weight'], g['value_head.bias'], dOutput, cache.lnf, p['value_head.weight'], N, D, 1);

  // dx: [N, D] gradient of the residual stream, flowing from the top block down.
  let dx = new Float64Array(N * D);
  const top = cache.layers.at(-1)?.output ?? cache.embedded;
  layerNormBackward(dx, g['transformer.ln_f.weight'], g['transformer.ln_f.bias'], dlnf, top, p['transformer.ln_f.weight'], cache.lnfMean, cache.lnfRstd, N, D);
  for (let l = config.layers - 1; l >= 0; l--) {
    const c = cache.layers[l];
    const w = (s: string) => p[`transformer.h.${l}.${s}`];
    const dw = (s: string) => g[`transformer.h.${l}.${s}`];
    const dresidual1 = new Float64Array(N * D);
    const dfcProj = new Float64Array(N * D);
    residualBackward(dresidual1, dfcProj, dx, N * D);
    const dfcGelu = new Float64Array(N * 4 * D);
    linearBackward(dfcGelu, dw('mlp.c_proj.weight'), dw('mlp.c_proj.bias'), dfcProj, c.fcGelu, w('mlp.c_proj.weight'), N, 4 * D, D);
    const dfc = new Float64Array(N * 4 * D);
    geluBackward(dfc, c.fc, dfcGelu, N * 4 * D);
    const dln2 = new Float64Array(N * D);
    linearBackward(dln2, dw('mlp.c_fc.weight'), dw('mlp.c_fc.bias'), dfc, c.ln2, w('mlp.c_fc.weight'), N, D, 4 * D);
    layerNormBackward(dresidual1, dw('ln_2.weight'), dw('ln_2.bias'), dln2, c.residual1, w('ln_2.weight'), c.ln2Mean, c.ln2Rstd, N, D);

    const dinput = new Float64Array(N * D);
    const dattProj = new Float64Array(N * D);
    residualBackward(dinput, dattProj, dresidual1, N * D);
    const dattY = new Float64Array(N * D);
    linearBackward(dattY, dw('attn.c_proj.weight'), dw('attn.c_proj.bias'), dattProj, c.attY, w('attn.c_proj.weight'), N, D, D);
    const dqkv = new Float64Array(N * 3 * D);
    attentionBackward(dqkv, dattY, c.qkv, c.att, B, T, D, H);
    const dln1 = new Float64Array(N * D);
    linearBackward(dln1, dw('attn.c_attn.weight'), dw('attn.c_attn.bias'), dqkv, c.ln1, w('attn.c_attn.weight'), N, D, 3 * D);
    layerNormBackward(dinput, dw('ln_1.weight'), dw('ln_1.bias'), dln1, c.input, w('ln_1.weight'), c.ln1Mean, c.ln1Rstd, N, D);
    dx = dinput;
  }
  embeddingBackward(g['transformer.wte.weight'], g['transformer.wpe.weight'], dx, cache.tokens, B, T, D);
  return grads;
}

/** Forward, loss (as referenceLoss) and the gradient of the loss with respect to every parameter. */
export function referenceBackward(
  config: GptConfig,
  params: F64,
  tokens: TokenIds,
  B: number,
  T: number,
  targets: ArrayLike<number>,
  lossMask: ArrayLike<number>,
): ReferenceGradients {
  const out = referenceLoss(config, params, tokens, B, T, targets, lossMask);
  const N = B * T;
  let dOutput: F64;
  if (out.logits) {
    dOutput = new Float64Array(N * config.vocabSize);
    crossEntropyBackward(dOutput, out.logits, targets, lossMask, N, config.vocabSize);
  } else {
    dOutput = new Float64Array(N);
    mseBackward(dOutput, out.values!, targets, lossMask, N);
  }
  return { loss: out.loss, grads: referenceModelBackward(params, out.cache, dOutput) };
}
