// Span-level KTO on the GPU: launcher and host API. Math: span-kto.ref.ts; dispatches: span-kto.wgsl.ts.
//
// Shapes: logp, refLogp, grad [B, T] f32; tokenSpan [B, T] i32; spans [S, 3] u32;
// spanSums [S, 2] f32; zPrev [1] f32; perSpan [S] f32; stats [6] f32.

import type { Gpu, Recorder } from '../../gpu/runtime.ts';
import type { Tensor } from '../../gpu/tensor.ts';
import { f32Bits } from '../../gpu/wgsl.ts';
import { checkArray, checkMask, checkNumber, checkSizes, checkTensor } from '../../util/checks.ts';
import { withScope } from '../common/scope.ts';
import { buildSpans, buildSpansFromIds, type SpanKtoParams, type Spans } from './span-kto.ref.ts';
import { SPAN_WORKGROUP, spanGradWgsl, spanLossWgsl, spanSumsWgsl } from './span-kto.wgsl.ts';

export interface SpanKtoTensors {
  /** logp: [B, T] f32 — ℓ of the policy. */
  logp: Tensor;
  /** refLogp: [B, T] f32 — ℓ_ref of the frozen reference. */
  refLogp: Tensor;
  /** spans: [S, 3] u32 — (start, end, polarity + 1), from `packSpans`. */
  spans: Tensor;
  /** tokenSpan: [B, T] i32 — span of each token, −1 outside spans. */
  tokenSpan: Tensor;
  /** spanSums: [S, 2] f32 scratch — (r_k, Σℓ). */
  spanSums: Tensor;
  /** zPrev: [1] f32 — z_ref before this step (copy stats[3] here for the next step). */
  zPrev: Tensor;
  /** perSpan: [S] f32 output — dL/dℓ for every token of span k. */
  perSpan: Tensor;
  /** stats: [6] f32 output — loss, L_pref, L_neutral, new z_ref, preference spans, neutral tokens. */
  stats: Tensor;
  /** grad: [B, T] f32 output — dL/dℓ. */
  grad: Tensor;
}

/** Spans in the kernel's layout: [S, 3] u32 (start, end, polarity + 1). */
export function packSpans(spans: Spans): Uint32Array {
  const S = spans.start.length;
  const out = new Uint32Array(3 * S);
  for (let k = 0; k < S; k++) {
    out[3 * k] = spans.start[k];
    out[3 * k + 1] = spans.end[k];
    out[3 * k + 2] = spans.polarity[k] + 1;
  }
  return out;
}

export function checkSpanKtoParams(params: Omit<SpanKtoParams, 'zRef'>): void {
  checkNumber('spanKto', 'beta', params.beta, 0, 1e6);
  checkNumber('spanKto', 'lambdaW', params.lambdaW, 0, 1e6);
  checkNumber('spanKto', 'lambdaL', params.lambdaL, 0, 1e6);
  checkNumber('spanKto', 'alpha', params.alpha, 0, 1);
}

function grid(gpu: Gpu, n: number): [number, number] {
  const groups = Math.ceil(n / SPAN_WORKGROUP);
  const limit = gpu.device.limits.maxComputeWorkgroupsPerDimension;
  const y = Math.max(1, Math.ceil(groups / limit));
  return [Math.ceil(groups / y), y];
}

export function recordSpanKto(rec: Recorder, gpu: Gpu, t: SpanKtoTensors, options: Omit<SpanKtoParams, 'zRef'> & { N: number; S: number }): void {
  const { N, S } = options;
  checkSizes('spanKto', { N, S });
  checkSpanKtoParams(options);
  checkTensor('spanKto', 'logp', t.logp, N, 'f32');
  checkTensor('spanKto', 'refLogp', t.refLogp, N, 'f32');
  checkTensor('spanKto', 'tokenSpan', t.tokenSpan, N, 'i32');
  checkTensor('spanKto', 'grad', t.grad, N, 'f32');
  checkTensor('spanKto', 'spans', t.spans, 3 * S, 'u32');
  checkTensor('spanKto', 'spanSums', t.spanSums, 2 * S, 'f32');
  checkTensor('spanKto', 'perSpan', t.perSpan, S, 'f32');
  checkTensor('spanKto', 'zPrev', t.zPrev, 1, 'f32');
  checkTensor('spanKto', 'stats', t.stats, 6, 'f32');
  rec.dispatch(gpu.pipeline(spanSumsWgsl(), 'main', 'rl_span_kto_sums'), [t.logp, t.refLogp, t.spans, t.spanSums, gpu.uniform([S])], ...grid(gpu, S));
  const params = gpu.uniform([S, f32Bits(options.beta), f32Bits(options.lambdaW), f32Bits(options.lambdaL), f32Bits(options.alpha)]);
  rec.dispatch(gpu.pipeline(spanLossWgsl(), 'main', 'rl_span_kto_loss'), [t.spanSums, t.spans, t.zPrev, t.perSpan, t.stats, params], 1);
  rec.dispatch(gpu.pipeline(spanGradWgsl(), 'main', 'rl_span_kto_grad'), [t.tokenSpan, t.perSpan, t.grad, gpu.uniform([N])], ...grid(gpu, N));
}

export interface SpanKtoResult {
  /** L = L_pref + L_neutral. */
  loss: number;
  prefLoss: number;
  neutralLoss: number;
  /** The updated reference point; pass it as `zRef` next step. */
  zRef: number;
  /** [S] span rewards r_k (nats), in span order (row by row, left to right). */
  spanRewards: Float32Array;
  /** The spans the polarity and mask produced. */
  spans: Spans;
  /** [B, T] dL/dℓ. */
  grad: Float32Array;
}

/**
 * Host API: span-level KTO (docs/algorithms/kto.md §2).
 *   r_k = Σ_{t∈S_k}(ℓ − ℓ_ref);  z_ref ← α·z_ref + (1 − α)·mean_k r_k (stop-gradient);  a_k = r_k − z_ref;
 *   L_pref = mean over ±spans of (−λ_w σ(β a_k) | −λ_l σ(−β a_k));  L_neutral = −mean_{neutral t} ℓ_t.
 * `polarity` [B, T] holds −1/0/+1 per assistant token; spans are maximal runs of equal polarity,
 * or, with `spanIds` [B, T], the caller's spans (buildSpansFromIds: each id one contiguous run).
 */
export async function spanKto(
  gpu: Gpu,
  inputs: { logp: Float32Array; refLogp: Float32Array; polarity: Int32Array; mask: Uint32Array; spanIds?: Int32Array },
  options: SpanKtoParams & { B: number; T: number },
): Promise<SpanKtoResult> {
  const { B, T } = options;
  checkSizes('spanKto', { B, T });
  checkSpanKtoParams(options);
  checkNumber('spanKto', 'zRef', options.zRef, -Number.MAX_VALUE, Number.MAX_VALUE);
  checkArray('spanKto', 'logp', inputs.logp, B * T);
  checkArray('spanKto', 'refLogp', inputs.refLogp, B * T);
  checkMask('spanKto', 'mask', inputs.mask, B * T);
  const spans = inputs.spanIds ? buildSpansFromIds(inputs.spanIds, inputs.polarity, inputs.mask, B, T) : buildSpans(inputs.polarity, inputs.mask, B, T);
  const S = spans.start.length;
  return withScope(gpu, async (s) => {
    const spanSums = s.tensor(2 * S, 'f32', 'spanSums');
    const stats = s.tensor(6, 'f32', 'stats');
    const grad = s.tensor(B * T, 'f32', 'grad');
    const t: SpanKtoTensors = {
      logp: s.upload(inputs.logp, 'logp'),
      refLogp: s.upload(inputs.refLogp, 'refLogp'),
      spans: s.upload(packSpans(spans), 'spans'),
      tokenSpan: s.upload(spans.tokenSpan, 'tokenSpan'),
      spanSums,
      zPrev: s.upload(Float32Array.of(options.zRef), 'zPrev'),
      perSpan: s.tensor(S, 'f32', 'perSpan'),
      stats,
      grad,
    };
    gpu.run((rec) => recordSpanKto(rec, gpu, t, { ...options, N: B * T, S }), 'spanKto');
    const st = await s.read(stats);
    const sums = await s.read(spanSums);
    return {
      loss: st[0],
      prefLoss: st[1],
      neutralLoss: st[2],
      zRef: st[3],
      spanRewards: Float32Array.from({ length: S }, (_, k) => sums[2 * k]),
      spans,
      grad: await s.read(grad),
    };
  });
}
