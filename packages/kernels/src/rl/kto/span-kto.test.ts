import { describe, expect, it } from 'vitest';
import { testGpu } from '../../testing/node-gpu.ts';
import { SeededRandom } from '../../util/seeded-random.ts';
import { buildSpans, buildSpansFromIds, spanKtoRef } from './span-kto.ref.ts';
import { spanKto } from './span-kto.ts';

const rng = new SeededRandom(97);
const PARAMS = { beta: 0.5, lambdaW: 1.2, lambdaL: 1, alpha: 0.9, zRef: 0.3 };

function randomCase(B: number, T: number) {
  const N = B * T;
  const refLogp = rng.uniformArray(N, -4, -0.1);
  const polarity = new Int32Array(N);
  let p = 0;
  for (let i = 0; i < N; i++) {
    if (rng.next() < 0.15) p = rng.int(-1, 1);
    polarity[i] = p;
  }
  return {
    logp: refLogp.map((x) => x + (rng.next() - 0.5) * 0.5),
    refLogp,
    polarity,
    mask: Uint32Array.from({ length: N }, () => (rng.next() < 0.85 ? 1 : 0)),
  };
}

describe('span-level KTO', () => {
  it('spans are maximal runs of equal polarity over assistant tokens, cut by other tokens and rows', () => {
    const s = buildSpans([1, 1, -1, -1, 1, 1, 0, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 0, 1, 1], 2, 5);
    expect(Array.from(s.start)).toEqual([0, 2, 4, 5, 6, 8]);
    expect(Array.from(s.end)).toEqual([2, 4, 5, 6, 7, 10]);
    expect(Array.from(s.polarity)).toEqual([1, -1, 1, 1, 0, 1]);
    expect(Array.from(s.tokenSpan)).toEqual([0, 0, 1, 1, 2, 3, 4, -1, 5, 5]);
  });

  it('caller span ids keep adjacent same-polarity answers apart, and refuse split or mixed spans', () => {
    // Row 0: two positive answers back to back (ids 0 and 1), then a non-assistant token, then id 2.
    const s = buildSpansFromIds([0, 0, 1, 1, 9, 2, 5, 5, 5, 5], [1, 1, 1, 1, 0, -1, 0, 0, 0, 0], [1, 1, 1, 1, 0, 1, 1, 1, 1, 1], 2, 5);
    expect(Array.from(s.start)).toEqual([0, 2, 5, 6]);
    expect(Array.from(s.end)).toEqual([2, 4, 6, 10]);
    expect(Array.from(s.polarity)).toEqual([1, 1, -1, 0]);
    expect(Array.from(s.tokenSpan)).toEqual([0, 0, 1, 1, -1, 2, 3, 3, 3, 3]);
    // The same polarity without ids merges the first two answers into one span.
    expect(buildSpans([1, 1, 1, 1, 0], [1, 1, 1, 1, 0], 1, 5).start.length).toBe(1);
    expect(() => buildSpansFromIds([0, 1, 0], [1, 1, 1], [1, 1, 1], 1, 3)).toThrow(/span 0 of row 0 is split/);
    expect(() => buildSpansFromIds([0, 0], [1, -1], [1, 1], 1, 2)).toThrow(/mixes polarities/);
    expect(() => buildSpansFromIds([0, -1], [1, 1], [1, 1], 1, 2)).toThrow(/spanIds\[1\] is -1/);
  });

  it('GPU matches the float64 reference on caller spans', async () => {
    const gpu = await testGpu();
    const B = 3;
    const T = 40;
    const c = randomCase(B, T);
    // Answers of 4 tokens with a non-assistant token after each, whatever the polarity runs; one polarity per answer.
    const spanIds = Int32Array.from({ length: B * T }, (_, i) => Math.floor((i % T) / 5));
    const polarity = Int32Array.from(spanIds, (id, i) => c.polarity[Math.floor(i / T) * T + id * 5]);
    const mask = Uint32Array.from({ length: B * T }, (_, i) => (i % 5 === 4 ? 0 : 1));
    const inputs = { ...c, polarity, spanIds, mask };
    const got = await spanKto(gpu, inputs, { ...PARAMS, B, T });
    const spans = buildSpansFromIds(spanIds, polarity, mask, B, T);
    const want = spanKtoRef(c, spans, PARAMS, B * T);
    expect(got.spans.start.length).toBe(spans.start.length);
    expect([got.loss, got.zRef]).toBeAllClose([want.loss, want.zRef], { atol: 1e-6, rtol: 1e-5 });
    expect(got.grad).toBeAllClose(want.grad, { atol: 1e-8, rtol: 1e-5 });
  });

  it('GPU matches the float64 reference', async () => {
    const gpu = await testGpu();
    const B = 5;
    const T = 77;
    const c = randomCase(B, T);
    const got = await spanKto(gpu, c, { ...PARAMS, B, T });
    const want = spanKtoRef(c, buildSpans(c.polarity, c.mask, B, T), PARAMS, B * T);
    expect([got.loss, got.prefLoss, got.neutralLoss, got.zRef]).toBeAllClose([want.loss, want.prefLoss, want.neutralLoss, want.zRef], {
      atol: 1e-6,
      rtol: 1e-5,
    });
    expect(got.spanRewards).toBeAllClose(want.spanRewards, { atol: 1e-5, rtol: 1e-5 });
    expect(got.grad).toBeAllClose(want.grad, { atol: 1e-8, rtol: 1e-5 });
  });

  it('the reference gradient is the derivative of the loss with z_ref held fixed (central differences)', () => {
    const B = 2;
    const T = 9;
    const c = randomCase(B, T);
    const spans = buildSpans(c.polarity, c.mask, B, T);
    const base = spanKtoRef(c, spans, PARAMS, B * T);
    // Hold z at the value this step computed (alpha = 1 keeps the EMA from reacting to the perturbation).
    const fixed = { ...PARAMS, alpha: 1, zRef: base.zRef };
    const h = 1e-6;
    for (let i = 0; i < B * T; i++) {
      const plus = Float64Array.from(c.logp);
      const minus = Float64Array.from(c.logp);
      plus[i] += h;
      minus[i] -= h;
      const numeric = (spanKtoRef({ ...c, logp: plus }, spans, fixed, B * T).loss - spanKtoRef({ ...c, logp: minus }, spans, fixed, B * T).loss) / (2 * h);
      expect(numeric).toBeCloseTo(base.grad[i], 6);
    }
  });

  it('the EMA reference point carries across steps and stays put with no spans', async () => {
    const gpu = await testGpu();
    const c = { logp: Float32Array.of(-1, -2), refLogp: Float32Array.of(-1.5, -2), polarity: Int32Array.of(1, 1), mask: Uint32Array.of(1, 1) };
    const first = await spanKto(gpu, c, { ...PARAMS, alpha: 0.5, zRef: 0, B: 1, T: 2 });
    expect(first.zRef).toBeCloseTo(0.25, 6); // 0.5·0 + 0.5·0.5
    const second = await spanKto(gpu, c, { ...PARAMS, alpha: 0.5, zRef: first.zRef, B: 1, T: 2 });
    expect(second.zRef).toBeCloseTo(0.375, 6);
    const none = await spanKto(gpu, { ...c, mask: Uint32Array.of(0, 0) }, { ...PARAMS, zRef: 0.7, B: 1, T: 2 });
    expect([none.zRef, none.loss]).toBeAllClose([0.7, 0]);
    expect(Array.from(none.grad)).toEqual([0, 0]);
  });

  it('bad input throws a RangeError naming the argument', async () => {
    const gpu = await testGpu();
    const c = { logp: new Float32Array(2), refLogp: new Float32Array(2), polarity: Int32Array.of(1, 2), mask: Uint32Array.of(1, 1) };
    await expect(spanKto(gpu, c, { ...PARAMS, B: 1, T: 2 })).rejects.toThrow(/polarity\[1\] is 2/);
    await expect(spanKto(gpu, { ...c, polarity: Int32Array.of(1, 1) }, { ...PARAMS, alpha: 1.5, B: 1, T: 2 })).rejects.toThrow(/alpha/);
    await expect(spanKto(gpu, { ...c, polarity: Int32Array.of(1, 1) }, { ...PARAMS, zRef: Number.NaN, B: 1, T: 2 })).rejects.toThrow(/zRef/);
  });
});
