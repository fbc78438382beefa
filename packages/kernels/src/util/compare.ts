// Comparing a GPU result with its float64 reference. Used by tests on every runtime, so it returns
// data rather than asserting.

export interface Mismatch {
  /** max |actual − expected| / max(max |expected|, tiny): an error relative to the result's scale. */
  relativeError: number;
  maxAbsError: number;
  worstIndex: number;
  actual: number;
  expected: number;
  /** Count of NaN or ±Inf in `actual` where `expected` is finite. */
  nonFinite: number;
}

export function compareArrays(actual: ArrayLike<number>, expected: ArrayLike<number>): Mismatch {
  if (actual.length !== expected.length) {
    throw new RangeError(`compareArrays: ${actual.length} values against ${expected.length} expected`);
  }
  let maxAbsError = 0;
  let scale = 0;
  let worstIndex = -1;
  let nonFinite = 0;
  for (let i = 0; i < expected.length; i++) {
    const e = expected[i];
    const a = actual[i];
    scale = Math.max(scale, Math.abs(e));
    if (!Number.isFinite(a) && Number.isFinite(e)) {
      nonFinite++;
      if (worstIndex < 0 || Number.isFinite(maxAbsError)) {
        maxAbsError = Number.POSITIVE_INFINITY;
        worstIndex = i;
      }
      continue;
    }
    const err = Math.abs(a - e);
    if (err > maxAbsError || worstIndex < 0) {
      maxAbsError = Math.max(err, maxAbsError);
      if (err >= maxAbsError) worstIndex = i;
    }
  }
  return {
    relativeError: maxAbsError / Math.max(scale, 1e-30),
    maxAbsError,
    worstIndex,
    actual: worstIndex >= 0 ? actual[worstIndex] : Number.NaN,
    expected: worstIndex >= 0 ? expected[worstIndex] : Number.NaN,
    nonFinite,
  };
}

export function describeMismatch(name: string, m: Mismatch): string {
  return `${name}: relative error ${m.relativeError.toExponential(2)} (max abs ${m.maxAbsError.toExponential(2)} at index ${m.worstIndex}: got ${m.actual}, expected ${m.expected}${m.nonFinite ? `; ${m.nonFinite} non-finite` : ''})`;
}
