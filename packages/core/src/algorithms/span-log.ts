// A fixed log of dialogues for offline span-level training, as the implicit-feedback source trains:
// the SFT policy talks to users once, their reactions label its answers, and every method then
// learns from that same log (docs/algorithms/kto.md §2, §5). Each row is one dialogue as it was
// sampled; each assistant turn is one span with its verifier label (verifier.ts `SpanLabel`), and
// the span id is the turn, so two adjacent answers with the same label stay two preference units.
//
// Row layout, as every training row here (train/rows.ts): position t predicts token t+1, so the
// mask, the polarity and the span id at t describe token t+1. The polarity is +1 good, −1 bad, 0
// neutral; an unlabelled turn is neutral (kept as language modelling).
//
// Shape legend:  B rows · T positions

import type { Sample } from '../envs/sample.ts';
import { checkSpanLabels, type SpanLabel } from '../envs/verifier.ts';
import { trainingLength } from '../train/rows.ts';

export interface SpanLog {
  B: number;
  T: number;
  inputs: Uint32Array; // [B, T]
  targets: Uint32Array; // [B, T]
  /** [B, T] 1 where the target is the policy's own token. */
  mask: Uint32Array;
  /** [B, T] +1 good, −1 bad, 0 neutral, on the mask; 0 off it. */
  polarity: Int32Array;
  /** [B, T] the target's assistant turn (its span id), −1 off the mask. */
  spanIds: Int32Array;
}

export const POLARITY = { good: 1, bad: -1, neutral: 0 } as const;

/**
 * The log of `samples` (each a whole dialogue) with `labels[b]` the span labels of sample b.
 * Padding is `padId`; the length is the longest row, rounded as training rows are.
 */
export function spanLog(samples: readonly Sample[], labels: readonly (readonly SpanLabel[])[], padId: number, contextLength: number): SpanLog {
  if (samples.length === 0) throw new RangeError('a span log needs at least one dialogue');
  if (labels.length !== samples.length)
    throw new RangeError(`a span log needs one list of span labels per dialogue: ${samples.length} dialogues, ${labels.length} lists`);
  const B = samples.length;
  const T = trainingLength(Math.max(...samples.map((s) => s.tokens.length)), contextLength);
  const log: SpanLog = {
    B,
    T,
    inputs: new Uint32Array(B * T).fill(padId),
    targets: new Uint32Array(B * T).fill(padId),
    mask: new Uint32Array(B * T),
    polarity: new Int32Array(B * T),
    spanIds: new Int32Array(B * T).fill(-1),
  };
  samples.forEach((s, b) => {
    if (s.tokens.length - 1 > T) throw new RangeError(`dialogue ${b} has ${s.tokens.length} tokens, more than the context length ${contextLength}`);
    checkSpanLabels(labels[b], s.turns.length, `of dialogue ${b}`);
    const label = new Map(labels[b].map((l) => [l.turn, POLARITY[l.label]]));
    const turnOf = actionTurns(s);
    for (let t = 0; t + 1 < s.tokens.length; t++) {
      const i = b * T + t;
      log.inputs[i] = s.tokens[t];
      log.targets[i] = s.tokens[t + 1];
      const turn = turnOf[t + 1];
      if (turn < 0) continue;
      log.mask[i] = 1;
      log.spanIds[i] = turn;
      log.polarity[i] = label.get(turn) ?? 0;
    }
  });
  return log;
}

/** [L] the assistant turn of each of a sample's tokens (runs of action tokens, counted from 0), −1 elsewhere. */
function actionTurns(s: Sample): Int32Array {
  const turn = new Int32Array(s.tokens.length).fill(-1);
  let k = -1;
  for (let t = 0; t < s.tokens.length; t++) {
    if (!s.actionMask[t]) continue;
    if (t === 0 || !s.actionMask[t - 1]) k++;
    turn[t] = k;
  }
  if (k + 1 !== s.turns.length)
    throw new RangeError(`rollout ${s.rolloutId} has ${k + 1} runs of action tokens but ${s.turns.length} turns; each turn's action must be one run of tokens`);
  return turn;
}

/** Rows `indices` of a log, in that order. */
export function logRows(log: SpanLog, indices: readonly number[]): SpanLog {
  const { T } = log;
  const pick = <A extends Uint32Array | Int32Array>(a: A, make: (n: number) => A): A => {
    const out = make(indices.length * T);
    indices.forEach((row, i) => {
      out.set(a.subarray(row * T, (row + 1) * T), i * T);
    });
    return out;
  };
  const u = (n: number) => new Uint32Array(n);
  const s = (n: number) => new Int32Array(n);
  return {
    B: indices.length,
    T,
    inputs: pick(log.inputs, u),
    targets: pick(log.targets, u),
    mask: pick(log.mask, u),
    polarity: pick(log.polarity, s),
    spanIds: pick(log.spanIds, s),
  };
}
