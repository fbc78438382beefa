// The GPT on the GPU: parameters, gradients, and forward/backward recorded into one command encoder.
// The architecture is the one in config.ts; the float64 reference (reference/gpt.ts) is its spec.
//
// Shape legend:  B batch · T tokens · N = B·T rows · V vocab · D width · H heads · F = 4D
//
// All parameters live in one flat buffer and all gradients in another (parameters.ts), so the
// optimizer and the global grad-norm are single dispatches; each parameter is also a view for the
// layer kernels. Every parameter-gradient kernel adds into `grads`: clear it once per optimizer step
// (`recordZeroGrad`) and several minibatches accumulate for free.

import {
  type Gpu,
  type Recorder,
  recordAttentionBackward,
  recordAttentionForward,
  recordEmbeddingBackward,
  recordEmbeddingForward,
  recordLayerNormBackward,
  recordLayerNormForward,
  recordMatmul,
  type Tensor,
} from '@horizon/kernels';
import { ShapeCache } from '../util/shape-cache.ts';
import { type AttentionStep, type LayerTensors, recordBlockForward } from './block.ts';
import { type GptConfig, headDim, LAYER_NORM_EPS } from './config.ts';
import { initParameters } from './init.ts';
import { type ParameterLayout, parameterLayout } from './parameters.ts';

export type { LayerTensors } from './block.ts';

export interface ModelTensors {
  wte: Tensor; // [V, D]
  wpe: Tensor; // [contextLength, D]
  layers: LayerTensors[];
  lnfw: Tensor; // [D]
  lnfb: Tensor; // [D]
  /** lm head: [V, D]; value head: [1, D]. */
  headw: Tensor;
  /** value head only: [1]. */
  headb?: Tensor;
}

/** Saved activations of one layer for one (B, T). */
interface LayerActivations {
  residualIn: Tensor; // [N, D] x_l (layer 0 aliases the embedding output)
  ln1: Tensor; // [N, D]
  ln1Stats: Tensor; // [2, N]
  qkv: Tensor; // [N, 3D]
  att: Tensor; // [B, H, T, T]
  attn: Tensor; // [N, D]
  residualMid: Tensor; // [N, D]
  ln2: Tensor; // [N, D]
  ln2Stats: Tensor; // [2, N]
  fc: Tensor; // [N, F]
  gelu: Tensor; // [N, F]
}

/** Everything a forward and backward at one (B, T) needs, allocated once and reused every step. */
export interface GptActivations {
  B: number;
  T: number;
  embedded: Tensor; // [N, D]
  layers: LayerActivations[];
  residualOut: Tensor; // [N, D] x_L
  lnf: Tensor; // [N, D]
  lnfStats: Tensor; // [2, N]
  /** lm head: logits [N, V]; value head: values [N]. */
  output: Tensor;
  // Backward scratch, shared by all layers.
  dResidual: Tensor; // [N, D]
  dWide: Tensor; // [N, F]
  dNarrow: Tensor; // [N, D]
  dqkv: Tensor; // [N, 3D]
}

export class Gpt {
  readonly layout: ParameterLayout;
  /** All parameters, flat: [layout.totalSize] f32. */
  readonly params: Tensor;
  /** All gradients, same layout: [layout.totalSize] f32. */
  readonly grads: Tensor;
  /** Every parameter as a view into `params`. */
  readonly weights: ModelTensors;
  private readonly g: ModelTensors;
  private readonly activationCache = new ShapeCache<GptActivations>((acts) => {
    for (const t of activationTensors(acts)) this.gpu.destroy(t);
  });

  private constructor(
    readonly gpu: Gpu,
    readonly config: GptConfig,
    weights: Float32Array,
    readonly label: string,
  ) {
    this.layout = parameterLayout(config);
    if (weights.length !== this.layout.totalSize) {
      throw new RangeError(`${label}: ${weights.length} weights do not match the layout's ${this.layout.totalSize} (config ${JSON.stringify(config)})`);
    }
    this.params = gpu.upload(weights, [this.layout.totalSize], `${label}.params`);
    this.grads = gpu.tensor([this.layout.totalSize], 'f32', `${label}.grads`);
    this.weights = this.views(this.params);
    this.g = this.views(this.grads);
  }

  /** A model with GPT-2 initialisation drawn from `seed`. */
  static init(gpu: Gpu, config: GptConfig, seed: number, label = 'gpt'): Gpt {
    return new Gpt(gpu, config, initParameters(parameterLayout(config), config.layers, seed), label);
  }

  /** A model holding `weights` (flat, this config's layout). */
  static fromWeights(gpu: Gpu, config: GptConfig, weights: Float32Array, label = 'gpt'): Gpt {
    return new Gpt(gpu, config, weights, label);
  }

  async readParameters(): Promise<Float32Array> {
    return (await this.gpu.read(this.params)) as Float32Array;
  }

  writeParameters(weights: Float32Array): void {
    if (weights.length !== this.layout.totalSize) throw new RangeError(`${this.label}: expected ${this.layout.totalSize} weights, got ${weights.length}`);
    this.gpu.write(this.params, weights);
  }

  /** The activation buffers for (B, T), allocated on first use. */
  activations(B: number, T: number): GptActivations {
    if (!Number.isInteger(B) || B < 1) throw new RangeError(`${this.label}: batch B must be a positive integer, got ${B}`);
    if (!Number.isInteger(T) || T < 1 || T > this.config.contextLength) {
      throw new RangeError(`${this.label}: T must be an integer in [1, ${this.config.contextLength}] (the context length), got ${T}`);
    }
    return this.activationCache.get(`${B}x${T}`, () => this.allocateActivations(B, T));
  }

  /** Records the forward pass over `tokens` ([B, T] u32) into `acts.output`. */
  recordForward(rec: Recorder, acts: GptActivations, tokens: Tensor): void {
    const { gpu, config, weights: p } = this;
    const { B, T } = acts;
    const N = B * T;
    const { width: D, heads: H, vocabSize: V } = config;
    recordEmbeddingForward(rec, gpu, { tokens, wte: p.wte, wpe: p.wpe, x: acts.embedded }, { B, T, V, D });
    for (let l = 0; l < config.layers; l++) {
      const a = acts.layers[l];
      // Full causal attention over all T positions; att keeps the probabilities for the backward.
      const causal: AttentionStep = (r, qkv, attn) => recordAttentionForward(r, gpu, { qkv, out: attn, att: a.att }, { B, T, H, D });
      const out = l + 1 < config.layers ? acts.layers[l + 1].residualIn : acts.residualOut;
      recordBlockForward(rec, gpu, p.layers[l], { ...a, x: a.residualIn, mid: a.residualMid, out }, N, D, causal);
    }
    recordLayerNormForward(
      rec,
      gpu,
      { x: acts.residualOut, weight: p.lnfw, bias: p.lnfb, out: acts.lnf, stats: acts.lnfStats },
      { rows: N, D },
      LAYER_NORM_EPS,
    );
    if (config.head === 'lm') {
      recordMatmul(rec, gpu, { a: acts.lnf, b: p.headw, c: acts.output }, { M: N, K: D, N: V, layout: 'nt' });
    } else {
      recordMatmul(rec, gpu, { a: acts.lnf, b: p.headw, c: acts.output, bias: p.headb! }, { M: N, K: D, N: 1, layout: 'nt' });
    }
  }

  /** Sets every gradient to zero; call once per optimizer step, before the first backward. */
  recordZeroGrad(rec: Recorder): void {
    rec.clear(this.grads);
  }

  /**
   * Records the backward pass from `dOutput` (lm: dlogits [N, V]; value: dvalues [N]) after a
   * `recordForward` with the same `acts` and `tokens`. Adds into `grads`.
   */
  recordBackward(rec: Recorder, acts: GptActivations, tokens: Tensor, dOutput: Tensor): void {
    const { gpu, config, weights: p, g } = this;
    const { B, T } = acts;
    const N = B * T;
    const { width: D, heads: H, vocabSize: V } = config;
    const F = 4 * D;
    const outWidth = config.head === 'lm' ? V : 1;
    // Head: dlnf = dOutput · headw, dheadw += dOutputᵀ · lnf (+ dheadb). Every bias gradient below
    // is the row sums of its dW matmul's A, added in that matmul's epilogue (one dispatch, not two).
    recordMatmul(rec, gpu, { a: dOutput, b: p.headw, c: acts.dNarrow }, { M: N, K: outWidth, N: D, layout: 'nn' });
    const headBias = g.headb ? { rowSumsOfA: g.headb } : {};
    recordMatmul(rec, gpu, { a: dOutput, b: acts.lnf, c: g.headw, ...headBias }, { M: outWidth, K: N, N: D, layout: 'tn' }, { accumulate: true });
    // The residual stream's gradient starts at the final LayerNorm (its backward adds into dResidual).
    rec.clear(acts.dResidual);
    recordLayerNormBackward(
      rec,
      gpu,
      { x: acts.residualOut, weight: p.lnfw, dout: acts.dNarrow, stats: acts.lnfStats, dinp: acts.dResidual, dweight: g.lnfw, dbias: g.lnfb },
      { rows: N, D },
    );
    for (let l = config.layers - 1; l >= 0; l--) {
      const w = p.layers[l];
      const dw = g.layers[l];
      const a = acts.layers[l];
      // MLP branch: x_{l+1} = x_mid + gelu(ln2·fcᵀ)·fc2ᵀ; dResidual flows to x_mid unchanged and through the branch.
      // dfc = (dResidual · fc2w) ⊙ gelu'(fc): GELU's backward runs in the matmul's store.
      recordMatmul(rec, gpu, { a: acts.dResidual, b: w.fc2w, c: acts.dWide, geluSlopeAt: a.fc }, { M: N, K: D, N: F, layout: 'nn' });
      recordMatmul(rec, gpu, { a: acts.dResidual, b: a.gelu, c: dw.fc2w, rowSumsOfA: dw.fc2b }, { M: D, K: N, N: F, layout: 'tn' }, { accumulate: true });
      recordMatmul(rec, gpu, { a: acts.dWide, b: w.fcw, c: acts.dNarrow }, { M: N, K: F, N: D, layout: 'nn' });
      recordMatmul(rec, gpu, { a: acts.dWide, b: a.ln2, c: dw.fcw, rowSumsOfA: dw.fcb }, { M: F, K: N, N: D, layout: 'tn' }, { accumulate: true });
      recordLayerNormBackward(
        rec,
        gpu,
        { x: a.residualMid, weight: w.ln2w, dout: acts.dNarrow, stats: a.ln2Stats, dinp: acts.dResidual, dweight: dw.ln2w, dbias: dw.ln2b },
        { rows: N, D },
      );
      // Attention branch: x_mid = x_l + attn(ln1·qkvᵀ)·projᵀ.
      recordMatmul(rec, gpu, { a: acts.dResidual, b: w.projw, c: acts.dNarrow }, { M: N, K: D, N: D, layout: 'nn' });
      recordMatmul(rec, gpu, { a: acts.dResidual, b: a.attn, c: dw.projw, rowSumsOfA: dw.projb }, { M: D, K: N, N: D, layout: 'tn' }, { accumulate: true });
      recordAttentionBackward(rec, gpu, { qkv: a.qkv, att: a.att, out: a.attn, dout: acts.dNarrow, dqkv: acts.dqkv }, { B, T, H, D });
      recordMatmul(rec, gpu, { a: acts.dqkv, b: w.qkvw, c: acts.dNarrow }, { M: N, K: 3 * D, N: D, layout: 'nn' });
      recordMatmul(rec, gpu, { a: acts.dqkv, b: a.ln1, c: dw.qkvw, rowSumsOfA: dw.qkvb }, { M: 3 * D, K: N, N: D, layout: 'tn' }, { accumulate: true });
      recordLayerNormBackward(
        rec,
        gpu,
        { x: a.residualIn, weight: w.ln1w, dout: acts.dNarrow, stats: a.ln1Stats, dinp: acts.dResidual, dweight: dw.ln1w, dbias: dw.ln1b },
        { rows: N, D },
      );
    }
    recordEmbeddingBackward(rec, gpu, { tokens, dx: acts.dResidual, dwte: g.wte, dwpe: g.wpe }, { B, T, V, D });
  }

  /** Releases every GPU buffer of the model; it cannot be used afterwards. */
  destroy(): void {
    this.releaseActivations();
    this.gpu.destroy(this.params);
    this.gpu.destroy(this.grads);
  }

  /** Releases the GPU buffers of every activation set (parameters and gradients stay). */
  releaseActivations(): void {
    this.activationCache.clear();
  }

  /** Releases the activation sets of shapes not used since the last sweep (util/shape-cache.ts); call between iterations. */
  sweepActivations(): void {
    this.activationCache.sweep();
  }

  private views(flat: Tensor): ModelTensors {
    const byName = new Map(this.layout.entries.map((e) => [e.name, e]));
    const view = (name: string) => {
      const e = byName.get(name);
      if (!e) throw new RangeError(`${this.label}: missing parameter ${name}`);
      return this.gpu.view(flat, e.offset, e.shape, `${flat.label}:${name}`);
    };
    const layers: LayerTensors[] = [];
    for (let l = 0; l < this.config.layers; l++) {
      const h = `transformer.h.${l}`;
      layers.push({
        ln1w: view(`${h}.ln_1.weight`),
        ln1b: view(`${h}.ln_1.bias`),
        qkvw: view(`${h}.attn.c_attn.weight`),
        qkvb: view(`${h}.attn.c_attn.bias`),
        projw: view(`${h}.attn.c_proj.weight`),
        projb: view(`${h}.attn.c_proj.bias`),
        ln2w: view(`${h}.ln_2.weight`),
        ln2b: view(`${h}.ln_2.bias`),
        fcw: view(`${h}.mlp.c_fc.weight`),
        fcb: view(`${h}.mlp.c_fc.bias`),
        fc2w: view(`${h}.mlp.c_proj.weight`),
        fc2b: view(`${h}.mlp.c_proj.bias`),
      });
    }
    const isLm = this.config.head === 'lm';
    return {
      wte: view('transformer.wte.weight'),
      wpe: view('transformer.wpe.weight'),
      layers,
      lnfw: view('transformer.ln_f.weight'),
      lnfb: view('transformer.ln_f.bias'),
      headw: view(isLm ? 'lm_head.weight' : 'value_head.weight'),
      ...(isLm ? {} : { headb: view('value_head.bias') }),
    };
  }

  private allocateActivations(B: number, T: number): GptActivations {
    const { gpu, config, label } = this;
    const N = B * T;
    const { width: D, heads: H, vocabSize: V } = config;
    const F = 4 * D;
    const t = (shape: number[], name: string) => gpu.tensor(shape, 'f32', `${label}.${name}[${B}x${T}]`);
    headDim(config);
    const embedded = t([N, D], 'embedded');
    const layers: LayerActivations[] = [];
    for (let l = 0; l < config.layers; l++) {
      layers.push({
        residualIn: l === 0 ? embedded : t([N, D], `h${l}.residualIn`),
        ln1: t([N, D], `h${l}.ln1`),
        ln1Stats: t([2, N], `h${l}.ln1Stats`),
        qkv: t([N, 3 * D], `h${l}.qkv`),
        att: t([B, H, T, T], `h${l}.att`),
        attn: t([N, D], `h${l}.attn`),
        residualMid: t([N, D], `h${l}.residualMid`),
        ln2: t([N, D], `h${l}.ln2`),
        ln2Stats: t([2, N], `h${l}.ln2Stats`),
        fc: t([N, F], `h${l}.fc`),
        gelu: t([N, F], `h${l}.gelu`),
      });
    }
    return {
      B,
      T,
      embedded,
      layers,
      residualOut: t([N, D], 'residualOut'),
      lnf: t([N, D], 'lnf'),
      lnfStats: t([2, N], 'lnfStats'),
      output: config.head === 'lm' ? t([N, V], 'logits') : t([N], 'values'),
      dResidual: t([N, D], 'dResidual'),
      dWide: t([N, F], 'dWide'),
      dNarrow: t([N, D], 'dNarrow'),
      dqkv: t([N, 3 * D], 'dqkv'),
    };
  }
}

function activationTensors(acts: GptActivations): Tensor[] {
  const out: Tensor[] = [acts.embedded, acts.residualOut, acts.lnf, acts.lnfStats, acts.output, acts.dResidual, acts.dWide, acts.dNarrow, acts.dqkv];
  acts.layers.forEach((a, l) => {
    out.push(a.ln1, a.ln1Stats, a.qkv, a.att, a.attn, a.residualMid, a.ln2, a.ln2Stats, a.fc, a.gelu);
    if (l > 0) out.push(a.residualIn);
  });
  return out;
}
