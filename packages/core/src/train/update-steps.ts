// One optimizer step of the policy and of the critic on a minibatch of rows, each recorded into a
// single command encoder and followed by one small metrics readback.
//
// Shape legend:  B rows · T positions · N = B·T · V vocab
//
// Policy: forward → log-probs and entropy (classifier, temperature τ) → policy loss writes
// dL/dlogp → optional KL-in-loss adds β·dk/dlogp → entropy bonus enters as dL/dH = −c_H·m·scale →
// classifier backward → model backward → grad-norm + AdamW. Every term shares the batch-wide
// aggregation scales (rl/aggregate/scales.ts), so a minibatch's loss is its share of the batch loss.
// Critic: forward → clipped value loss writes dL/dV → backward → grad-norm + AdamW.

import {
  type Gpu,
  KL_METRICS,
  type KlEstimator,
  partialsSize,
  policyLossMetricCount,
  recordAggregate,
  recordClassifierBackward,
  recordClassifierForward,
  recordKl,
  recordPolicyLoss,
  recordValueLoss,
  type Tensor,
  VALUE_LOSS_METRICS,
} from '@horizon/kernels';
import type { Gpt } from '../model/gpt.ts';
import type { AdamW, OptimizerOptions } from '../model/optimizer.ts';

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
  refLogp: Float32Array; // [B, T] log π_ref
  returns: Float32Array; // [B, T] critic targets
  oldValues: Float32Array; // [B, T] critic values at scoring time
}

export interface PolicyStepOptions extends OptimizerOptions {
  temperature: number;
  epsLow: number;
  epsHigh: number;
  dualClip: number;
  entropyCoef: number;
  klCoef: number;
  klEstimator: KlEstimator;
  /** Add β·KL to the loss (GRPO); otherwise KL is only measured here. */
  klInLoss: boolean;
}

export interface PolicyStepMetrics {
  loss: number;
  clipFrac: number;
  dualClipFrac: number;
  kl: number;
  approxKl: number;
  entropy: number;
  tokens: number;
  gradNorm: number;
}

export interface CriticStepMetrics {
  valueLoss: number;
  clipFrac: number;
  tokens: number;
  gradNorm: number;
}

/** Where the grad norm lands in the metrics tensor: a view offset must be a multiple of 64 elements. */
const GRAD_NORM_SLOT = 64;

/** GPU tensors for minibatches of one (B, T), allocated on first use. */
class StepTensors {
  readonly inputs: Tensor;
  readonly targets: Tensor;
  readonly mask: Tensor;
  readonly scales: Tensor;
  readonly advantages: Tensor;
  readonly oldLogp: Tensor;
  readonly refLogp: Tensor;
  readonly returns: Tensor;
  readonly oldValues: Tensor;
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
    this.refLogp = f([B, T], 'refLogp');
    this.returns = f([B, T], 'returns');
    this.oldValues = f([B, T], 'oldValues');
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
  private readonly tensors = new Map<string, StepTensors>();
  private readonly dlogits = new Map<string, Tensor>();

  constructor(readonly gpu: Gpu) {}

  /** Releases every minibatch buffer. */
  destroy(): void {
    for (const t of this.tensors.values()) for (const tensor of Object.values(t)) this.gpu.destroy(tensor);
    for (const t of this.dlogits.values()) this.gpu.destroy(t);
    this.tensors.clear();
    this.dlogits.clear();
  }

  private buffers(B: number, T: number): StepTensors {
    const key = `${B}x${T}`;
    let t = this.tensors.get(key);
    if (!t) {
      t = new StepTensors(this.gpu, B, T);
      this.tensors.set(key, t);
    }
    return t;
  }

  private upload(t: StepTensors, mb: Minibatch): void {
    const { gpu } = this;
    gpu.write(t.inputs, mb.inputs);
    gpu.write(t.targets, mb.targets);
    gpu.write(t.mask, mb.mask);
    gpu.write(t.scales, mb.scales);
    gpu.write(t.advantages, mb.advantages);
    gpu.write(t.oldLogp, mb.oldLogp);
    gpu.write(t.refLogp, mb.refLogp);
    gpu.write(t.returns, mb.returns);
    gpu.write(t.oldValues, mb.oldValues);
  }

  /** One policy optimizer step on `mb`. */
  async policyStep(model: Gpt, optimizer: AdamW, mb: Minibatch, o: PolicyStepOptions): Promise<PolicyStepMetrics> {
    const { gpu } = this;
    const { B, T } = mb;
    const N = B * T;
    const V = model.config.vocabSize;
    const t = this.buffers(B, T);
    this.upload(t, mb);
    if (o.entropyCoef > 0)
      gpu.write(
        t.dentropy,
        Float32Array.from(mb.mask, (m, i) => -o.entropyCoef * m * mb.scales[Math.floor(i / T)]),
      );
    const dlogits = this.dlogitsFor(N, V);
    const acts = model.activations(B, T);
    const pgTerms = policyLossMetricCount('ppo'); // loss, low, high, dual, tokens
    const at = { kl: pgTerms, approxKl: pgTerms + KL_METRICS, entropy: pgTerms + 2 * KL_METRICS };
    const rec = gpu.begin('policy-step');
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
    recordPolicyLoss(
      rec,
      gpu,
      { ...lossTensors, grad: t.dlogp, logp: t.logp, oldLogp: t.oldLogp, advantages: t.advantages },
      {
        kind: 'ppo',
        epsLow: o.epsLow,
        epsHigh: o.epsHigh,
        dualClip: o.dualClip,
        B,
        T,
        metricsOffset: 0,
      },
    );
    // KL to the reference: added to the gradient when it is part of the loss, measured either way.
    recordKl(
      rec,
      gpu,
      { ...lossTensors, grad: o.klInLoss ? t.dlogp : t.scratchGrad, logp: t.logp, refLogp: t.refLogp },
      {
        B,
        T,
        estimator: o.klEstimator,
        coef: o.klInLoss ? o.klCoef : 0,
        accumulate: o.klInLoss,
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
    recordAggregate(rec, gpu, { values: t.entropy, mask: t.mask, scales: t.scales, partials: t.partials, out: t.metrics }, { B, T, offset: at.entropy });
    const entropyTerm = o.entropyCoef > 0 ? { entropy: t.entropy, dentropy: t.dentropy } : {};
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
    const m = await gpu.read(t.metrics);
    const tokens = m[pgTerms - 1];
    return {
      loss: m[0],
      clipFrac: tokens > 0 ? (m[1] + m[2]) / tokens : 0,
      dualClipFrac: tokens > 0 ? m[3] / tokens : 0,
      kl: m[at.kl],
      approxKl: m[at.approxKl],
      entropy: m[at.entropy],
      tokens,
      gradNorm: m[GRAD_NORM_SLOT],
    };
  }

  /** One critic optimizer step on `mb` (clipped value loss against `mb.returns`). */
  async criticStep(critic: Gpt, optimizer: AdamW, mb: Minibatch, o: OptimizerOptions & { valueClip: number }): Promise<CriticStepMetrics> {
    const { gpu } = this;
    const { B, T } = mb;
    const t = this.buffers(B, T);
    this.upload(t, mb);
    const acts = critic.activations(B, T);
    const rec = gpu.begin('critic-step');
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
      { B, T, clip: o.valueClip > 0 ? o.valueClip : undefined, metricsOffset: 0 },
    );
    critic.recordBackward(rec, acts, t.inputs, t.dlogp);
    optimizer.recordStep(rec, o);
    rec.copy(optimizer.clip, t.gradNorm, 2);
    gpu.submit(rec);
    const m = await gpu.read(t.metrics);
    const tokens = m[VALUE_LOSS_METRICS - 1];
    return { valueLoss: m[0], clipFrac: tokens > 0 ? m[1] / tokens : 0, tokens, gradNorm: m[GRAD_NORM_SLOT] };
  }

  private dlogitsFor(N: number, V: number): Tensor {
    const key = `${N}x${V}`;
    let t = this.dlogits.get(key);
    if (!t) {
      t = this.gpu.tensor([N, V], 'f32', `step.dlogits[${key}]`);
      this.dlogits.set(key, t);
    }
    return t;
  }
}
