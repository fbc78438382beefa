// Masked advantage whitening over the whole batch: launcher and host API. Math: whiten.ref.ts;
// f32-safe passes: whiten.wgsl.ts.
//
// Shapes: values, out [B, T] f32 (any N = B·T); mask [B, T] u32; partials [2, P] f32; stats [6] f32.

import type { Gpu, Recorder } from '../../gpu/runtime.ts';
import type { Tensor } from '../../gpu/tensor.ts';
import { f32Bits } from '../../gpu/wgsl.ts';
import { checkArray, checkMask, checkNumber, checkSizes, checkTensor } from '../../util/checks.ts';
import { partialCount, recordFinalSums, reduceGrid } from '../common/reduce.ts';
import { withScope } from '../common/scope.ts';
import { whitenApplyWgsl, whitenSumsWgsl } from './whiten.wgsl.ts';

/** ε inside the square root, as verl's `masked_whiten` (rsqrt(σ² + 1e-8)). */
export const WHITEN_EPS = 1e-8;

export interface WhitenTensors {
  /** values: [N] f32 — e.g. GAE advantages [B, T]. */
  values: Tensor;
  /** mask: [N] u32 — statistics over mask = 1 only; masked outputs are 0. */
  mask: Tensor;
  /** partials: [2·partialCount(N)] f32 scratch. */
  partials: Tensor;
  /** stats: [6] f32 — Σmx, n, Σd, Σd², mean, variance (the last two for logging). */
  stats: Tensor;
  /** out: [N] f32 — may not alias `values`. */
  out: Tensor;
}

export function recordWhiten(rec: Recorder, gpu: Gpu, t: WhitenTensors, options: { N: number; eps?: number }): void {
  const { N } = options;
  const eps = options.eps ?? WHITEN_EPS;
  checkSizes('whiten', { N });
  checkNumber('whiten', 'eps', eps, 0, 1);
  checkTensor('whiten', 'values', t.values, N, 'f32');
  checkTensor('whiten', 'mask', t.mask, N, 'u32');
  checkTensor('whiten', 'stats', t.stats, 6, 'f32');
  checkTensor('whiten', 'out', t.out, N, 'f32');
  if (t.out.buffer === t.values.buffer) throw new RangeError('whiten: out must not alias values');
  const P = partialCount(gpu, N);
  if (t.partials.size < 2 * P) throw new RangeError(`whiten: partials (${t.partials}) must hold at least ${2 * P} values`);
  const [x, y] = reduceGrid(gpu, N);
  const params = gpu.uniform([N, f32Bits(eps)]);
  rec.dispatch(gpu.pipeline(whitenSumsWgsl(1), 'main', 'rl_whiten_sums1'), [t.values, t.mask, t.stats, t.partials, params], x, y);
  recordFinalSums(rec, gpu, t.partials, t.stats, 2, P, 0);
  rec.dispatch(gpu.pipeline(whitenSumsWgsl(2), 'main', 'rl_whiten_sums2'), [t.values, t.mask, t.stats, t.partials, params], x, y);
  recordFinalSums(rec, gpu, t.partials, t.stats, 2, P, 2);
  rec.dispatch(gpu.pipeline(whitenApplyWgsl(), 'main', 'rl_whiten_apply'), [t.values, t.mask, t.stats, t.out, params], x, y);
}

export interface WhitenResult {
  /** [B, T] (x − μ)/sqrt(σ² + ε) on mask = 1, 0 elsewhere. */
  whitened: Float32Array;
  /** μ over the masked values. */
  mean: number;
  /** Unbiased σ² over the masked values (0 with fewer than two). */
  variance: number;
}

/**
 * Host API: masked whitening over every action token of the batch (docs/algorithms/README.md §7):
 *   μ = Σ m·x / n,  σ² = Σ m·(x − μ)² / (n − 1),  out = m·(x − μ)/sqrt(σ² + ε),  ε = 1e-8 by default.
 * Dimensionless output. With n = 0 or 1 every output is 0.
 */
export async function whiten(
  gpu: Gpu,
  inputs: { values: Float32Array; mask: Uint32Array },
  options: { B: number; T: number; eps?: number },
): Promise<WhitenResult> {
  const { B, T } = options;
  checkSizes('whiten', { B, T });
  const N = B * T;
  checkArray('whiten', 'values', inputs.values, N);
  checkMask('whiten', 'mask', inputs.mask, N);
  return withScope(gpu, async (s) => {
    const stats = s.tensor(6, 'f32', 'stats');
    const out = s.tensor(N, 'f32', 'whitened');
    const t = {
      values: s.upload(inputs.values, 'values'),
      mask: s.upload(inputs.mask, 'mask'),
      partials: s.tensor(2 * partialCount(gpu, N), 'f32', 'partials'),
      stats,
      out,
    };
    gpu.run((rec) => recordWhiten(rec, gpu, t, { N, ...(options.eps === undefined ? {} : { eps: options.eps }) }), 'whiten');
    const st = await s.read(stats);
    return { whitened: await s.read(out), mean: st[4], variance: st[5] };
  });
}
