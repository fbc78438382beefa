// Rollouts as the model trains on them: position t of a row feeds token t and predicts token t + 1.
// Everything per token is indexed by the predicted (target) token, so "the action mask at t" means
// "tokens[t + 1] was sampled by the policy", and V[t] — read where the logits predicting tokens[t+1]
// are — is the value of the state before that token (docs/algorithms/README.md §2).
//
// Shape legend:  B rows · T training positions (= longest sample − 1, rounded up to a multiple of 4)

import type { PackedBatch } from '../envs/sample.ts';

export interface TrainingRows {
  B: number;
  T: number;
  inputs: Uint32Array; // [B, T] token fed at t (padding: padId)
  targets: Uint32Array; // [B, T] token predicted at t (padding: padId)
  actionMask: Uint32Array; // [B, T] 1 = targets[t] was sampled by the policy
  rewards: Float32Array; // [B, T] step rewards on the target index of their last action token
  rolloutLogp: Float32Array; // [B, T] log π_roll of sampled targets, 0 elsewhere
  terminal: Uint32Array; // [B] 1 = the episode ended, 0 = truncated (bootstrap)
  groupIds: Uint32Array; // [B]
  rolloutIds: Uint32Array; // [B]
  tokensAfter: Uint32Array; // [B]
}

/** Training positions for samples of at most `maxTokens` tokens: one fewer, rounded up so few shapes recur. */
export function trainingLength(maxTokens: number, contextLength: number): number {
  return Math.min(contextLength, Math.max(4, Math.ceil((maxTokens - 1) / 4) * 4));
}

/** Shifts a packed batch (tokens [B, T+1]-ish) into training rows with `T` positions. */
export function toTrainingRows(packed: PackedBatch, T: number, padId: number): TrainingRows {
  const { B } = packed;
  const P = packed.T;
  if (P - 1 > T) throw new RangeError(`toTrainingRows: samples of ${P} tokens need ${P - 1} positions, T is ${T}`);
  const rows: TrainingRows = {
    B,
    T,
    inputs: new Uint32Array(B * T).fill(padId),
    targets: new Uint32Array(B * T).fill(padId),
    actionMask: new Uint32Array(B * T),
    rewards: new Float32Array(B * T),
    rolloutLogp: new Float32Array(B * T),
    terminal: packed.terminal.slice(),
    groupIds: packed.groupIds.slice(),
    rolloutIds: packed.rolloutIds.slice(),
    tokensAfter: packed.tokensAfter.slice(),
  };
  for (let b = 0; b < B; b++) {
    const length = packed.lengths[b];
    for (let t = 0; t + 1 < length; t++) {
      const src = b * P + t;
      const dst = b * T + t;
      rows.inputs[dst] = packed.tokens[src];
      rows.targets[dst] = packed.tokens[src + 1];
      rows.actionMask[dst] = packed.actionMask[src + 1];
      rows.rewards[dst] = packed.rewards[src + 1];
      rows.rolloutLogp[dst] = packed.rolloutLogprobs[src + 1];
    }
  }
  return rows;
}

/** Rows `indices` of a [B, T] array, in that order. */
export function gatherRows<A extends Float32Array | Uint32Array>(array: A, T: number, indices: readonly number[]): A {
  const out = new (array.constructor as { new (n: number): A })(indices.length * T);
  for (let i = 0; i < indices.length; i++) out.set(array.subarray(indices[i] * T, (indices[i] + 1) * T), i * T);
  return out;
}

/** Entries `indices` of a [B] array. */
export function gatherItems<A extends Float32Array | Uint32Array>(array: A, indices: readonly number[]): A {
  const out = new (array.constructor as { new (n: number): A })(indices.length);
  for (let i = 0; i < indices.length; i++) out[i] = array[indices[i]];
  return out;
}
