// The end of every advantage path that runs on the GPU (critic-gae.ts, group-baseline.ts). The
// method's kernel writes into the batch's own tensors (train/batch-tensors.ts), masked whitening over
// the batch's action tokens follows in the same encoder when the recipe asks (slime's and verl's
// `masked_whiten`), and after one submit one round trip reads back what the host uses: the final
// advantages (the samples' channels, truncated importance sampling, KTO-style labels), the raw ones
// (rollout/advantage_*) and the critic targets (critic/*) when the method has a critic. The
// minibatches then copy their rows out of `batch.advantages` and `batch.returns` on the GPU.
//
// Shape legend:  B rows · T positions

import { type Gpu, type Recorder, recordWhiten, type Tensor } from '@horizon/kernels';
import type { BatchTensors } from '../train/batch-tensors.ts';

export interface RecordedAdvantages {
  advantages: Float32Array; // [B, T] final: whitened if the recipe says so
  raw: Float32Array; // [B, T] before whitening (the same array when there is none)
  returns?: Float32Array; // [B, T] critic targets, when asked for
}

/** Where the method's kernel writes its advantages: `batch.advantages` itself unless whitening follows. */
export function rawAdvantagesOf(batch: BatchTensors, whiten: boolean): Tensor {
  return whiten ? batch.rawAdvantages : batch.advantages;
}

/** Whitens (if asked) into `batch.advantages`, submits `rec` and reads the results back in one round trip. */
export async function submitAdvantages(
  gpu: Gpu,
  rec: Recorder,
  batch: BatchTensors,
  options: { whiten: boolean; returns: boolean },
): Promise<RecordedAdvantages> {
  const { whiten, returns } = options;
  if (whiten) {
    recordWhiten(
      rec,
      gpu,
      { values: batch.rawAdvantages, mask: batch.mask, partials: batch.whitenPartials, stats: batch.whitenStats, out: batch.advantages },
      { N: batch.B * batch.T },
    );
  }
  gpu.submit(rec);
  const read = (await gpu.readMany([batch.advantages, ...(whiten ? [batch.rawAdvantages] : []), ...(returns ? [batch.returns] : [])])) as Float32Array[];
  const advantages = read[0];
  const raw = whiten ? read[1] : advantages;
  return { advantages, raw, ...(returns ? { returns: read[read.length - 1] } : {}) };
}
