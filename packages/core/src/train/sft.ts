// The supervised warm start: next-token cross-entropy on the completion (and <eos>) of task examples,
// the prompt masked out. One step = one command encoder (forward, log-probs, the masked mean loss
// by the aggregate kernel, backward, grad-norm, AdamW) and one small readback of [loss, grad norm].
// A multi-turn example (a tool-using episode) trains only on the policy's action tokens.
//
// Shape legend:  B examples · T positions · N = B·T · V vocab

import {
  actionCounts,
  type Gpu,
  lossScales,
  partialsSize,
  recordAggregate,
  recordClassifierBackward,
  recordClassifierForward,
  type Tensor,
} from '@horizon/kernels';
import type { SftExample, SftTurn } from '../envs/environment.ts';
import { encodeEnvText, type TokenCodec } from '../envs/episode.ts';
import type { Gpt } from '../model/gpt.ts';
import type { AdamW, OptimizerOptions } from '../model/optimizer.ts';
import { trainingLength } from './rows.ts';

export interface SftBatch {
  B: number;
  T: number;
  inputs: Uint32Array; // [B, T]
  targets: Uint32Array; // [B, T]
  mask: Uint32Array; // [B, T] 1 on completion and <eos> targets
  /**
   * [B] a weight per row of the cross-entropy (1 when absent): −Σ w_b·s_b·Σ_t m·log p is REINFORCE's
   * surrogate with w the row's advantage (GenAC's critic, algorithms/genac/critic-targets.ts).
   */
  rowWeights?: Float32Array;
}

/**
 * Encodes examples for next-token training. A single-turn example is prompt + completion + <eos>,
 * trained from the completion on. A multi-turn example (`turns`) trains only on its actions' tokens
 * (and the <eos> ending one): environment text is encoded as the episode runner encodes it
 * (`encodeEnvText`: specials off, its `{ special }` markup as special ids), the actions with specials on.
 */
export function sftBatch(examples: readonly SftExample[], codec: SftCodec, eosId: number, padId: number, contextLength: number): SftBatch {
  const sequences = examples.map((e) => {
    const { full, trains } = e.turns ? multiTurnTokens(e.turns, codec, eosId) : singleTurnTokens(e, codec, eosId);
    if (full.length > contextLength)
      throw new RangeError(`an SFT example of ${full.length} tokens does not fit the context length ${contextLength}: "${e.prompt}${e.completion}"`);
    return { full, trains };
  });
  const B = examples.length;
  const T = trainingLength(Math.max(...sequences.map((s) => s.full.length)), contextLength);
  const batch: SftBatch = { B, T, inputs: new Uint32Array(B * T).fill(padId), targets: new Uint32Array(B * T).fill(padId), mask: new Uint32Array(B * T) };
  sequences.forEach(({ full, trains }, b) => {
    for (let t = 0; t + 1 < full.length; t++) {
      batch.inputs[b * T + t] = full[t];
      batch.targets[b * T + t] = full[t + 1];
      batch.mask[b * T + t] = trains(t + 1) ? 1 : 0;
    }
  });
  return batch;
}

/** What sftBatch encodes with: a tokenizer (CharTokenizer is one) that can turn special-token parsing off. */
export type SftCodec = Pick<TokenCodec, 'encode' | 'id'>;

/** Token ids and which of them train (by position). */
export interface ExampleTokens {
  full: number[];
  trains: (position: number) => boolean;
}

function singleTurnTokens(e: SftExample, codec: SftCodec, eosId: number): ExampleTokens {
  const prompt = codec.encode(e.prompt);
  return { full: [...prompt, ...codec.encode(e.completion), eosId], trains: (position) => position >= prompt.length };
}

/** A multi-turn example's ids as sftBatch encodes them, and which positions train (its actions). */
export function multiTurnTokens(turns: readonly SftTurn[], codec: SftCodec, eosId: number): ExampleTokens {
  const full: number[] = [];
  const action: boolean[] = [];
  const push = (ids: readonly number[], trains: boolean) => {
    for (const id of ids) {
      full.push(id);
      action.push(trains);
    }
  };
  for (const turn of turns) {
    if (turn.kind === 'action') {
      push(codec.encode(turn.text), true);
      if (turn.ending === 'eos') push([eosId], true);
    } else push(encodeEnvText(turn.text, codec), false);
  }
  return { full, trains: (position) => action[position] };
}

interface SftTensors {
  inputs: Tensor; // [B, T] u32
  targets: Tensor; // [B, T] u32
  mask: Tensor; // [B, T] u32
  scales: Tensor; // [B]
  dlogp: Tensor; // [B, T]
  logp: Tensor; // [B, T]
  entropy: Tensor; // [B, T]
  lse: Tensor; // [B, T]
  dlogits: Tensor; // [N, V]
  partials: Tensor;
  metrics: Tensor; // [0] = mean log-prob of masked targets; [64..65] = grad norm, clip scale
  gradNorm: Tensor; // view of metrics at 64
}

export class SftStepper {
  private readonly tensors = new Map<string, SftTensors>();

  constructor(
    readonly gpu: Gpu,
    readonly model: Gpt,
    readonly optimizer: AdamW,
  ) {}

  /** Releases the step buffers (the model and optimizer stay). */
  destroy(): void {
    for (const t of this.tensors.values()) for (const tensor of Object.values(t)) this.gpu.destroy(tensor);
    this.tensors.clear();
  }

  /** One optimizer step; returns the batch's mean cross-entropy (nats/token; weighted by `rowWeights` if given) and the gradient norm. */
  async step(batch: SftBatch, options: OptimizerOptions): Promise<{ loss: number; gradNorm: number }> {
    const { gpu, model } = this;
    const { B, T } = batch;
    const N = B * T;
    const V = model.config.vocabSize;
    const t = this.buffers(B, T, V);
    const tokenMean = lossScales(actionCounts(batch.mask, B, T), { mode: 'token-mean' });
    const weights = batch.rowWeights;
    const scales = weights ? tokenMean.map((s, b) => s * weights[b]) : tokenMean;
    gpu.write(t.inputs, batch.inputs);
    gpu.write(t.targets, batch.targets);
    gpu.write(t.mask, batch.mask);
    gpu.write(t.scales, scales);
    // loss = −Σ m·scale·logp  ⇒  dloss/dlogp = −m·scale.
    gpu.write(
      t.dlogp,
      Float32Array.from(batch.mask, (m, i) => -m * scales[Math.floor(i / T)]),
    );
    const acts = model.activations(B, T);
    const rec = gpu.begin('sft-step');
    model.recordZeroGrad(rec);
    model.recordForward(rec, acts, t.inputs);
    recordClassifierForward(rec, gpu, { logits: acts.output, targets: t.targets, logp: t.logp, entropy: t.entropy, lse: t.lse }, { N, V });
    recordAggregate(rec, gpu, { values: t.logp, mask: t.mask, scales: t.scales, partials: t.partials, out: t.metrics }, { B, T, offset: 0 });
    recordClassifierBackward(rec, gpu, { logits: acts.output, targets: t.targets, lse: t.lse, dlogp: t.dlogp, dlogits: t.dlogits }, { N, V });
    model.recordBackward(rec, acts, t.inputs, t.dlogits);
    this.optimizer.recordStep(rec, options);
    rec.copy(this.optimizer.clip, t.gradNorm, 2);
    gpu.submit(rec);
    const m = await gpu.read(t.metrics);
    return { loss: -m[0], gradNorm: m[64] };
  }

  private buffers(B: number, T: number, V: number): SftTensors {
    const key = `${B}x${T}`;
    let t = this.tensors.get(key);
    if (!t) {
      const { gpu } = this;
      const f = (shape: number[], name: string) => gpu.tensor(shape, 'f32', `sft.${name}[${key}]`);
      const u = (name: string) => gpu.tensor([B, T], 'u32', `sft.${name}[${key}]`);
      const metrics = f([66], 'metrics');
      t = {
        inputs: u('inputs'),
        targets: u('targets'),
        mask: u('mask'),
        scales: f([B], 'scales'),
        dlogp: f([B, T], 'dlogp'),
        logp: f([B, T], 'logp'),
        entropy: f([B, T], 'entropy'),
        lse: f([B, T], 'lse'),
        dlogits: f([B * T, V], 'dlogits'),
        partials: f([partialsSize(gpu, B * T, 1)], 'partials'),
        metrics,
        gradNorm: gpu.view(metrics, 64, [2], `sft.gradNorm[${key}]`),
      };
      this.tensors.set(key, t);
    }
    return t;
  }
}
