// Launcher and host API for the fused AdamW step (math and shapes in adamw.wgsl.ts).

import { gridFor } from '../gpu/grid.ts';
import type { Gpu, Recorder } from '../gpu/runtime.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { checkLength, checkNumber, checkTensor } from '../util/checks.ts';
import { ADAMW_STEP_FIELDS, ADAMW_WGSL } from './adamw.wgsl.ts';
import { FLAG_BLOCK, FLAG_DECAY } from './flags.ts';

export interface AdamWHyperparameters {
  lr: number;
  beta1: number;
  beta2: number;
  eps: number;
  weightDecay: number;
}

export interface AdamWTensors {
  /** params: [n] f32, updated in place */
  params: Tensor;
  /** grads: [n] f32 */
  grads: Tensor;
  /** m: [n] f32, first moment, updated in place */
  m: Tensor;
  /** v: [n] f32, second moment, updated in place */
  v: Tensor;
  /** flags: [⌈n / 64⌉] u32 (parameterFlags) */
  flags: Tensor;
  /** step: [8] f32, written by writeAdamWStep before the submit */
  step: Tensor;
  /** clip: [2] f32, [norm, clipScale] from recordGradNorm (or [0, 1] for no clipping) */
  clip: Tensor;
}

/** Elements in the step tensor. */
export const ADAMW_STEP_SIZE = ADAMW_STEP_FIELDS.length;

export function validateAdamWHyperparameters(kernel: string, h: AdamWHyperparameters): void {
  checkNumber(kernel, 'lr', h.lr, 0, Number.POSITIVE_INFINITY);
  checkNumber(kernel, 'beta1', h.beta1, 0, 1, true);
  checkNumber(kernel, 'beta2', h.beta2, 0, 1, true);
  checkNumber(kernel, 'weightDecay', h.weightDecay, 0, Number.POSITIVE_INFINITY);
  if (!(Number.isFinite(h.eps) && h.eps > 0)) throw new RangeError(`${kernel}: eps must be a positive finite number, got ${h.eps}`);
}

/** The step tensor's values for optimizer step `step` (counting from 1), computed in float64. */
export function adamWStepValues(step: number, h: AdamWHyperparameters): Float32Array {
  validateAdamWHyperparameters('adamW', h);
  if (!Number.isInteger(step) || step < 1) throw new RangeError(`adamW: step must be an integer ≥ 1 (the first update is step 1), got ${step}`);
  const values: Record<(typeof ADAMW_STEP_FIELDS)[number], number> = {
    beta1: h.beta1,
    oneMinusBeta1: 1 - h.beta1,
    beta2: h.beta2,
    oneMinusBeta2: 1 - h.beta2,
    eps: h.eps,
    decayFactor: 1 - h.lr * h.weightDecay,
    stepSize: h.lr / (1 - h.beta1 ** step),
    correction2Sqrt: Math.sqrt(1 - h.beta2 ** step),
  };
  return Float32Array.from(ADAMW_STEP_FIELDS, (f) => values[f]);
}

/** Writes step `step`'s values into the step tensor; call before submitting the step that records AdamW. */
export function writeAdamWStep(gpu: Gpu, stepTensor: Tensor, step: number, h: AdamWHyperparameters): void {
  checkTensor('adamW', 'step', stepTensor, ADAMW_STEP_SIZE);
  gpu.write(stepTensor, adamWStepValues(step, h));
}

/** Records one AdamW update of the whole flat buffer (n a multiple of 4, as the flat parameter buffer is). */
export function recordAdamW(rec: Recorder, gpu: Gpu, t: AdamWTensors): void {
  const n = t.params.size;
  if (n % 4 !== 0 || n === 0) throw new RangeError(`adamW: params (${t.params}) must hold a positive multiple of 4 values (the kernel reads vec4s)`);
  for (const name of ['params', 'grads', 'm', 'v'] as const) checkTensor('adamW', name, t[name], n);
  checkTensor('adamW', 'flags', t.flags, Math.ceil(n / FLAG_BLOCK), 'u32');
  checkTensor('adamW', 'step', t.step, ADAMW_STEP_SIZE);
  checkTensor('adamW', 'clip', t.clip, 2);
  const pipeline = gpu.pipeline(ADAMW_WGSL, 'main', 'adamw');
  rec.dispatch(pipeline, [t.params, t.grads, t.m, t.v, t.flags, t.step, t.clip, gpu.uniform([n / 4])], ...gridFor(gpu, n / 4, 64));
}

export interface AdamWOptions {
  /** Optimizer step, from 1. */
  step: number;
  hyper: AdamWHyperparameters;
  /** Gradients are multiplied by this (the grad-norm clip scale); default 1. */
  clipScale?: number;
  /** Per-64-block flags (parameterFlags); default: every element decays, none frozen. */
  flags?: Uint32Array;
}

/**
 * Host API: one AdamW step; returns the new params and moments. Any n: the GPU buffers are padded
 * to a multiple of 4 with zeros (zero gradient, zero moments: padding stays zero).
 */
export async function adamW(
  gpu: Gpu,
  state: { params: Float32Array; grads: Float32Array; m: Float32Array; v: Float32Array },
  options: AdamWOptions,
): Promise<{ params: Float32Array; m: Float32Array; v: Float32Array }> {
  const n = state.params.length;
  for (const name of ['grads', 'm', 'v'] as const) checkLength('adamW', name, state[name], n);
  const blocks = Math.ceil(n / FLAG_BLOCK);
  const flags = options.flags ?? new Uint32Array(blocks).fill(FLAG_DECAY);
  checkLength('adamW', 'flags', flags, blocks);
  const clipScale = options.clipScale ?? 1;
  checkNumber('adamW', 'clipScale', clipScale, 0, 1);
  const stepValues = adamWStepValues(options.step, options.hyper);
  if (n === 0) return { params: new Float32Array(0), m: new Float32Array(0), v: new Float32Array(0) };
  const padded = Math.max(4, Math.ceil(n / 4) * 4);
  const load = (values: Float32Array, label: string) => {
    const tensor = gpu.tensor([padded], 'f32', label);
    gpu.write(tensor, values);
    return tensor;
  };
  const t = {
    params: load(state.params, 'params'),
    grads: load(state.grads, 'grads'),
    m: load(state.m, 'm'),
    v: load(state.v, 'v'),
    flags: gpu.upload(flags, [blocks], 'flags'),
    step: gpu.upload(stepValues, [ADAMW_STEP_SIZE], 'step'),
    clip: gpu.upload(new Float32Array([0, clipScale]), [2], 'clip'),
  };
  try {
    gpu.run((rec) => recordAdamW(rec, gpu, t), 'adamw');
    const read = async (tensor: Tensor<'f32'>) => (await gpu.read(tensor)).slice(0, n);
    return { params: await read(t.params), m: await read(t.m), v: await read(t.v) };
  } finally {
    for (const tensor of Object.values(t)) gpu.destroy(tensor);
  }
}
