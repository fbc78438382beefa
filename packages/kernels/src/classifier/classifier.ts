// Launchers and host API for the fused classifier (math in classifier.wgsl.ts).
//
// Shape legend:  N rows (B·T) · V vocabulary
//   logits: [N, V] · targets: [N] u32 · logp, entropy, lse, dlogp, dentropy: [N] · dlogits: [N, V]

import { gridFor } from '../gpu/grid.ts';
import type { Gpu, Recorder } from '../gpu/runtime.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { f32Bits } from '../gpu/wgsl.ts';
import { checkPositiveSizes, checkTensor } from '../util/checks.ts';
import { CLASSIFIER_ELEMENT_WORKGROUP, CLASSIFIER_ROW_WORKGROUP, classifierBackwardWgsl, classifierForwardWgsl } from './classifier.wgsl.ts';

export interface ClassifierShape {
  /** Rows: B·T positions. */
  N: number;
  /** Vocabulary size. */
  V: number;
}

export interface ClassifierOptions {
  /** τ > 0: logits are divided by it, as the sampler did (docs/algorithms/README.md §5). Default 1. */
  temperature?: number;
}

export interface ClassifierForwardTensors {
  logits: Tensor; // [N, V] f32
  targets: Tensor; // [N] u32
  logp: Tensor; // [N] f32
  entropy: Tensor; // [N] f32
  lse: Tensor; // [N] f32, logsumexp of logits/τ, saved for the backward
}

export interface ClassifierBackwardTensors {
  logits: Tensor; // [N, V] f32
  targets: Tensor; // [N] u32
  lse: Tensor; // [N] f32 from the forward
  dlogp: Tensor; // [N] f32
  dlogits: Tensor; // [N, V] f32, overwritten
  /** Both or neither: the entropy term needs the forward's entropy and the upstream dentropy. */
  entropy?: Tensor; // [N] f32 from the forward
  dentropy?: Tensor; // [N] f32
}

/** Records logp, entropy and lse of every row. */
export function recordClassifierForward(rec: Recorder, gpu: Gpu, t: ClassifierForwardTensors, shape: ClassifierShape, options: ClassifierOptions = {}): void {
  const invTau = checkClassifier(shape, options, 'classifier');
  const { N, V } = shape;
  checkTensor('classifier', 'logits', t.logits, N * V);
  checkTensor('classifier', 'targets', t.targets, N, 'u32');
  for (const [name, x] of [
    ['logp', t.logp],
    ['entropy', t.entropy],
    ['lse', t.lse],
  ] as const)
    checkTensor('classifier', name, x, N);
  const pipeline = gpu.pipeline(classifierForwardWgsl(), 'main', 'classifier_forward');
  const params = gpu.uniform([N, V, f32Bits(invTau)]);
  rec.dispatch(pipeline, [t.logits, t.targets, t.logp, t.entropy, t.lse, params], ...gridFor(gpu, N, CLASSIFIER_ROW_WORKGROUP));
}

/** Records dlogits from per-row upstream gradients of logp (and entropy, when given). */
export function recordClassifierBackward(rec: Recorder, gpu: Gpu, t: ClassifierBackwardTensors, shape: ClassifierShape, options: ClassifierOptions = {}): void {
  const invTau = checkClassifier(shape, options, 'classifierBackward');
  const { N, V } = shape;
  if ((t.entropy === undefined) !== (t.dentropy === undefined)) {
    throw new RangeError('classifierBackward: pass entropy and dentropy together, or neither');
  }
  checkTensor('classifierBackward', 'logits', t.logits, N * V);
  checkTensor('classifierBackward', 'dlogits', t.dlogits, N * V);
  checkTensor('classifierBackward', 'targets', t.targets, N, 'u32');
  for (const [name, x] of [
    ['lse', t.lse],
    ['dlogp', t.dlogp],
    ['entropy', t.entropy],
    ['dentropy', t.dentropy],
  ] as const) {
    if (x) checkTensor('classifierBackward', name, x, N);
  }
  const withEntropy = t.entropy !== undefined;
  const pipeline = gpu.pipeline(classifierBackwardWgsl(withEntropy), 'main', withEntropy ? 'classifier_backward_entropy' : 'classifier_backward');
  const params = gpu.uniform([N, V, f32Bits(invTau)]);
  const bindings = [t.logits, t.targets, t.lse, t.dlogp, t.dlogits, params];
  if (t.entropy && t.dentropy) bindings.push(t.entropy, t.dentropy);
  rec.dispatch(pipeline, bindings, ...gridFor(gpu, N * V, CLASSIFIER_ELEMENT_WORKGROUP));
}

/** Host API: log-prob of each target, entropy and logsumexp of each row of logits/τ. */
export async function classifierForward(
  gpu: Gpu,
  logits: Float32Array,
  targets: Uint32Array,
  shape: ClassifierShape,
  options: ClassifierOptions = {},
): Promise<{ logp: Float32Array; entropy: Float32Array; lse: Float32Array }> {
  checkClassifier(shape, options, 'classifier');
  checkHostInputs('classifier', logits, targets, shape);
  const { N, V } = shape;
  const t = {
    logits: gpu.upload(logits, [N, V], 'logits'),
    targets: gpu.upload(targets, [N], 'targets'),
    logp: gpu.tensor([N], 'f32', 'logp'),
    entropy: gpu.tensor([N], 'f32', 'entropy'),
    lse: gpu.tensor([N], 'f32', 'lse'),
  };
  try {
    gpu.run((rec) => recordClassifierForward(rec, gpu, t, shape, options), 'classifier');
    return { logp: await gpu.read(t.logp), entropy: await gpu.read(t.entropy), lse: await gpu.read(t.lse) };
  } finally {
    for (const x of Object.values(t)) gpu.destroy(x);
  }
}

/** Host API: dlogits; `saved` is what `classifierForward` returned; omit `dentropy` for a loss without entropy. */
export async function classifierBackward(
  gpu: Gpu,
  logits: Float32Array,
  targets: Uint32Array,
  saved: { lse: Float32Array; entropy: Float32Array },
  dlogp: Float32Array,
  dentropy: Float32Array | undefined,
  shape: ClassifierShape,
  options: ClassifierOptions = {},
): Promise<Float32Array> {
  checkClassifier(shape, options, 'classifierBackward');
  checkHostInputs('classifierBackward', logits, targets, shape);
  const { N, V } = shape;
  for (const [name, x] of [
    ['lse', saved.lse],
    ['entropy', saved.entropy],
    ['dlogp', dlogp],
    ['dentropy', dentropy],
  ] as const) {
    if (x && x.length !== N) throw new RangeError(`classifierBackward: ${name} must hold ${N} values, got ${x.length}`);
  }
  const t = {
    logits: gpu.upload(logits, [N, V], 'logits'),
    targets: gpu.upload(targets, [N], 'targets'),
    lse: gpu.upload(saved.lse, [N], 'lse'),
    dlogp: gpu.upload(dlogp, [N], 'dlogp'),
    dlogits: gpu.tensor([N, V], 'f32', 'dlogits'),
    ...(dentropy ? { entropy: gpu.upload(saved.entropy, [N], 'entropy'), dentropy: gpu.upload(dentropy, [N], 'dentropy') } : {}),
  };
  try {
    gpu.run((rec) => recordClassifierBackward(rec, gpu, t, shape, options), 'classifier backward');
    return await gpu.read(t.dlogits);
  } finally {
    for (const x of Object.values(t)) gpu.destroy(x);
  }
}

/** Validates shape and temperature; returns 1/τ. */
function checkClassifier(shape: ClassifierShape, options: ClassifierOptions, kernel: string): number {
  checkPositiveSizes(kernel, { N: shape.N, V: shape.V });
  if (shape.N * shape.V >= 2 ** 32) throw new RangeError(`${kernel}: N·V = ${shape.N * shape.V} overflows the kernels' 32-bit indices`);
  const tau = options.temperature ?? 1;
  if (!Number.isFinite(tau) || tau <= 0) throw new RangeError(`${kernel}: temperature must be a finite number > 0, got ${tau}`);
  return 1 / tau;
}

function checkHostInputs(kernel: string, logits: Float32Array, targets: Uint32Array, { N, V }: ClassifierShape): void {
  if (logits.length !== N * V) throw new RangeError(`${kernel}: logits must hold N·V = ${N * V} values, got ${logits.length}`);
  if (targets.length !== N) throw new RangeError(`${kernel}: targets must hold N = ${N} values, got ${targets.length}`);
  const bad = targets.findIndex((y) => y >= V);
  if (bad >= 0) throw new RangeError(`${kernel}: targets[${bad}] = ${targets[bad]} is not below V = ${V}`);
  const nonFinite = logits.findIndex((x) => !Number.isFinite(x));
  if (nonFinite >= 0) throw new RangeError(`${kernel}: logits[${nonFinite}] = ${logits[nonFinite]} is not finite`);
}
