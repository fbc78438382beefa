// Offline training on a fixed log of labelled dialogues (span-log.ts), as the implicit-feedback
// source trains its policy on one round of its SFT policy's conversations (docs/algorithms/kto.md
// §5). Four methods, each a loss on the policy's log-probs ℓ of the log's assistant tokens:
//
//   span-kto     span-level KTO (the kernels' rl/kto span loss): each labelled turn is one
//                preference unit — good spans pushed up, bad ones down, against an EMA reference
//                point of the batch's span rewards r_k = Σ(ℓ − ℓ_ref) — and neutral turns kept as
//                language modelling. Spans are the log's turns (caller span ids), not polarity runs.
//   rw-sft       reward-weighted SFT, the source's baseline: −Σ w·ℓ / Σ w with one weight per label,
//                w_pos on good turns, w_neu on neutral ones, w_neg on bad ones (the source's best
//                w_pos 1.2, w_neu 1, w_neg 0.8; w_neg = 0 drops the rejected turns).
//   sft          plain SFT on the whole log, bad turns included: w = 1 everywhere.
//
// One step = one command encoder (forward, log-probs, the method's dL/dℓ, classifier backward, model
// backward, grad-norm, AdamW) and one readback. The reference log-probs are the frozen SFT policy's,
// scored once for the whole log. Leaves out: the source's online rounds (new logs from the updated
// policy), and KTO's mismatched-pair reference point (a decision with its reasons in docs/algorithms/kto.md §5).
//
// Shape legend:  B rows · T positions · N = B·T · V vocab · S spans

import { buildSpansFromIds, type Gpu, packSpans, recordClassifierBackward, recordClassifierForward, recordSpanKto, type Tensor } from '@horizon/kernels';
import type { Gpt } from '../model/gpt.ts';
import type { AdamW, OptimizerOptions } from '../model/optimizer.ts';
import { logRows, type SpanLog } from './span-log.ts';

export type OfflineSpanMethod =
  /** Span-level KTO: β, λ_w (good), λ_l (bad), EMA decay α of the reference point. */
  | { kind: 'span-kto'; beta: number; lambdaW: number; lambdaL: number; alpha: number }
  /** Reward-weighted SFT: good turns weigh `good`, neutral ones `neutral`, bad ones `bad` (each ≥ 0, not all 0). */
  | { kind: 'rw-sft'; weights: { good: number; neutral: number; bad: number } }
  /** SFT on every assistant token of the log. */
  | { kind: 'sft' };

/** The source's settings: β = 0.01 (stronger was unstable, weaker too weak), λ_l = 1; α, undisclosed, is ours (docs/algorithms/kto.md §5). */
export const SOURCE_SPAN_KTO: OfflineSpanMethod = { kind: 'span-kto', beta: 0.01, lambdaW: 1, lambdaL: 1, alpha: 0.9 };

export interface OfflineStepResult {
  /** The method's loss on the minibatch (nats; for span-kto L_pref + L_neutral). */
  loss: number;
  gradNorm: number;
  /** span-kto: the reference point after this step, the preference and neutral parts of the loss. */
  zRef?: number;
  prefLoss?: number;
  neutralLoss?: number;
}

/** Per-token weights of a weighted-SFT method: [N] w on the mask, 0 off it. */
export function sftWeights(method: Exclude<OfflineSpanMethod, { kind: 'span-kto' }>, rows: Pick<SpanLog, 'mask' | 'polarity'>): Float32Array {
  return Float32Array.from(rows.mask, (m, i) => {
    if (!m) return 0;
    if (method.kind === 'sft') return 1;
    const p = rows.polarity[i];
    const { good, neutral, bad } = method.weights;
    return p > 0 ? good : p < 0 ? bad : neutral;
  });
}

export function checkOfflineMethod(method: OfflineSpanMethod): void {
  const bad = (field: string, value: number, range: string) => new RangeError(`${method.kind}.${field} must be ${range}, got ${value}`);
  if (method.kind === 'rw-sft') {
    const { weights } = method;
    for (const label of ['good', 'neutral', 'bad'] as const)
      if (!(weights[label] >= 0 && Number.isFinite(weights[label]))) throw bad(`weights.${label}`, weights[label], 'a finite number ≥ 0');
    if (weights.good + weights.neutral + weights.bad === 0) throw new RangeError('rw-sft.weights are all 0: the method would train on nothing');
  }
  if (method.kind === 'span-kto') {
    for (const field of ['beta', 'lambdaW', 'lambdaL'] as const)
      if (!(method[field] >= 0 && Number.isFinite(method[field]))) throw bad(field, method[field], 'a finite number ≥ 0');
    if (!(method.alpha >= 0 && method.alpha <= 1)) throw bad('alpha', method.alpha, 'in [0, 1]');
  }
}

export class OfflineSpanTrainer {
  /** The reference point carried across steps (span-kto); 0 at the start, as the kernel's EMA starts. */
  zRef = 0;

  constructor(
    readonly gpu: Gpu,
    readonly policy: Gpt,
    readonly optimizer: AdamW,
    readonly log: SpanLog,
    readonly method: OfflineSpanMethod,
    /** [B, T] log π_ref of the log's targets (the frozen SFT policy), needed by span-kto. */
    readonly refLogp?: Float32Array,
  ) {
    checkOfflineMethod(method);
    if (method.kind === 'span-kto' && refLogp?.length !== log.B * log.T)
      throw new RangeError(`span-kto needs the reference log-probs of the whole log (${log.B * log.T} values), got ${refLogp?.length ?? 'none'}`);
  }

  /** One optimizer step on log rows `indices`. */
  async step(indices: readonly number[], options: OptimizerOptions): Promise<OfflineStepResult> {
    const { gpu, policy, method } = this;
    const rows = logRows(this.log, indices);
    const { B, T } = rows;
    const N = B * T;
    const V = policy.config.vocabSize;
    const owned: Tensor[] = [];
    const f = (n: number, name: string) => owned[owned.push(gpu.tensor([n], 'f32', `offline.${name}`)) - 1];
    const up = (data: Uint32Array | Int32Array | Float32Array, name: string) => owned[owned.push(gpu.upload(data, [data.length], `offline.${name}`)) - 1];
    try {
      const inputs = up(rows.inputs, 'inputs');
      const targets = up(rows.targets, 'targets');
      const logp = f(N, 'logp');
      const dlogp = f(N, 'dlogp');
      const lse = f(N, 'lse');
      const dlogits = owned[owned.push(gpu.tensor([N, V], 'f32', 'offline.dlogits')) - 1];
      const gradNorm = f(2, 'gradNorm');
      const acts = policy.activations(B, T);
      const rec = gpu.begin(`offline-${method.kind}`);
      policy.recordZeroGrad(rec);
      policy.recordForward(rec, acts, inputs);
      recordClassifierForward(rec, gpu, { logits: acts.output, targets, logp, entropy: f(N, 'entropy'), lse }, { N, V });
      let stats: Tensor | undefined;
      let weights: Float32Array | undefined;
      if (method.kind === 'span-kto') {
        const ref = this.refLogp ?? new Float32Array(0);
        const refRows = Float32Array.from({ length: N }, (_, i) => ref[indices[Math.floor(i / T)] * T + (i % T)]);
        const spans = buildSpansFromIds(rows.spanIds, rows.polarity, rows.mask, B, T);
        const S = spans.start.length;
        if (S === 0) throw new RangeError(`log rows ${indices.join(', ')} hold no assistant turn to train on`);
        stats = f(6, 'stats');
        recordSpanKto(
          rec,
          gpu,
          {
            logp,
            refLogp: up(refRows, 'refLogp'),
            spans: up(packSpans(spans), 'spans'),
            tokenSpan: up(spans.tokenSpan, 'tokenSpan'),
            spanSums: f(2 * S, 'spanSums'),
            zPrev: up(Float32Array.of(this.zRef), 'zPrev'),
            perSpan: f(S, 'perSpan'),
            stats,
            grad: dlogp,
          },
          { ...method, N, S },
        );
      } else {
        // L = −Σ w·ℓ / Σ w  ⇒  dL/dℓ = −w / Σ w (a minibatch without weight leaves the gradient zero).
        weights = sftWeights(method, rows);
        const total = weights.reduce((a, w) => a + w, 0);
        gpu.write(
          dlogp,
          weights.map((w) => (total > 0 ? -w / total : 0)),
        );
      }
      recordClassifierBackward(rec, gpu, { logits: acts.output, targets, lse, dlogp, dlogits }, { N, V });
      policy.recordBackward(rec, acts, inputs, dlogits);
      this.optimizer.recordStep(rec, options);
      rec.copy(this.optimizer.clip, gradNorm, 2);
      gpu.submit(rec);
      // The span loss reads back its stats; a weighted-SFT loss is computed here from the log-probs.
      const [norm, read] = (await gpu.readMany([gradNorm, stats ?? logp])) as Float32Array[];
      if (!weights) {
        this.zRef = read[3];
        return { loss: read[0], prefLoss: read[1], neutralLoss: read[2], zRef: read[3], gradNorm: norm[0] };
      }
      const total = weights.reduce((a, w) => a + w, 0);
      let loss = 0;
      for (let i = 0; i < N; i++) if (total > 0) loss -= (weights[i] * read[i]) / total;
      return { loss, gradNorm: norm[0] };
    } finally {
      for (const t of owned) gpu.destroy(t);
    }
  }
}
