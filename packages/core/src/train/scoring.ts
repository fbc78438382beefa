// Scoring a batch of rollouts before the update: log π_old and entropy under the policy, log π_ref
// under the frozen reference, and V under the critic — one submit for the work and one for the
// readback of every array (they are [B, T] floats: a few KB for the batches Horizon trains on).
//
// Shape legend:  B rows · T positions · N = B·T · V vocab

import { type Gpu, recordClassifierForward, type Tensor } from '@horizon/kernels';
import type { Gpt } from '../model/gpt.ts';
import type { TrainingRows } from './rows.ts';

export interface Scores {
  oldLogp: Float32Array; // [B, T] log π_old of every target
  entropy: Float32Array; // [B, T] entropy of π_old at every position
  refLogp: Float32Array; // [B, T] log π_ref of every target
  /** [B, T] critic values; absent without a critic. */
  values?: Float32Array;
}

interface ScoreTensors {
  inputs: Tensor; // [B, T] u32
  targets: Tensor; // [B, T] u32
  logp: Tensor; // [B, T]
  entropy: Tensor; // [B, T]
  refLogp: Tensor; // [B, T]
  refEntropy: Tensor; // [B, T]
  lse: Tensor; // [B, T]
}

export class Scorer {
  private readonly tensors = new Map<string, ScoreTensors>();

  constructor(readonly gpu: Gpu) {}

  /** Releases the scoring buffers. */
  destroy(): void {
    for (const t of this.tensors.values()) for (const tensor of Object.values(t)) this.gpu.destroy(tensor);
    this.tensors.clear();
  }

  async score(rows: TrainingRows, models: { policy: Gpt; reference: Gpt; critic?: Gpt }, temperature: number): Promise<Scores> {
    const { gpu } = this;
    const { B, T } = rows;
    const N = B * T;
    const V = models.policy.config.vocabSize;
    const t = this.buffers(B, T);
    gpu.write(t.inputs, rows.inputs);
    gpu.write(t.targets, rows.targets);
    const rec = gpu.begin('score');
    for (const [model, logp, entropy] of [
      [models.policy, t.logp, t.entropy],
      [models.reference, t.refLogp, t.refEntropy],
    ] as const) {
      const acts = model.activations(B, T);
      model.recordForward(rec, acts, t.inputs);
      recordClassifierForward(rec, gpu, { logits: acts.output, targets: t.targets, logp, entropy, lse: t.lse }, { N, V }, { temperature });
    }
    const criticActs = models.critic?.activations(B, T);
    if (models.critic && criticActs) models.critic.recordForward(rec, criticActs, t.inputs);
    gpu.submit(rec);
    // One round trip for every array of the phase.
    const [oldLogp, entropy, refLogp, values] = (await gpu.readMany([
      t.logp,
      t.entropy,
      t.refLogp,
      ...(criticActs ? [criticActs.output] : []),
    ])) as Float32Array[];
    return { oldLogp, entropy, refLogp, ...(values ? { values } : {}) };
  }

  private buffers(B: number, T: number): ScoreTensors {
    const key = `${B}x${T}`;
    let t = this.tensors.get(key);
    if (!t) {
      const f = (name: string) => this.gpu.tensor([B, T], 'f32', `score.${name}[${key}]`);
      t = {
        inputs: this.gpu.tensor([B, T], 'u32', `score.inputs[${key}]`),
        targets: this.gpu.tensor([B, T], 'u32', `score.targets[${key}]`),
        logp: f('logp'),
        entropy: f('entropy'),
        refLogp: f('refLogp'),
        refEntropy: f('refEntropy'),
        lse: f('lse'),
      };
      this.tensors.set(key, t);
    }
    return t;
  }
}
