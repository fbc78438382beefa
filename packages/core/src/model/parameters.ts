// Every parameter of the GPT, in a fixed order, with nanoGPT's names, and its place in one flat f32
// buffer. One flat buffer lets AdamW and the global grad-norm run as single dispatches; each
// parameter starts at a multiple of 64 floats (256 bytes, WebGPU's largest storage-offset alignment)
// so it can also be bound on its own as a view.

import { type GptConfig, validateGptConfig } from './config.ts';

/** Parameter offsets in the flat buffer are multiples of this many f32 values. */
export const PARAMETER_ALIGNMENT = 64;

export type InitKind = 'normal' | 'residual-normal' | 'zeros' | 'ones';

export interface ParameterSpec {
  /** nanoGPT / PyTorch state_dict name, e.g. "transformer.h.0.attn.c_attn.weight". */
  name: string;
  shape: number[];
  init: InitKind;
}

export interface ParameterEntry extends ParameterSpec {
  /** First element in the flat buffer; a multiple of PARAMETER_ALIGNMENT. */
  offset: number;
  size: number;
}

export interface ParameterLayout {
  entries: ParameterEntry[];
  /** Elements in the flat buffer, padding included. */
  totalSize: number;
  /** Elements that are real parameters (padding excluded). */
  parameterCount: number;
}

/** Standard deviation of 'normal' initialisation (GPT-2). 'residual-normal' divides it by √(2·layers). */
export const INIT_STD = 0.02;

export function parameterSpecs(config: GptConfig): ParameterSpec[] {
  validateGptConfig(config);
  const { vocabSize: V, contextLength: T, width: D, layers } = config;
  const specs: ParameterSpec[] = [
    { name: 'transformer.wte.weight', shape: [V, D], init: 'normal' },
    { name: 'transformer.wpe.weight', shape: [T, D], init: 'normal' },
  ];
  for (let l = 0; l < layers; l++) {
    const p = `transformer.h.${l}`;
    specs.push(
      { name: `${p}.ln_1.weight`, shape: [D], init: 'ones' },
      { name: `${p}.ln_1.bias`, shape: [D], init: 'zeros' },
      { name: `${p}.attn.c_attn.weight`, shape: [3 * D, D], init: 'normal' },
      { name: `${p}.attn.c_attn.bias`, shape: [3 * D], init: 'zeros' },
      { name: `${p}.attn.c_proj.weight`, shape: [D, D], init: 'residual-normal' },
      { name: `${p}.attn.c_proj.bias`, shape: [D], init: 'zeros' },
      { name: `${p}.ln_2.weight`, shape: [D], init: 'ones' },
      { name: `${p}.ln_2.bias`, shape: [D], init: 'zeros' },
      { name: `${p}.mlp.c_fc.weight`, shape: [4 * D, D], init: 'normal' },
      { name: `${p}.mlp.c_fc.bias`, shape: [4 * D], init: 'zeros' },
      { name: `${p}.mlp.c_proj.weight`, shape: [D, 4 * D], init: 'residual-normal' },
      { name: `${p}.mlp.c_proj.bias`, shape: [D], init: 'zeros' },
    );
  }
  specs.push({ name: 'transformer.ln_f.weight', shape: [D], init: 'ones' }, { name: 'transformer.ln_f.bias', shape: [D], init: 'zeros' });
  if (config.head === 'lm') specs.push({ name: 'lm_head.weight', shape: [V, D], init: 'normal' });
  else specs.push({ name: 'value_head.weight', shape: [1, D], init: 'normal' }, { name: 'value_head.bias', shape: [1], init: 'zeros' });
  return specs;
}

export function parameterLayout(config: GptConfig): ParameterLayout {
  let offset = 0;
  let parameterCount = 0;
  const entries = parameterSpecs(config).map((spec) => {
    const size = spec.shape.reduce((a, b) => a * b, 1);
    const entry: ParameterEntry = { ...spec, offset, size };
    offset += Math.ceil(size / PARAMETER_ALIGNMENT) * PARAMETER_ALIGNMENT;
    parameterCount += size;
    return entry;
  });
  return { entries, totalSize: offset, parameterCount };
}

/** Looks a parameter up by name; throws naming the model's parameters if absent. */
export function parameterEntry(layout: ParameterLayout, name: string): ParameterEntry {
  const entry = layout.entries.find((e) => e.name === name);
  if (!entry) throw new RangeError(`no parameter named "${name}" (the model has ${layout.entries.length}, e.g. ${layout.entries[0]?.name})`);
  return entry;
}
