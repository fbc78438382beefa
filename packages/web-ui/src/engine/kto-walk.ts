// The KTO and span-KTO walkthroughs' numbers, from their kernels (docs/algorithms/kto.md §1–2).
// KTO: four completions, each with its mismatched pair (TRL's +1 rotation) whose summed log-ratio
// sets the reference point z0; the drift control scales every ℓ − ℓ_ref, as a policy that moved
// further from the reference would. The kernel returns z0, r_b, L_b and ∂loss/∂ℓ; ∂loss/∂r_b is the
// gradient of any completion token of row b (every one gets the same). Span-KTO: one assistant turn
// whose per-token polarity the learner edits; spans come from the kernels package's buildSpans.
// Without WebGPU the float64 references fill in.

import { buildSpans, type Gpu, kto, ktoRef, spanKto, spanKtoRef } from '@horizon/kernels';
import type { KtoAnswer, KtoRequest, SpanKtoAnswer, SpanKtoRequest } from './walk-api.ts';
import { KTO_REF_LOGP, KTO_ROWS, KTO_T, SPAN_REF_LOGP, SPAN_TOKENS } from './walk-data.ts';

const inRange = (walkthrough: string, name: string, x: number, lo: number, hi: number) => {
  if (!(Number.isFinite(x) && x >= lo && x <= hi)) throw new RangeError(`${walkthrough} walkthrough: ${name} must be in [${lo}, ${hi}], got ${x}`);
};

export function checkKtoRequest(r: KtoRequest): void {
  inRange('kto', 'beta', r.beta, 0.001, 10);
  inRange('kto', 'lambdaD', r.lambdaD, 0, 10);
  inRange('kto', 'lambdaU', r.lambdaU, 0, 10);
  inRange('kto', 'drift', r.drift, 0, 5);
  if (r.desirable.length !== KTO_ROWS.length || r.desirable.some((d) => d !== 0 && d !== 1))
    throw new RangeError(`kto walkthrough: desirable must be ${KTO_ROWS.length} flags of 0 or 1, got [${r.desirable.join(', ')}]`);
}

/** The KTO batch at `drift`: ℓ = ℓ_ref + drift·(ℓ − ℓ_ref) for matched and mismatched pairs; every token counts. */
export function ktoInputs(drift: number, desirable: readonly number[]) {
  const B = KTO_ROWS.length;
  const flat = (pick: (row: (typeof KTO_ROWS)[number]) => number[]) =>
    Float32Array.from(KTO_ROWS.flatMap((row) => pick(row).map((d) => KTO_REF_LOGP + drift * d)));
  return {
    logp: flat((r) => r.logRatio),
    refLogp: new Float32Array(B * KTO_T).fill(KTO_REF_LOGP),
    mask: new Uint32Array(B * KTO_T).fill(1),
    klLogp: flat((r) => r.mismatchedLogRatio),
    klRefLogp: new Float32Array(B * KTO_T).fill(KTO_REF_LOGP),
    klMask: new Uint32Array(B * KTO_T).fill(1),
    desirable: Uint32Array.from(desirable),
  };
}

export async function computeKtoWalk(gpu: Gpu | null, request: KtoRequest, deviceLine: string): Promise<KtoAnswer> {
  checkKtoRequest(request);
  const started = performance.now();
  const B = KTO_ROWS.length;
  const T = KTO_T;
  const inputs = ktoInputs(request.drift, request.desirable);
  const options = { B, T, beta: request.beta, lambdaD: request.lambdaD, lambdaU: request.lambdaU };
  const r = gpu ? await kto(gpu, inputs, options) : ktoRef(inputs, options);
  const mismatchedKl = Array.from({ length: B }, (_, b) => {
    let s = 0;
    for (let t = 0; t < T; t++) s += inputs.klLogp[b * T + t] - inputs.klRefLogp[b * T + t];
    return s;
  });
  return {
    request: { ...request, desirable: [...request.desirable] },
    rewards: Array.from(r.rewards),
    mismatchedKl,
    z0: r.z0,
    perSample: Array.from(r.perSample),
    dLdr: Array.from({ length: B }, (_, b) => r.grad[b * T]),
    loss: r.loss,
    computedOn: gpu ? 'gpu' : 'cpu',
    deviceLine,
    millis: performance.now() - started,
  };
}

export function checkSpanKtoRequest(r: SpanKtoRequest): void {
  for (const [key, lo, hi] of [
    ['beta', 0.001, 10],
    ['lambdaW', 0, 10],
    ['lambdaL', 0, 10],
    ['alpha', 0, 1],
    ['zRef', -10, 10],
  ] as const) {
    inRange('span-kto', key, r[key], lo, hi);
  }
  if (r.polarity.length !== SPAN_TOKENS.length || r.polarity.some((p) => p !== -1 && p !== 0 && p !== 1))
    throw new RangeError(`span-kto walkthrough: polarity must be ${SPAN_TOKENS.length} values of −1, 0 or +1`);
}

/** The span-KTO turn: ℓ = ℓ_ref + (ℓ − ℓ_ref) per token, the assistant mask, and the learner's polarity (0 off the mask). */
export function spanKtoInputs(polarity: readonly number[]) {
  return {
    logp: Float32Array.from(SPAN_TOKENS, (t) => SPAN_REF_LOGP + t.logRatio),
    refLogp: new Float32Array(SPAN_TOKENS.length).fill(SPAN_REF_LOGP),
    polarity: Int32Array.from(SPAN_TOKENS, (t, i) => (t.assistant ? polarity[i] : 0)),
    mask: Uint32Array.from(SPAN_TOKENS, (t) => (t.assistant ? 1 : 0)),
  };
}

export async function computeSpanKtoWalk(gpu: Gpu | null, request: SpanKtoRequest, deviceLine: string): Promise<SpanKtoAnswer> {
  checkSpanKtoRequest(request);
  const started = performance.now();
  const T = SPAN_TOKENS.length;
  const inputs = spanKtoInputs(request.polarity);
  const params = { beta: request.beta, lambdaW: request.lambdaW, lambdaL: request.lambdaL, alpha: request.alpha, zRef: request.zRef };
  let spans: ReturnType<typeof buildSpans>;
  let out: { loss: number; prefLoss: number; neutralLoss: number; zRef: number; spanRewards: ArrayLike<number>; grad: ArrayLike<number> };
  if (gpu) {
    out = await spanKto(gpu, inputs, { ...params, B: 1, T });
    spans = (out as Awaited<ReturnType<typeof spanKto>>).spans;
  } else {
    spans = buildSpans(inputs.polarity, inputs.mask, 1, T);
    out = spanKtoRef(inputs, spans, params, T);
  }
  return {
    request: { ...request, polarity: [...request.polarity] },
    logRatio: Array.from(inputs.logp, (l, i) => l - inputs.refLogp[i]),
    mask: Array.from(inputs.mask),
    spans: Array.from(spans.start, (start, k) => ({ start, end: spans.end[k], polarity: spans.polarity[k] })),
    spanRewards: Array.from(out.spanRewards),
    zRef: out.zRef,
    grad: Array.from(out.grad),
    loss: out.loss,
    prefLoss: out.prefLoss,
    neutralLoss: out.neutralLoss,
    computedOn: gpu ? 'gpu' : 'cpu',
    deviceLine,
    millis: performance.now() - started,
  };
}
