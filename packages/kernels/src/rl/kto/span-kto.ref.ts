// Span-level KTO (docs/algorithms/kto.md §2, Verification Horizon eqs. 4–9 as quoted [S]): host-side span
// building and the float64 reference.
//
//   spans S_k: maximal runs of consecutive assistant tokens (mask = 1) of equal polarity in one row
//              (+1 positive, −1 negative, 0 neutral); a non-assistant token ends a span
//   r_k      = Σ_{t∈S_k} (ℓ_t − ℓ_ref,t)
//   z_ref    ← α·z_ref + (1 − α)·mean_k r_k          (EMA over ALL spans of the batch, stop-gradient;
//                                                   α is not disclosed [U]; unchanged with no spans)
//   a_k      = r_k − z_ref (the updated z_ref)
//   ℓ(S_k)   = −λ_w σ(β a_k) if positive,  −λ_l σ(−β a_k) if negative
//   L_pref   = mean over non-neutral spans of ℓ(S_k)   (0 without any)
//   L_neutral= −mean over neutral tokens of ℓ_t        (0 without any)
//   L        = L_pref + L_neutral
//   dL/dℓ_t  = dL_pref/dr_k for t in a non-neutral span k,  −1/N_neutral for neutral tokens, else 0.
// Shapes: logp, refLogp, polarity, mask [B, T]; spans [S].

import { checkMask, checkSizes } from '../../util/checks.ts';
import { logistic } from './kto.ref.ts';

export interface SpanKtoParams {
  /** β (the source used 0.01: stronger was unstable, weaker too weak). */
  beta: number;
  /** λ_w, weight of positive spans. */
  lambdaW: number;
  /** λ_l, weight of negative spans (1.0 in the source). */
  lambdaL: number;
  /** EMA decay α ∈ [0, 1] of the reference point. */
  alpha: number;
  /** The reference point carried from the previous step (0 at the start). */
  zRef: number;
}

export interface Spans {
  /** [S] flat index of each span's first token. */
  start: Uint32Array;
  /** [S] flat index one past each span's last token. */
  end: Uint32Array;
  /** [S] −1, 0 or +1. */
  polarity: Int32Array;
  /** [B, T] span of each token, −1 outside every span. */
  tokenSpan: Int32Array;
}

/** Spans from per-token polarity (−1/0/+1) and the assistant-token mask. */
export function buildSpans(polarity: ArrayLike<number>, mask: ArrayLike<number>, B: number, T: number): Spans {
  checkSizes('buildSpans', { B, T });
  checkMask('buildSpans', 'mask', mask, B * T);
  if (polarity.length !== B * T) throw new RangeError(`buildSpans: polarity holds ${polarity.length} values, expected ${B * T}`);
  const start: number[] = [];
  const end: number[] = [];
  const pol: number[] = [];
  const tokenSpan = new Int32Array(B * T).fill(-1);
  for (let b = 0; b < B; b++) {
    let open = -1;
    for (let t = 0; t < T; t++) {
      const i = b * T + t;
      if (mask[i] !== 1) {
        open = -1;
        continue;
      }
      const p = polarity[i];
      if (p !== -1 && p !== 0 && p !== 1) throw new RangeError(`buildSpans: polarity[${i}] is ${p}; it must be −1, 0 or +1`);
      if (open < 0 || pol[open] !== p) {
        open = start.length;
        start.push(i);
        end.push(i + 1);
        pol.push(p);
      } else end[open] = i + 1;
      tokenSpan[i] = open;
    }
  }
  return { start: Uint32Array.from(start), end: Uint32Array.from(end), polarity: Int32Array.from(pol), tokenSpan };
}

/**
 * Spans named by the caller: `spanIds` [B, T] gives each assistant token (mask = 1) its span's id
 * (≥ 0; ids are per row), so two adjacent answers of the same polarity stay two preference units
 * instead of merging as `buildSpans` would merge them (docs/algorithms/kto.md §2: the source makes
 * each labelled turn one span). A span must be one contiguous run of assistant tokens with one
 * polarity; tokens off the mask belong to no span whatever their id.
 */
export function buildSpansFromIds(spanIds: ArrayLike<number>, polarity: ArrayLike<number>, mask: ArrayLike<number>, B: number, T: number): Spans {
  checkSizes('buildSpansFromIds', { B, T });
  checkMask('buildSpansFromIds', 'mask', mask, B * T);
  for (const [name, a] of [
    ['polarity', polarity],
    ['spanIds', spanIds],
  ] as const)
    if (a.length !== B * T) throw new RangeError(`buildSpansFromIds: ${name} holds ${a.length} values, expected ${B * T}`);
  const start: number[] = [];
  const end: number[] = [];
  const pol: number[] = [];
  const tokenSpan = new Int32Array(B * T).fill(-1);
  for (let b = 0; b < B; b++) {
    const seen = new Set<number>();
    let open = -1;
    let openId = -1;
    for (let t = 0; t < T; t++) {
      const i = b * T + t;
      if (mask[i] !== 1) {
        open = -1;
        continue;
      }
      const id = spanIds[i];
      const p = polarity[i];
      if (!Number.isInteger(id) || id < 0) throw new RangeError(`buildSpansFromIds: spanIds[${i}] is ${id}; an assistant token needs a span id ≥ 0`);
      if (p !== -1 && p !== 0 && p !== 1) throw new RangeError(`buildSpansFromIds: polarity[${i}] is ${p}; it must be −1, 0 or +1`);
      if (open >= 0 && id === openId) {
        if (pol[open] !== p) throw new RangeError(`buildSpansFromIds: span ${id} of row ${b} mixes polarities ${pol[open]} and ${p}; a span has one label`);
        end[open] = i + 1;
      } else {
        if (seen.has(id)) throw new RangeError(`buildSpansFromIds: span ${id} of row ${b} is split by other tokens; a span must be one contiguous run`);
        seen.add(id);
        open = start.length;
        openId = id;
        start.push(i);
        end.push(i + 1);
        pol.push(p);
      }
      tokenSpan[i] = open;
    }
  }
  return { start: Uint32Array.from(start), end: Uint32Array.from(end), polarity: Int32Array.from(pol), tokenSpan };
}

export function spanKtoRef(inputs: { logp: ArrayLike<number>; refLogp: ArrayLike<number> }, spans: Spans, params: SpanKtoParams, N: number) {
  const S = spans.start.length;
  const spanRewards = new Float64Array(S);
  let mean = 0;
  for (let k = 0; k < S; k++) {
    for (let i = spans.start[k]; i < spans.end[k]; i++) spanRewards[k] += inputs.logp[i] - inputs.refLogp[i];
    mean += spanRewards[k] / S;
  }
  const zRef = S > 0 ? params.alpha * params.zRef + (1 - params.alpha) * mean : params.zRef;
  const pref = Array.from({ length: S }, (_, k) => k).filter((k) => spans.polarity[k] !== 0);
  const neutral = Array.from({ length: S }, (_, k) => k).filter((k) => spans.polarity[k] === 0);
  const nNeutral = neutral.reduce((a, k) => a + spans.end[k] - spans.start[k], 0);
  const spanGrad = new Float64Array(S);
  let prefLoss = 0;
  for (const k of pref) {
    const a = spanRewards[k] - zRef;
    if (spans.polarity[k] > 0) {
      const s = logistic(params.beta * a);
      prefLoss += (-params.lambdaW * s) / pref.length;
      spanGrad[k] = (-params.lambdaW * params.beta * s * (1 - s)) / pref.length;
    } else {
      const s = logistic(-params.beta * a);
      prefLoss += (-params.lambdaL * s) / pref.length;
      spanGrad[k] = (params.lambdaL * params.beta * s * (1 - s)) / pref.length;
    }
  }
  let neutralLoss = 0;
  for (const k of neutral) {
    for (let i = spans.start[k]; i < spans.end[k]; i++) neutralLoss -= inputs.logp[i] / nNeutral;
    spanGrad[k] = -1 / nNeutral;
  }
  const grad = new Float64Array(N);
  for (let i = 0; i < N; i++) if (spans.tokenSpan[i] >= 0) grad[i] = spanGrad[spans.tokenSpan[i]];
  return { loss: prefLoss + neutralLoss, prefLoss, neutralLoss, zRef, spanRewards, grad };
}
