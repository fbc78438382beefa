// A scored batch on the GPU built from host arrays, as the Scorer leaves it after scoring: for tests
// that hand a method its advantage inputs without running the models.

import type { Gpu } from '@horizon/kernels';
import { BatchTensors } from '../batch-tensors.ts';
import type { TrainingRows } from '../rows.ts';
import type { Scores } from '../scoring.ts';

export function scoredBatchOnGpu(gpu: Gpu, rows: TrainingRows, scores: Scores): BatchTensors {
  const batch = new BatchTensors(gpu, rows.B, rows.T);
  gpu.write(batch.inputs, rows.inputs);
  gpu.write(batch.targets, rows.targets);
  gpu.write(batch.mask, rows.actionMask);
  gpu.write(batch.rolloutLogp, rows.rolloutLogp);
  gpu.write(batch.oldLogp, scores.oldLogp);
  gpu.write(batch.refLogp, scores.refLogp);
  if (scores.values) gpu.write(batch.values, scores.values);
  if (scores.teacherLogp) gpu.write(batch.teacherLogp, scores.teacherLogp);
  return batch;
}
