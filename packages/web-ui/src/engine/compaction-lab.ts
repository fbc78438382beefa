// The compaction lab's kernel work (docs/ui.md §26): a live trajectory's per-token losses batched
// three ways (uncut, as the run cut it, cut where the learner put the slider), each reduced by the
// loss-aggregation kernel under every rl.lossAggregation, on the worker's device; without WebGPU
// the float64 reference. The batches come from the page (engine/compaction-lab-data.ts labBatches),
// built from the run's logged advantages.

import { aggregate, aggregateRef, type Gpu } from '@horizon/kernels';
import { LAB_REDUCERS, packLabBatch } from './compaction-lab-data.ts';
import type { CompactionLabAnswer, CompactionLabRequest } from './lab-walk-api.ts';

export function checkCompactionLabRequest(r: CompactionLabRequest): void {
  if (!Array.isArray(r.batches) || r.batches.length === 0) throw new RangeError('compaction lab: no batch to reduce; start a run first.');
  for (const b of r.batches) {
    if (b.rows.length !== b.rolloutIds.length)
      throw new RangeError(`compaction lab: batch "${b.name}" has ${b.rows.length} rows and ${b.rolloutIds.length} rollout ids.`);
    if (!b.rows.some((row) => row.length > 0)) throw new RangeError(`compaction lab: batch "${b.name}" has no trained token.`);
    for (const row of b.rows)
      if (!row.every(Number.isFinite)) throw new RangeError(`compaction lab: batch "${b.name}" holds a loss that is not a finite number.`);
  }
  if (!(Number.isInteger(r.constant) && r.constant >= 1))
    throw new RangeError(`compaction lab: the constant length must be a whole number ≥ 1, got ${r.constant}.`);
}

export async function computeCompactionLab(gpu: Gpu | null, request: CompactionLabRequest, deviceLine: string): Promise<CompactionLabAnswer> {
  checkCompactionLabRequest(request);
  const started = performance.now();
  const packed = request.batches.map((b) => ({ ...packLabBatch(b.rows), rolloutIds: b.rolloutIds }));
  const losses = [];
  for (const mode of LAB_REDUCERS) {
    const values = [];
    for (const p of packed) {
      const options = { mode, rolloutIds: p.rolloutIds, constant: request.constant };
      values.push(
        gpu ? await aggregate(gpu, { values: p.values, mask: p.mask }, { B: p.B, T: p.T, ...options }) : aggregateRef(p.values, p.mask, p.B, p.T, options),
      );
    }
    losses.push({ mode, values });
  }
  return { request: { ...request }, losses, computedOn: gpu ? 'gpu' : 'cpu', deviceLine, millis: performance.now() - started };
}
