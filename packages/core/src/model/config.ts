// The GPT used for policies, critics, teachers and GenAC's generative critic: GPT-2 style, pre-LayerNorm.
//
// Shape legend:  B batch · T tokens (≤ contextLength) · V vocabSize · D width · H heads · hd = D/H
//
//   x      = wte[tokens] + wpe[0..T)                                   [B, T, D]
//   per layer l:
//     qkv  = ln_1(x) · c_attnᵀ + b                                     [B, T, 3D]  (q | k | v, head h at columns h·hd…)
//     x   += (causal softmax(q·kᵀ / √hd) · v) · attn.c_projᵀ + b        [B, T, D]
//     x   += gelu_tanh(ln_2(x) · c_fcᵀ + b) · mlp.c_projᵀ + b           [B, T, D]   (hidden 4D)
//   xf     = ln_f(x)                                                    [B, T, D]
//   head 'lm':    logits = xf · lm_headᵀ                               [B, T, V]   (untied from wte, no bias)
//   head 'value': values = xf · value_headᵀ + b                        [B, T]      (one scalar per position)
//
// LayerNorm ε = 1e-5; GELU is the tanh approximation GPT-2 uses. Linear weights are stored
// [out, in] like PyTorch's nn.Linear, so names and shapes map one-to-one onto nanoGPT.

export type ModelHead = 'lm' | 'value';

export interface GptConfig {
  vocabSize: number;
  contextLength: number;
  layers: number;
  heads: number;
  /** Model width D; a multiple of `heads`. */
  width: number;
  head: ModelHead;
}

export const LAYER_NORM_EPS = 1e-5;

export function validateGptConfig(config: GptConfig): void {
  const positive = ['vocabSize', 'contextLength', 'layers', 'heads', 'width'] as const;
  for (const key of positive) {
    const v = config[key];
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`model.${key} must be a positive integer, got ${v}`);
  }
  if (config.width % config.heads !== 0) throw new RangeError(`model.width (${config.width}) must be a multiple of model.heads (${config.heads})`);
  if (config.head !== 'lm' && config.head !== 'value') throw new RangeError(`model.head must be "lm" or "value", got "${config.head}"`);
}

export function headDim(config: GptConfig): number {
  return config.width / config.heads;
}
