// One optimizer step of a model on a minibatch of rows, recorded into a single command encoder and
// followed by one small metrics readback. The step records exactly the loss terms it is given
// (algorithms/algorithm.ts `LossTerm`): a term absent from the list costs nothing and logs nothing.
// A minibatch is either host arrays, uploaded, or rows of the scored batch already on the GPU
// (train/batch-tensors.ts), copied row by row at the start of the step's encoder: there is no gather
// kernel, and a copy command per row and array is cheap beside a step (576 of them, a PPO
// minibatch's, took 3.1 ms on SwiftShader against 0.24 ms for uploading the same rows, 2026-12-01).
// Either way each input is put in place once per minibatch: a critic's step and the policy's on the
// same rows share it.
//
// Shape legend:  B rows · T positions · N = B·T · V vocab
//
// Language-model head (the policy): forward → log-probs and entropy (classifier, temperature τ) →
// the surrogate term (PPO clip or DIS) writes dL/dlogp → a KL term adds β·dk/dlogp → a distillation
// term adds λ·(ℓ − ℓ_teacher) (the k2 gradient against the teacher's log-probs) → an entropy term
// enters as dL/dH = −c_H·m·scale → classifier backward → model backward → grad-norm + AdamW. The KL
// to the reference, the approximate KL to π_old and the entropy are measured on every such step.
// A KTO term writes dL/dlogp in the surrogate's place (kernels/src/rl/kto, TRL's loss: a mean over
// the minibatch's rows, not the aggregation scales), its reference point z0 from the minibatch's
// mismatched pairs as scored before the update (detached either way).
// Value head (a critic): forward → clipped value loss writes dL/dV → backward → grad-norm + AdamW.
// Every term shares the batch-wide aggregation scales (rl/aggregate/scales.ts), so a minibatch's
// loss is its share of the batch loss.

import {
  type Gpu,
  KL_METRICS,
  partialsSize,
  policyLossMetricCount,
  type Recorder,
  recordAggregate,
  recordClassifierBackward,
  recordClassifierForward,
  recordKl,
  recordKto,
  recordPolicyLoss,
  recordValueLoss,
  type Tensor,
  VALUE_LOSS_METRICS,
} from '@horizon/kernels';
import type { LossTerm } from '../algorithms/algorithm.ts';
import type { MetricName } from '../metrics/glossary.ts';
import type { Gpt } from '../model/gpt.ts';
import type { AdamW, OptimizerOptions } from '../model/optimizer.ts';
import { ShapeCache } from '../util/shape-cache.ts';
import type { BatchTensors } from './batch-tensors.ts';

/** Host arrays of one minibatch (rows gathered from the scored batch). */
export interface Minibatch {
  B: number;
  T: number;
  inputs: Uint32Array; // [B, T]
  targets: Uint32Array; // [B, T]
  mask: Uint32Array; // [B, T] action tokens
  scales: Float32Array; // [B] batch-wide aggregation scales
  advantages: Float32Array; // [B, T]
  oldLogp: Float32Array; // [B, T] log π_old at scoring time
  rolloutLogp: Float32Array; // [B, T] log π_roll recorded by the sampler
  refLogp: Float32Array; // [B, T] log π_ref
  returns: Float32Array; // [B, T] critic targets
  oldValues: Float32Array; // [B, T] critic values at scoring time
  /** Row b's prompt with another row's completion, scored before the update (a KTO term's z0). */
  mismatched?: { logp: Float32Array; refLogp: Float32Array; mask: Uint32Array }; // [B, T] each
  /** [B, T] log π_teacher of each row's routed teacher; needed by a distill term. */
  teacherLogp?: Float32Array;
}

/**
 * Rows `indices` of a scored batch on the GPU, in that order. `host` builds the same rows as host
 * arrays, for what a step still computes on the host: an entropy term's dL/dH and a KTO term's labels
 * and mismatched pairs.
 */
export interface BatchRows {
  batch: BatchTensors;
  indices: readonly number[];
  host(): Minibatch;
}

export type StepRows = Minibatch | BatchRows;

/** The per-row inputs of a step, by their names in `Minibatch` and `StepTensors`. */
type StepInput = 'inputs' | 'targets' | 'mask' | 'scales' | 'advantages' | 'oldLogp' | 'rolloutLogp' | 'refLogp' | 'returns' | 'oldValues' | 'teacherLogp';

/** Where each input lives in the batch's tensors. */
const IN_BATCH: Record<StepInput, keyof BatchTensors> = {
  inputs: 'inputs',
  targets: 'targets',
  mask: 'mask',
  scales: 'scales',
  advantages: 'advantages',
  oldLogp: 'oldLogp',
  rolloutLogp: 'rolloutLogp',
  refLogp: 'refLogp',
  returns: 'returns',
  oldValues: 'values',
  teacherLogp: 'teacherLogp',
};

export interface StepOptions extends OptimizerOptions {
  /** The sampling temperature τ, at which a language-model head's log-probs are taken. */
  temperature: number;
}

/** One step's metrics, by glossary name. */
export type StepMetrics = Partial<Record<MetricName, number>>;

/** Where the grad norm lands in the metrics tensor: a view offset must be a multiple of 64 elements. */
const GRAD_NORM_SLOT = 64;

/** A KTO term's extra tensors for one (B, T), allocated on first use. */
class KtoStepTensors {
  readonly klLogp: Tensor;
  readonly klRefLogp: Tensor;
  readonly klMask: Tensor;
  readonly desirable: Tensor;
  readonly seq: Tensor;
  readonly perSample: Tensor;
  readonly stats: Tensor;

  constructor(gpu: Gpu, B: number, T: number) {
    const name = (n: string) => `step.kto.${n}[${B}x${T}]`;
    this.klLogp = gpu.tensor([B, T], 'f32', name('klLogp'));
    this.klRefLogp = gpu.tensor([B, T], 'f32', name('klRefLogp'));
    this.klMask = gpu.tensor([B, T], 'u32', name('klMask'));
    this.desirable = gpu.tensor([B], 'u32', name('desirable'));
    this.seq = gpu.tensor([B, 2], 'f32', name('seq')); // (r_b, kl_b)
    this.perSample = gpu.tensor([B, 3], 'f32', name('perSample')); // (r_b, L_b, dL/dr_b)
    this.stats = gpu.tensor([2], 'f32', name('stats')); // (loss, z0)
  }
}

/** GPU tensors for minibatches of one (B, T), allocated on first use. */
class StepTensors {
  readonly inputs: Tensor;
  readonly targets: Tensor;
  readonly mask: Tensor;
  readonly scales: Tensor;
  readonly advantages: Tensor;
  readonly oldLogp: Tensor;
  readonly rolloutLogp: Tensor;
  readonly refLogp: Tensor;
  readonly returns: Tensor;
  readonly oldValues: Tensor;
  readonly teacherLogp: Tensor;
  readonly dentropy: Tensor;
  readonly logp: Tensor;
  readonly entropy: Tensor;
  readonly lse: Tensor;
  readonly dlogp: Tensor;
  readonly perToken: Tensor;
  readonly scratchGrad: Tensor;
  readonly partials: Tensor;
  /** Loss terms from offset 0; the optimizer's [norm, clipScale] at GRAD_NORM_SLOT (a view, so one readback gets all). */
  readonly metrics: Tensor;
  readonly gradNorm: Tensor;

  constructor(gpu: Gpu, B: number, T: number) {
    const N = B * T;
    const f = (shape: number[], name: string) => gpu.tensor(shape, 'f32', `step.${name}[${B}x${T}]`);
    const u = (shape: number[], name: string) => gpu.tensor(shape, 'u32', `step.${name}[${B}x${T}]`);
    this.inputs = u([B, T], 'inputs');
    this.targets = u([B, T], 'targets');
    this.mask = u([B, T], 'mask');
    this.scales = f([B], 'scales');
    this.advantages = f([B, T], 'advantages');
    this.oldLogp = f([B, T], 'oldLogp');
    this.rolloutLogp = f([B, T], 'rolloutLogp');
    this.refLogp = f([B, T], 'refLogp');
    this.returns = f([B, T], 'returns');
    this.oldValues = f([B, T], 'oldValues');
    this.teacherLogp = f([B, T], 'teacherLogp');
    this.dentropy = f([B, T], 'dentropy');
    this.logp = f([B, T], 'logp');
    this.entropy = f([B, T], 'entropy');
    this.lse = f([B, T], 'lse');
    this.dlogp = f([B, T], 'dlogp');
    this.perToken = f([B, T], 'perToken');
    this.scratchGrad = f([B, T], 'scratchGrad');
    this.partials = f([partialsSize(gpu, N, 8)], 'partials');
    this.metrics = f([GRAD_NORM_SLOT + 2], 'metrics');
    this.gradNorm = gpu.view(this.metrics, GRAD_NORM_SLOT, [2], 'step.gradNorm');
  }
}

export class UpdateSteps {
  private readonly destroyAll = (t: object) => {
    for (const tensor of Object.values(t)) this.gpu.destroy(tensor as Tensor);
  };
  private readonly tensors = new ShapeCache<StepTensors>(this.destroyAll);
  private readonly ktoTensors = new ShapeCache<KtoStepTensors>(this.destroyAll);
  private readonly dlogits = new ShapeCache<Tensor>((t) => this.gpu.destroy(t));
  /** The rows each step tensor holds now, so one minibatch is put in place once for every step on it. */
  private readonly loadedFrom = new WeakMap<Tensor, StepRows>();

  constructor(readonly gpu: Gpu) {}

  /** Releases every minibatch buffer. */
  destroy(): void {
    for (const cache of [this.tensors, this.ktoTensors, this.dlogits]) cache.clear();
  }

  /** Releases the buffers of minibatch shapes not used since the last sweep (util/shape-cache.ts); call between iterations. */
  sweep(): void {
    for (const cache of [this.tensors, this.ktoTensors, this.dlogits]) cache.sweep();
  }

  private buffers(B: number, T: number): StepTensors {
    return this.tensors.get(`${B}x${T}`, () => new StepTensors(this.gpu, B, T));
  }

  /**
   * Puts the named inputs of `rows` into the step tensors unless they hold them already: host arrays
   * are uploaded, batch rows are copied on the GPU at the start of `rec`. Returns what to mark as
   * loaded once `rec` is submitted (a step that throws before then leaves nothing marked).
   */
  private load(rec: Recorder, t: StepTensors, rows: StepRows, names: readonly StepInput[]): () => void {
    const loaded: Tensor[] = [];
    for (const name of names) {
      const tensor = t[name];
      if (this.loadedFrom.get(tensor) === rows) continue;
      if (isBatchRows(rows)) {
        const source = rows.batch[IN_BATCH[name]] as Tensor;
        copyRows(rec, source, tensor, rows.indices, name === 'scales' ? 1 : rows.batch.T);
      } else {
        const data = rows[name];
        if (!data) throw new RangeError(`the minibatch has no ${name}, which this step needs`);
        this.gpu.write(tensor, data);
      }
      loaded.push(tensor);
    }
    return () => {
      for (const tensor of loaded) this.loadedFrom.set(tensor, rows);
    };
  }

  /** One optimizer step of `model` on `rows`, training it on `terms` (a value head takes only a value term). */
  step(model: Gpt, optimizer: AdamW, rows: StepRows, terms: readonly LossTerm[], o: StepOptions): Promise<StepMetrics> {
    return model.config.head === 'value' ? this.valueStep(model, optimizer, rows, terms, o) : this.policyStep(model, optimizer, rows, terms, o);
  }

  private async policyStep(model: Gpt, optimizer: AdamW, rows: StepRows, terms: readonly LossTerm[], o: StepOptions): Promise<StepMetrics> {
    const { gpu } = this;
    const { B, T } = shapeOf(rows);
    const N = B * T;
    const V = model.config.vocabSize;
    const surrogate = only(terms, 'ppo-clip', 'dis');
    const kto = only(terms, 'kto');
    if (surrogate && kto) throw new RangeError(`a step takes a surrogate or a KTO term, not both, got [${terms.map((term) => term.kind).join(', ')}]`);
    const kl = only(terms, 'kl');
    const entropy = only(terms, 'entropy');
    const distill = only(terms, 'distill');
    if (distill && !isBatchRows(rows) && !rows.teacherLogp) throw new RangeError('a distill term needs the teachers’ log-probs in the minibatch');
    if (only(terms, 'value')) throw new RangeError(`a value term trains a value head; ${model.label} has a language-model head`);
    const t = this.buffers(B, T);
    const rec = gpu.begin('policy-step');
    const needs: StepInput[] = ['inputs', 'targets', 'mask', 'scales', 'oldLogp', 'refLogp'];
    if (surrogate) needs.push('advantages', ...(surrogate.kind === 'dis' ? (['rolloutLogp'] as const) : []));
    if (distill) needs.push('teacherLogp');
    const markLoaded = this.load(rec, t, rows, needs);
    const host = kto || entropy ? (isBatchRows(rows) ? rows.host() : rows) : undefined;
    const k = kto && host ? this.uploadKto(host) : undefined;
    if (entropy && host) {
      gpu.write(
        t.dentropy,
        Float32Array.from(host.mask, (m, i) => -entropy.coef * m * host.scales[Math.floor(i / T)]),
      );
    }
    const dlogits = this.dlogitsFor(N, V);
    const acts = model.activations(B, T);
    // Metric slots: the surrogate's [loss, low, high, (dual,) tokens], then KL, approx KL, entropy, distillation.
    const pgTerms = surrogate ? policyLossMetricCount(surrogate.kind === 'ppo-clip' ? 'ppo' : 'dis') : 0;
    const at = { kl: pgTerms, approxKl: pgTerms + KL_METRICS, entropy: pgTerms + 2 * KL_METRICS, distill: pgTerms + 2 * KL_METRICS + 1 };
    model.recordZeroGrad(rec);
    model.recordForward(rec, acts, t.inputs);
    recordClassifierForward(
      rec,
      gpu,
      { logits: acts.output, targets: t.targets, logp: t.logp, entropy: t.entropy, lse: t.lse },
      { N, V },
      { temperature: o.temperature },
    );
    const lossTensors = { mask: t.mask, scales: t.scales, loss: t.perToken, partials: t.partials, metrics: t.metrics };
    // The surrogate (or KTO) writes dL/dlogp; without one, the KL term, else the distillation term (or it stays zero).
    if (!surrogate && !kto && !kl && !distill) rec.clear(t.dlogp);
    if (kto && k) {
      recordKto(
        rec,
        gpu,
        {
          logp: t.logp,
          refLogp: t.refLogp,
          mask: t.mask,
          klLogp: k.klLogp,
          klRefLogp: k.klRefLogp,
          klMask: k.klMask,
          desirable: k.desirable,
          seq: k.seq,
          perSample: k.perSample,
          stats: k.stats,
          grad: t.dlogp,
        },
        { B, T, beta: kto.beta, lambdaD: kto.desirableWeight, lambdaU: kto.undesirableWeight },
      );
    }
    if (surrogate) {
      recordPolicyLoss(
        rec,
        gpu,
        { ...lossTensors, grad: t.dlogp, logp: t.logp, oldLogp: surrogate.kind === 'dis' ? t.rolloutLogp : t.oldLogp, advantages: t.advantages },
        surrogate.kind === 'ppo-clip'
          ? { kind: 'ppo', epsLow: surrogate.epsLow, epsHigh: surrogate.epsHigh, dualClip: surrogate.dualClip, B, T, metricsOffset: 0 }
          : { kind: 'dis', epsLow: surrogate.epsLow, epsHigh: surrogate.epsHigh, B, T, metricsOffset: 0 },
      );
    }
    // KL to the reference: added to the gradient when it is a term, measured either way (policy/kl).
    recordKl(
      rec,
      gpu,
      { ...lossTensors, grad: kl ? t.dlogp : t.scratchGrad, logp: t.logp, refLogp: t.refLogp },
      {
        B,
        T,
        estimator: kl ? kl.estimator : 'k1',
        coef: kl ? kl.coef : 0,
        accumulate: kl !== undefined && (surrogate !== undefined || kto !== undefined),
        metricsOffset: at.kl,
      },
    );
    // How far the policy already moved from the rollout snapshot: k3 of ℓ − ℓ_old (0 at the first step).
    recordKl(
      rec,
      gpu,
      { ...lossTensors, grad: t.scratchGrad, logp: t.logp, refLogp: t.oldLogp },
      { B, T, estimator: 'k3', coef: 0, metricsOffset: at.approxKl },
    );
    // Distillation as a loss: ½(ℓ − ℓ_teacher)² is the KL kernel's k2 with the teacher as its reference.
    if (distill)
      recordKl(
        rec,
        gpu,
        { ...lossTensors, grad: t.dlogp, logp: t.logp, refLogp: t.teacherLogp },
        { B, T, estimator: 'k2', coef: distill.coef, accumulate: surrogate !== undefined || kl !== undefined, metricsOffset: at.distill },
      );
    recordAggregate(rec, gpu, { values: t.entropy, mask: t.mask, scales: t.scales, partials: t.partials, out: t.metrics }, { B, T, offset: at.entropy });
    const entropyTerm = entropy ? { entropy: t.entropy, dentropy: t.dentropy } : {};
    recordClassifierBackward(
      rec,
      gpu,
      { logits: acts.output, targets: t.targets, lse: t.lse, dlogp: t.dlogp, dlogits, ...entropyTerm },
      { N, V },
      { temperature: o.temperature },
    );
    model.recordBackward(rec, acts, t.inputs, dlogits);
    optimizer.recordStep(rec, o);
    rec.copy(optimizer.clip, t.gradNorm, 2);
    gpu.submit(rec);
    markLoaded();
    const [m, ktoStats] = (await gpu.readMany([t.metrics, ...(k ? [k.stats] : [])])) as Float32Array[];
    const metrics: StepMetrics = {
      'policy/kl': m[at.kl],
      'policy/approx_kl': m[at.approxKl],
      'policy/entropy': m[at.entropy],
      'policy/grad_norm': m[GRAD_NORM_SLOT],
    };
    if (distill) metrics['policy/distill_loss'] = distill.coef * m[at.distill];
    if (surrogate) {
      const tokens = m[pgTerms - 1];
      metrics['policy/loss'] = m[0];
      metrics['policy/clip_frac'] = tokens > 0 ? (m[1] + m[2]) / tokens : 0;
      if (surrogate.kind === 'ppo-clip') metrics['policy/dual_clip_frac'] = tokens > 0 ? m[3] / tokens : 0;
    }
    if (ktoStats) {
      metrics['policy/loss'] = ktoStats[0];
      metrics['policy/kto_z0'] = ktoStats[1];
    }
    return metrics;
  }

  /** A KTO term's inputs: the mismatched pairs and each row's label (desirable iff its advantages are positive). */
  private uploadKto(mb: Minibatch): KtoStepTensors {
    const { B, T } = mb;
    if (!mb.mismatched) throw new RangeError('a KTO term needs the mismatched score of its rows (its algorithm must declare it)');
    const k = this.ktoTensors.get(`${B}x${T}`, () => new KtoStepTensors(this.gpu, B, T));
    const desirable = new Uint32Array(B);
    for (let i = 0; i < B * T; i++) if (mb.mask[i] && mb.advantages[i] > 0) desirable[Math.floor(i / T)] = 1;
    this.gpu.write(k.klLogp, mb.mismatched.logp);
    this.gpu.write(k.klRefLogp, mb.mismatched.refLogp);
    this.gpu.write(k.klMask, mb.mismatched.mask);
    this.gpu.write(k.desirable, desirable);
    return k;
  }

  /** A value-head step: the clipped value loss against `mb.returns`, the only term a critic takes. */
  private async valueStep(critic: Gpt, optimizer: AdamW, rows: StepRows, terms: readonly LossTerm[], o: StepOptions): Promise<StepMetrics> {
    const value = only(terms, 'value');
    const other = terms.find((term) => term.kind !== 'value');
    if (!value || other)
      throw new RangeError(`${critic.label} has a value head, which trains on one value term only, got [${terms.map((term) => term.kind).join(', ')}]`);
    const { gpu } = this;
    const { B, T } = shapeOf(rows);
    const t = this.buffers(B, T);
    const rec = gpu.begin('critic-step');
    const markLoaded = this.load(rec, t, rows, ['inputs', 'mask', 'scales', 'oldValues', 'returns']);
    const acts = critic.activations(B, T);
    critic.recordZeroGrad(rec);
    critic.recordForward(rec, acts, t.inputs);
    recordValueLoss(
      rec,
      gpu,
      {
        mask: t.mask,
        scales: t.scales,
        loss: t.perToken,
        grad: t.dlogp,
        partials: t.partials,
        metrics: t.metrics,
        values: acts.output,
        oldValues: t.oldValues,
        returns: t.returns,
      },
      { B, T, clip: value.clip > 0 ? value.clip : undefined, metricsOffset: 0 },
    );
    critic.recordBackward(rec, acts, t.inputs, t.dlogp);
    optimizer.recordStep(rec, o);
    rec.copy(optimizer.clip, t.gradNorm, 2);
    gpu.submit(rec);
    markLoaded();
    const m = await gpu.read(t.metrics);
    const tokens = m[VALUE_LOSS_METRICS - 1];
    return { 'critic/value_loss': m[0], 'critic/value_clip_frac': tokens > 0 ? m[1] / tokens : 0, 'critic/grad_norm': m[GRAD_NORM_SLOT] };
  }

  private dlogitsFor(N: number, V: number): Tensor {
    const key = `${N}x${V}`;
    return this.dlogits.get(key, () => this.gpu.tensor([N, V], 'f32', `step.dlogits[${key}]`));
  }
}

function isBatchRows(rows: StepRows): rows is BatchRows {
  return 'batch' in rows;
}

function shapeOf(rows: StepRows): { B: number; T: number } {
  return isBatchRows(rows) ? { B: rows.indices.length, T: rows.batch.T } : { B: rows.B, T: rows.T };
}

/** Records destination row i = source row indices[i] (rows of `width` values), one copy per run of consecutive rows. */
function copyRows(rec: Recorder, source: Tensor, destination: Tensor, indices: readonly number[], width: number): void {
  for (let i = 0; i < indices.length; ) {
    let run = 1;
    while (i + run < indices.length && indices[i + run] === indices[i] + run) run++;
    rec.copyRange(source, indices[i] * width, destination, i * width, run * width);
    i += run;
  }
}

/** The one term of these kinds in `terms`, if any; two of them would be ambiguous. */
function only<K extends LossTerm['kind']>(terms: readonly LossTerm[], ...kinds: K[]): Extract<LossTerm, { kind: K }> | undefined {
  const found = terms.filter((term): term is Extract<LossTerm, { kind: K }> => (kinds as string[]).includes(term.kind));
  if (found.length > 1) throw new RangeError(`a step takes at most one ${kinds.join(' or ')} term, got ${found.length}`);
  return found[0];
}
