// AdamW for a GPU model: moments, per-block decay/frozen flags, the global grad-norm and its clip
// scale, all on the GPU. One `recordStep` is two grad-norm dispatches and one fused AdamW dispatch;
// the norm never comes back to the host unless a metric asks for it (`readGradNorm`).
//
// Weight decay follows nanoGPT: tensors with ≥ 2 dims decay, biases and LayerNorm gains do not.
// `frozen` names parameters to leave untouched (SAO freezes the critic's attention, docs/algorithms/sao-dis.md §2).

import {
  ADAMW_STEP_SIZE,
  type AdamWHyperparameters,
  type Gpu,
  GRAD_NORM_PARTIALS,
  parameterFlags,
  type Recorder,
  recordAdamW,
  recordGradNorm,
  type Tensor,
  writeAdamWStep,
} from '@horizon/kernels';
import type { Gpt } from './gpt.ts';

export interface OptimizerOptions extends AdamWHyperparameters {
  /** Clip the global gradient norm to this; 0 = no clipping. */
  gradClip: number;
}

export class AdamW {
  readonly m: Tensor; // [P] first moments
  readonly v: Tensor; // [P] second moments
  private readonly flags: Tensor; // [⌈P/64⌉] u32
  private readonly stepValues: Tensor; // [ADAMW_STEP_SIZE]
  private readonly partials: Tensor; // [GRAD_NORM_PARTIALS] scratch
  /** [norm, clipScale] of the last recorded step. */
  readonly clip: Tensor;
  /** Updates applied so far (the next one is step + 1). */
  step = 0;

  constructor(
    readonly model: Gpt,
    /** Names of parameters AdamW must not change. */
    frozen: readonly string[] = [],
  ) {
    const { gpu, layout } = model;
    const P = layout.totalSize;
    const unknown = frozen.filter((name) => !layout.entries.some((e) => e.name === name));
    if (unknown.length > 0) throw new RangeError(`${model.label}: cannot freeze unknown parameters ${unknown.join(', ')}`);
    const ranges = layout.entries.map((e) => ({ offset: e.offset, size: e.size, decay: e.shape.length >= 2, frozen: frozen.includes(e.name) }));
    this.m = gpu.tensor([P], 'f32', `${model.label}.adam.m`);
    this.v = gpu.tensor([P], 'f32', `${model.label}.adam.v`);
    this.flags = gpu.upload(parameterFlags(P, ranges), [Math.ceil(P / 64)], `${model.label}.adam.flags`);
    this.stepValues = gpu.tensor([ADAMW_STEP_SIZE], 'f32', `${model.label}.adam.step`);
    this.partials = gpu.tensor([GRAD_NORM_PARTIALS], 'f32', `${model.label}.gradnorm.partials`);
    this.clip = gpu.tensor([2], 'f32', `${model.label}.gradnorm.out`);
  }

  get gpu(): Gpu {
    return this.model.gpu;
  }

  /**
   * Records the grad-norm and the update of every parameter from `model.grads`. Writes this step's
   * scalars (bias corrections, lr) to the GPU first, so submit before recording the next step.
   */
  recordStep(rec: Recorder, options: OptimizerOptions): void {
    this.step++;
    writeAdamWStep(this.gpu, this.stepValues, this.step, options);
    recordGradNorm(
      rec,
      this.gpu,
      { grads: this.model.grads, partials: this.partials, out: this.clip, flags: this.flags },
      { maxNorm: options.gradClip > 0 ? options.gradClip : Number.POSITIVE_INFINITY },
    );
    recordAdamW(rec, this.gpu, {
      params: this.model.params,
      grads: this.model.grads,
      m: this.m,
      v: this.v,
      flags: this.flags,
      step: this.stepValues,
      clip: this.clip,
    });
  }

  /** Releases the optimizer's GPU buffers. */
  destroy(): void {
    for (const t of [this.m, this.v, this.flags, this.stepValues, this.partials, this.clip]) this.gpu.destroy(t);
  }

  /** The last step's gradient norm (before clipping). One small readback. */
  async readGradNorm(): Promise<number> {
    return (await this.gpu.read(this.clip))[0];
  }

  /** Moments and step count, for checkpoints. */
  async saveState(): Promise<{ step: number; m: Float32Array; v: Float32Array }> {
    return { step: this.step, m: (await this.gpu.read(this.m)) as Float32Array, v: (await this.gpu.read(this.v)) as Float32Array };
  }

  loadState(state: { step: number; m: Float32Array; v: Float32Array }): void {
    const P = this.model.layout.totalSize;
    if (state.m.length !== P || state.v.length !== P)
      throw new RangeError(`${this.model.label}: optimizer state holds ${state.m.length} moments, the model has ${P}`);
    this.gpu.write(this.m, state.m);
    this.gpu.write(this.v, state.v);
    this.step = state.step;
  }
}
