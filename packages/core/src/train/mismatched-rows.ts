// Mismatched pairs for KTO's reference point (docs/algorithms/kto.md §1): row b of the result is
// row b's prompt followed by the completion of row pair[b] = (b + 1) mod B, TRL's +1 rotation
// (kernels/src/rl/kto `ktoMismatchedPairs`: never a row with itself). Scoring these under the policy
// and the reference gives KL_b = Σ_t m'(ℓ' − ℓ'_ref), whose clamped mean is z0.
//
// From training rows (rows.ts): a row's prompt is its tokens up to the first action token, its
// completion runs from the first to the last action token, keeping the action mask inside it (an
// observation between actions stays context). A pair longer than the T positions is cut at T, as the
// context limit cuts a rollout. Positions past the pair hold token 0 with mask 0: attention is causal,
// so they change nothing before them, and id 0 exists in every vocabulary.
//
// Shape legend:  B rows · T training positions

import { ktoMismatchedPairs } from '@horizon/kernels';
import type { TrainingRows } from './rows.ts';

export interface MismatchedRows {
  inputs: Uint32Array; // [B, T]
  targets: Uint32Array; // [B, T]
  mask: Uint32Array; // [B, T] 1 = targets[t] is a token of the other row's completion that the policy sampled
}

/** Positions of a row's first and last action target, or undefined when it has none. */
function actionSpan(rows: TrainingRows, b: number): { first: number; last: number } | undefined {
  const { T, actionMask } = rows;
  let first = -1;
  let last = -1;
  for (let t = 0; t < T; t++) {
    if (!actionMask[b * T + t]) continue;
    if (first < 0) first = t;
    last = t;
  }
  return first < 0 ? undefined : { first, last };
}

export function mismatchedRows(rows: TrainingRows): MismatchedRows {
  const { B, T } = rows;
  const pair = ktoMismatchedPairs(B);
  const out: MismatchedRows = { inputs: new Uint32Array(B * T), targets: new Uint32Array(B * T), mask: new Uint32Array(B * T) };
  const spans = Array.from({ length: B }, (_, b) => actionSpan(rows, b));
  for (let b = 0; b < B; b++) {
    const own = spans[b];
    const other = spans[pair[b]];
    // The token sequence: prompt tokens of b (inputs[0..first]), then the completion of pair[b].
    const promptEnd = own ? own.first : T; // tokens[0..promptEnd] are the prompt; with no action, the whole row
    const tokens: number[] = [];
    const sampled: number[] = [];
    for (let t = 0; t <= Math.min(promptEnd, T - 1); t++) {
      tokens.push(rows.inputs[b * T + t]);
      sampled.push(0);
    }
    if (other)
      for (let t = other.first; t <= other.last; t++) {
        tokens.push(rows.targets[pair[b] * T + t]);
        sampled.push(rows.actionMask[pair[b] * T + t]);
      }
    for (let t = 0; t + 1 < tokens.length && t < T; t++) {
      out.inputs[b * T + t] = tokens[t];
      out.targets[b * T + t] = tokens[t + 1];
      out.mask[b * T + t] = sampled[t + 1];
    }
  }
  return out;
}
