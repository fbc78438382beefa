// Scoring a batch of rollouts before the update: log π_old under the policy, log π_ref under the
// frozen reference, and the scores the method asks for (V under the critic, log π_teacher under each
// row's routed teacher) — one submit for the work and one for the readback of every array (they are
// [B, T] floats: a few KB for the batches Horizon trains on). The passes write into the batch's GPU
// tensors (train/batch-tensors.ts), which also receive the rows' tokens, mask and log π_roll here,
// once: the advantages and every minibatch read them there. The classifier also writes each
// position's entropy; nothing reads π_old's entropy at scoring (the update step measures the
// policy's own, policy/entropy), so it stays on the GPU in a scratch tensor. Each distinct teacher
// scores the whole batch and each row keeps its own teacher's log-probs: simple, at one forward per
// teacher.
//
// Shape legend:  B rows · T positions · N = B·T · V vocab

import { type Gpu, type Recorder, recordClassifierForward, type Tensor } from '@horizon/kernels';
import type { ScoreName } from '../algorithms/algorithm.ts';
import type { Gpt } from '../model/gpt.ts';
import { ShapeCache } from '../util/shape-cache.ts';
import { BatchTensors } from './batch-tensors.ts';
import { mismatchedRows } from './mismatched-rows.ts';
import type { TrainingRows } from './rows.ts';

export interface Scores {
  oldLogp: Float32Array; // [B, T] log π_old of every target
  refLogp: Float32Array; // [B, T] log π_ref of every target
  /** [B, T] critic values; present when the method asks for the `values` score. */
  values?: Float32Array;
  /** Row b's prompt with row b+1's completion (mismatched-rows.ts), under the policy and the reference; for the `mismatched` score. */
  mismatched?: { logp: Float32Array; refLogp: Float32Array; mask: Uint32Array };
  /** [B, T] log π_teacher of every target under the row's teacher; present for the `teacherLogp` score. */
  teacherLogp?: Float32Array;
  /**
   * [B, T] log π of every target under the policy with its rollout's skill injected (OPID,
   * algorithms/opid/skill-delta.ts); equal to oldLogp where no skill was scored. For the `skillLogp` score.
   */
  skillLogp?: Float32Array;
  /** [B, T] 1 where skillLogp was scored with a skill (present with it). */
  skillScored?: Uint8Array;
}

/** The declared model the critic's score is read from (the mismatched pairs use policy and reference; teachers come per row). */
const SCORED_BY = { values: 'critic' } as const;

/** The mismatched pairs' tensors (KTO's reference point), which only the host reads. */
interface PairTensors {
  inputs: Tensor; // [B, T] u32
  targets: Tensor; // [B, T] u32
  logp: Tensor; // [B, T]
  refLogp: Tensor; // [B, T]
}

/** Contexts other than the batch's rows (OPID's skill-injected views): their own tensors, so the batch's stay intact. */
interface ContextTensors {
  inputs: Tensor; // [B, T] u32
  targets: Tensor; // [B, T] u32
  logp: Tensor; // [B, T]
}

/** The classifier's outputs nothing reads after scoring. */
interface Scratch {
  entropy: Tensor; // [B, T]
  lse: Tensor; // [B, T]
}

export class Scorer {
  private readonly destroyAll = (t: object) => {
    for (const tensor of Object.values(t)) this.gpu.destroy(tensor as Tensor);
  };
  private readonly batches = new ShapeCache<BatchTensors>((batch) => batch.destroy());
  private readonly pairs = new ShapeCache<PairTensors>(this.destroyAll);
  private readonly scratches = new ShapeCache<Scratch>(this.destroyAll);
  private readonly teacherLogps = new ShapeCache<Tensor>((t) => this.gpu.destroy(t));
  private readonly contexts = new ShapeCache<ContextTensors>(this.destroyAll);
  private readonly contextValueTensors = new ShapeCache<{ inputs: Tensor; values: Tensor }>(this.destroyAll);

  constructor(readonly gpu: Gpu) {}

  /** Releases the scoring buffers, the batches' included. */
  destroy(): void {
    for (const cache of [this.batches, this.pairs, this.scratches, this.teacherLogps, this.contexts, this.contextValueTensors]) cache.clear();
  }

  /** Releases the buffers of shapes not used since the last sweep (util/shape-cache.ts); call between iterations. */
  sweep(): void {
    for (const cache of [this.batches, this.pairs, this.scratches, this.teacherLogps, this.contexts, this.contextValueTensors]) cache.sweep();
  }

  /** The GPU tensors of batches of this shape: after `score`, they hold that batch (batch-tensors.ts). */
  batch(B: number, T: number): BatchTensors {
    return this.batches.get(`${B}x${T}`, () => new BatchTensors(this.gpu, B, T));
  }

  /** `rowTeachers[b]`: the teacher that scores row b, needed for the `teacherLogp` score. */
  async score(
    rows: TrainingRows,
    models: ReadonlyMap<string, Gpt>,
    extra: readonly ScoreName[],
    temperature: number,
    rowTeachers?: readonly Gpt[],
  ): Promise<Scores> {
    const named = (name: string): Gpt => {
      const found = models.get(name);
      if (!found) throw new RangeError(`scoring needs a model named "${name}", which the method does not declare`);
      return found;
    };
    const policy = named('policy');
    const critic = extra.includes('values') ? named(SCORED_BY.values) : undefined;
    const { gpu } = this;
    const { B, T } = rows;
    const N = B * T;
    const t = this.batch(B, T);
    gpu.write(t.inputs, rows.inputs);
    gpu.write(t.targets, rows.targets);
    gpu.write(t.mask, rows.actionMask);
    gpu.write(t.rolloutLogp, rows.rolloutLogp);
    const logpOf = (rec: Recorder, model: Gpt, inputs: Tensor, targets: Tensor, logp: Tensor) =>
      this.recordLogp(rec, model, { B, T, inputs, targets, logp }, temperature);
    const rec = gpu.begin('score');
    for (const [model, logp] of [
      [policy, t.oldLogp],
      [named('reference'), t.refLogp],
    ] as const) {
      logpOf(rec, model, t.inputs, t.targets, logp);
    }
    if (critic) {
      // Copied out: the critic's activations of this shape are reused by its own update steps.
      const acts = critic.activations(B, T);
      critic.recordForward(rec, acts, t.inputs);
      rec.copy(acts.output, t.values, N);
    }
    // The same two models on the mismatched pairs, in the same submit.
    const pairs = extra.includes('mismatched') ? mismatchedRows(rows) : undefined;
    const m = pairs ? this.pairTensors(B, T) : undefined;
    if (pairs && m) {
      gpu.write(m.inputs, pairs.inputs);
      gpu.write(m.targets, pairs.targets);
      for (const [model, logp] of [
        [policy, m.logp],
        [named('reference'), m.refLogp],
      ] as const) {
        logpOf(rec, model, m.inputs, m.targets, logp);
      }
    }
    const teachers = extra.includes('teacherLogp') ? this.teacherTensors(rows, rowTeachers) : [];
    for (const { model, logp } of teachers) {
      logpOf(rec, model, t.inputs, t.targets, logp);
    }
    gpu.submit(rec);
    // One round trip for every array of the phase.
    const [oldLogp, refLogp, ...rest] = (await gpu.readMany([
      t.oldLogp,
      t.refLogp,
      ...(critic ? [t.values] : []),
      ...(m ? [m.logp, m.refLogp] : []),
      ...teachers.map((teacher) => teacher.logp),
    ])) as Float32Array[];
    const values = critic ? rest.shift() : undefined;
    const mismatched = pairs ? { logp: rest[0], refLogp: rest[1], mask: pairs.mask } : undefined;
    const teacherRows = rest.slice(pairs ? 2 : 0);
    const teacherLogp = rowTeachers && teachers.length > 0 ? pickRows(teacherRows, teachers, rowTeachers, T) : undefined;
    if (teacherLogp) gpu.write(t.teacherLogp, teacherLogp);
    return {
      oldLogp,
      refLogp,
      ...(values ? { values } : {}),
      ...(mismatched ? { mismatched } : {}),
      ...(teacherLogp ? { teacherLogp } : {}),
    };
  }

  /**
   * log π of every target of `B` contexts other than the batch's rows under one model, by the pass a
   * teacher scores with (forward, then the classifier at `temperature`): OPID scores the policy, as
   * its own teacher, on its rollouts with skill text injected (algorithms/opid/skill-delta.ts).
   */
  async contextLogp(model: Gpt, contexts: { B: number; T: number; inputs: Uint32Array; targets: Uint32Array }, temperature: number): Promise<Float32Array> {
    const { gpu } = this;
    const { B, T } = contexts;
    const key = `${B}x${T}`;
    const c = this.contexts.get(key, () => ({
      inputs: gpu.tensor([B, T], 'u32', `score.context.inputs[${key}]`),
      targets: gpu.tensor([B, T], 'u32', `score.context.targets[${key}]`),
      logp: gpu.tensor([B, T], 'f32', `score.context.logp[${key}]`),
    }));
    gpu.write(c.inputs, contexts.inputs);
    gpu.write(c.targets, contexts.targets);
    const rec = gpu.begin('score.contexts');
    this.recordLogp(rec, model, { B, T, inputs: c.inputs, targets: c.targets, logp: c.logp }, temperature);
    gpu.submit(rec);
    const [logp] = (await gpu.readMany([c.logp])) as Float32Array[];
    return logp;
  }

  /**
   * A critic's value head on `B` contexts other than the batch's rows: V at every position, the
   * forward `score` runs for the `values` score (position t is the value of the state after input
   * t). The GenAC lab reads PPO's value at a cut of a rollout with it.
   */
  async contextValues(critic: Gpt, contexts: { B: number; T: number; inputs: Uint32Array }): Promise<Float32Array> {
    if (critic.config.head !== 'value') throw new RangeError(`contextValues reads a value head, and model "${critic.label}" has a ${critic.config.head} head`);
    const { gpu } = this;
    const { B, T } = contexts;
    const key = `${B}x${T}`;
    const c = this.contextValueTensors.get(key, () => ({
      inputs: gpu.tensor([B, T], 'u32', `score.contextValues.inputs[${key}]`),
      values: gpu.tensor([B, T], 'f32', `score.contextValues.values[${key}]`),
    }));
    gpu.write(c.inputs, contexts.inputs);
    const rec = gpu.begin('score.contextValues');
    const acts = critic.activations(B, T);
    critic.recordForward(rec, acts, c.inputs);
    rec.copy(acts.output, c.values, B * T);
    gpu.submit(rec);
    const [values] = (await gpu.readMany([c.values])) as Float32Array[];
    return values;
  }

  /** One log-prob tensor per distinct teacher of the batch, in order of first use. */
  private teacherTensors(rows: TrainingRows, rowTeachers: readonly Gpt[] | undefined): { model: Gpt; logp: Tensor }[] {
    if (!rowTeachers || rowTeachers.length !== rows.B)
      throw new RangeError(`the teacherLogp score needs one teacher per row (${rows.B}), got ${rowTeachers?.length ?? 'none'}`);
    const distinct = [...new Set(rowTeachers)];
    return distinct.map((model, k) => ({ model, logp: this.teacherLogpTensor(rows.B, rows.T, k) }));
  }

  private teacherLogpTensor(B: number, T: number, k: number): Tensor {
    return this.teacherLogps.get(`teacher${k}.${B}x${T}`, () => this.gpu.tensor([B, T], 'f32', `score.teacherLogp${k}[${B}x${T}]`));
  }

  private pairTensors(B: number, T: number): PairTensors {
    const key = `${B}x${T}`;
    return this.pairs.get(key, () => {
      const f = (name: string) => this.gpu.tensor([B, T], 'f32', `score.mismatched.${name}[${key}]`);
      return {
        inputs: this.gpu.tensor([B, T], 'u32', `score.mismatched.inputs[${key}]`),
        targets: this.gpu.tensor([B, T], 'u32', `score.mismatched.targets[${key}]`),
        logp: f('logp'),
        refLogp: f('refLogp'),
      };
    });
  }

  /** Records `model`'s forward on `inputs` and the log-prob of each target at `temperature` into `logp`: every scoring pass's unit. */
  private recordLogp(rec: Recorder, model: Gpt, t: { B: number; T: number; inputs: Tensor; targets: Tensor; logp: Tensor }, temperature: number): void {
    const acts = model.activations(t.B, t.T);
    model.recordForward(rec, acts, t.inputs);
    recordClassifierForward(
      rec,
      this.gpu,
      { logits: acts.output, targets: t.targets, logp: t.logp, ...this.scratch(t.B, t.T) },
      { N: t.B * t.T, V: model.config.vocabSize },
      { temperature },
    );
  }

  private scratch(B: number, T: number): Scratch {
    const key = `${B}x${T}`;
    return this.scratches.get(key, () => ({
      entropy: this.gpu.tensor([B, T], 'f32', `score.entropy[${key}]`),
      lse: this.gpu.tensor([B, T], 'f32', `score.lse[${key}]`),
    }));
  }
}

/** Row b of the result is row b of its own teacher's log-probs. */
function pickRows(perTeacher: Float32Array[], teachers: readonly { model: Gpt }[], rowTeachers: readonly Gpt[], T: number): Float32Array {
  const out = new Float32Array(rowTeachers.length * T); // [B, T]
  for (const [b, model] of rowTeachers.entries()) {
    const k = teachers.findIndex((teacher) => teacher.model === model);
    out.set(perTeacher[k].subarray(b * T, (b + 1) * T), b * T);
  }
  return out;
}
