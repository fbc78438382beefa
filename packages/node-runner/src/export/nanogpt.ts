// `horizon export --format nanogpt`: a policy as karpathy/nanoGPT's model.py holds it.
//
//   model_args.json    nanoGPT's GPTConfig fields (n_layer, n_head, n_embd, block_size, vocab_size,
//                      bias, dropout), the dict its train.py saves as checkpoint['model_args']
//   model.safetensors  the state dict under nanoGPT's names (transformer.wte.weight, …,
//                      transformer.h.0.attn.c_attn.weight [3D, D], …, lm_head.weight), f32, nn.Linear
//                      layout [out, in]: Horizon's names and shapes are nanoGPT's, so nothing is
//                      transposed
//   vocabulary.json    the character vocabulary (vocabulary.ts)
//   export.json        where it came from, and the three ways it differs from stock nanoGPT
//   load_nanogpt.py    a standalone loader: builds the nanoGPT-form model with those differences
//                      applied, loads the safetensors (with the `safetensors` package when present,
//                      else a 20-line reader), prints logits, and can write a torch `ckpt.pt`
//
// Why not a ckpt.pt written here: ckpt.pt is a torch pickle inside a zip; writing one from Node means
// reimplementing pickle protocol 2 and torch's storage records, and any drift is a file torch
// refuses or, worse, misreads. safetensors is a format this repository already writes byte-for-byte
// like the reference (core/checkpoint/safetensors.ts), and the loader turns it into a real ckpt.pt
// with torch.save in one command (`python3 load_nanogpt.py DIR --write-ckpt ckpt.pt`).
//
// The differences from stock nanoGPT model.py, found by loading a tiny-recipe policy into it: its
// lm_head is tied to wte (loading silently overwrites one with the other), its GELU is exact erf
// (Horizon's is tanh), and its causal-mask buffers are not in Horizon's state dict (load_state_dict
// needs strict=False). load_nanogpt.py unties, uses tanh and keeps the mask out of the state dict;
// docs/export.md has the measured size of each.

import { readFileSync } from 'node:fs';
import { encodeSafetensors, LAYER_NORM_EPS, type TensorToWrite } from '@horizon/core';
import type { ExportSource } from './model-source.ts';
import { exportVocabulary, vocabularyJson } from './vocabulary.ts';

export const NANOGPT_LOADER = 'load_nanogpt.py';
const LOADER_SOURCE = new URL('./load_nanogpt.py', import.meta.url);

/** nanoGPT's GPTConfig for this model (model.py's dataclass fields, nothing else). */
export function nanoGptModelArgs(source: ExportSource): Record<string, number | boolean> {
  const { layers, heads, width, contextLength, vocabSize } = source.config;
  return { n_layer: layers, n_head: heads, n_embd: width, block_size: contextLength, vocab_size: vocabSize, bias: true, dropout: 0 };
}

/** The files of a nanoGPT-form export, by name. */
export function nanoGptFiles(source: ExportSource): Map<string, Uint8Array | string> {
  const tensors: Record<string, TensorToWrite> = {};
  for (const [name, t] of source.tensors) tensors[name] = { dtype: 'F32', shape: t.shape, data: t.data };
  const vocab = exportVocabulary(source.vocabulary);
  const provenance = {
    format: 'horizon.export.nanogpt/1',
    checkpoint: source.where,
    step: source.step,
    recipe: source.recipeName,
    model: source.modelName,
    differences_from_stock_nanogpt: {
      lm_head: 'untied: lm_head.weight is its own tensor, not transformer.wte.weight (stock model.py ties them in __init__)',
      gelu: "tanh approximation, nn.GELU(approximate='tanh') (stock model.py uses exact nn.GELU())",
      layer_norm_eps: LAYER_NORM_EPS,
      causal_mask: 'not a state-dict entry (stock model.py registers attn.bias buffers when flash attention is off: load with strict=False there)',
    },
    load: `python3 ${NANOGPT_LOADER} . --tokens "[[0, 1, 2]]"`,
  };
  const files = new Map<string, Uint8Array | string>();
  files.set('model_args.json', `${JSON.stringify(nanoGptModelArgs(source), null, 1)}\n`);
  files.set('model.safetensors', encodeSafetensors(tensors, { format: 'pt' }));
  files.set('vocabulary.json', vocabularyJson(vocab));
  files.set('export.json', `${JSON.stringify(provenance, null, 1)}\n`);
  files.set(NANOGPT_LOADER, readFileSync(LOADER_SOURCE, 'utf8'));
  return files;
}
