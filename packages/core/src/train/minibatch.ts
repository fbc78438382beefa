// One minibatch's rows: on the GPU they are copied out of the batch by the first step that needs
// them (update-steps.ts); on the host they are gathered only when a step asks (a loss term with no
// GPU path yet, the tests).
//
// Shape legend:  B rows of the minibatch · T training positions

import type { BatchTensors } from './batch-tensors.ts';
import { gatherItems, gatherRows, type TrainingRows } from './rows.ts';
import type { Scores } from './scoring.ts';
import type { BatchRows, Minibatch } from './update-steps.ts';

/** Rows `indices` of the batch on the GPU; their host arrays are gathered only if a step asks for them. */
export function minibatchRows(batch: BatchTensors, indices: number[], gather: () => Minibatch): BatchRows {
  let host: Minibatch | undefined;
  return {
    batch,
    indices,
    host: () => {
      host ??= gather();
      return host;
    },
  };
}

/** The host arrays of rows `indices`, gathered from the whole batch. */
export function minibatch(
  rows: TrainingRows,
  scores: Scores,
  advantages: Float32Array,
  returns: Float32Array,
  scales: Float32Array,
  indices: number[],
): Minibatch {
  const { T } = rows;
  const values = scores.values ?? new Float32Array(rows.B * T);
  return {
    B: indices.length,
    T,
    inputs: gatherRows(rows.inputs, T, indices),
    targets: gatherRows(rows.targets, T, indices),
    mask: gatherRows(rows.actionMask, T, indices),
    scales: gatherItems(scales, indices),
    advantages: gatherRows(advantages, T, indices),
    oldLogp: gatherRows(scores.oldLogp, T, indices),
    rolloutLogp: gatherRows(rows.rolloutLogp, T, indices),
    refLogp: gatherRows(scores.refLogp, T, indices),
    returns: gatherRows(returns, T, indices),
    oldValues: gatherRows(values, T, indices),
    ...(scores.mismatched
      ? {
          mismatched: {
            logp: gatherRows(scores.mismatched.logp, T, indices),
            refLogp: gatherRows(scores.mismatched.refLogp, T, indices),
            mask: gatherRows(scores.mismatched.mask, T, indices),
          },
        }
      : {}),
    ...(scores.teacherLogp ? { teacherLogp: gatherRows(scores.teacherLogp, T, indices) } : {}),
  };
}
