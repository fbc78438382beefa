// `horizon export --format hf`: a policy as a Hugging Face GPT-2 folder that transformers'
// GPT2LMHeadModel.from_pretrained loads (transformers/models/gpt2/modeling_gpt2.py).
//
//   config.json            GPT2Config: sizes, layer_norm_epsilon 1e-5, activation_function
//                          "gelu_new" (GPT-2's tanh GELU, the one Horizon trains with),
//                          tie_word_embeddings false (Horizon's lm_head is its own tensor; GPT-2's
//                          default true would overwrite it with wte), dropouts 0
//   model.safetensors      GPT2LMHeadModel's state dict: transformer.* and lm_head.weight. GPT-2's
//                          attention and MLP projections are Conv1D, y = x @ W + b with W stored
//                          [in, out], so c_attn, c_proj, c_fc and mlp.c_proj are transposed from
//                          Horizon's nn.Linear [out, in]; embeddings, LayerNorms and lm_head (an
//                          nn.Linear in GPT-2 too) are not
//   tokenizer.json, tokenizer_config.json   the character-level tokenizer (hf-tokenizer.ts)
//   vocabulary.json, export.json            the vocabulary and provenance, as in the nanoGPT form

import { encodeSafetensors, LAYER_NORM_EPS, type TensorToWrite } from '@horizon/core';
import { tokenizerConfigJson, tokenizerJson } from './hf-tokenizer.ts';
import type { ExportSource } from './model-source.ts';
import { exportVocabulary, vocabularyJson } from './vocabulary.ts';

/** The projections GPT-2 keeps as Conv1D ([in, out]); every other weight has the same layout in both. */
const CONV1D = /^transformer\.h\.\d+\.(attn\.c_attn|attn\.c_proj|mlp\.c_fc|mlp\.c_proj)\.weight$/;

/** [rows, cols] row-major → [cols, rows] row-major. */
export function transpose(data: Float32Array, rows: number, cols: number): Float32Array {
  const out = new Float32Array(data.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = data[r * cols + c];
  return out;
}

/** Horizon's tensors under GPT2LMHeadModel's names, Conv1D weights transposed. */
export function gpt2Tensors(source: ExportSource): Record<string, TensorToWrite> {
  const out: Record<string, TensorToWrite> = {};
  for (const [name, t] of source.tensors) {
    if (CONV1D.test(name)) {
      const [rows, cols] = t.shape;
      out[name] = { dtype: 'F32', shape: [cols, rows], data: transpose(t.data, rows, cols) };
    } else out[name] = { dtype: 'F32', shape: t.shape, data: t.data };
  }
  return out;
}

export function gpt2Config(source: ExportSource): Record<string, unknown> {
  const { layers, heads, width, contextLength, vocabSize } = source.config;
  const vocab = exportVocabulary(source.vocabulary);
  return {
    architectures: ['GPT2LMHeadModel'],
    model_type: 'gpt2',
    vocab_size: vocabSize,
    n_positions: contextLength,
    n_ctx: contextLength,
    n_embd: width,
    n_layer: layers,
    n_head: heads,
    n_inner: null,
    activation_function: 'gelu_new',
    layer_norm_epsilon: LAYER_NORM_EPS,
    resid_pdrop: 0,
    embd_pdrop: 0,
    attn_pdrop: 0,
    initializer_range: 0.02,
    scale_attn_weights: true,
    scale_attn_by_inverse_layer_idx: false,
    reorder_and_upcast_attn: false,
    tie_word_embeddings: false,
    bos_token_id: vocab.special['<bos>'] ?? vocab.eosId,
    eos_token_id: vocab.eosId,
    pad_token_id: vocab.special['<pad>'] ?? null,
    use_cache: true,
    torch_dtype: 'float32',
  };
}

/** The files of a Hugging Face GPT-2 export, by name. */
export function hfGpt2Files(source: ExportSource): Map<string, Uint8Array | string> {
  const vocab = exportVocabulary(source.vocabulary);
  const provenance = {
    format: 'horizon.export.hf-gpt2/1',
    checkpoint: source.where,
    step: source.step,
    recipe: source.recipeName,
    model: source.modelName,
    notes: {
      conv1d: 'attn.c_attn, attn.c_proj, mlp.c_fc and mlp.c_proj weights are stored [in, out] (GPT-2 Conv1D), transposed from Horizon',
      tokenizer: 'character-level (tokenizer.json: WordLevel over single code points, special tokens as added tokens), not GPT-2 BPE',
    },
  };
  const files = new Map<string, Uint8Array | string>();
  files.set('config.json', `${JSON.stringify(gpt2Config(source), null, 1)}\n`);
  files.set('model.safetensors', encodeSafetensors(gpt2Tensors(source), { format: 'pt' }));
  files.set('tokenizer.json', tokenizerJson(vocab));
  files.set('tokenizer_config.json', tokenizerConfigJson(vocab, source.config.contextLength));
  files.set('vocabulary.json', vocabularyJson(vocab));
  files.set('export.json', `${JSON.stringify(provenance, null, 1)}\n`);
  return files;
}
