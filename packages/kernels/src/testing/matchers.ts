// `expect(actual).toBeAllClose(expected, { atol, rtol })`: passes when every element satisfies
// |a − e| ≤ atol + rtol·|e| (numpy's allclose); on failure names the worst index and lists the
// first differing values (docs/conventions.md §8).

export interface AllCloseOptions {
  atol?: number;
  rtol?: number;
  /** Printed before the message, e.g. the tensor's name. */
  name?: string;
}

export interface AllCloseOutcome {
  pass: boolean;
  message: string;
}

export function allClose(actual: ArrayLike<number>, expected: ArrayLike<number>, options: AllCloseOptions = {}): AllCloseOutcome {
  const atol = options.atol ?? 1e-6;
  const rtol = options.rtol ?? 1e-5;
  const prefix = options.name ? `${options.name}: ` : '';
  if (actual.length !== expected.length) {
    return { pass: false, message: `${prefix}length ${actual.length} differs from expected length ${expected.length}` };
  }
  let worst = -1;
  let worstExcess = 0;
  const differing: string[] = [];
  let count = 0;
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i];
    const e = expected[i];
    const bothNaN = Number.isNaN(a) && Number.isNaN(e);
    const sameInf = !Number.isFinite(e) && a === e;
    if (bothNaN || sameInf) continue;
    const tolerance = atol + rtol * Math.abs(e);
    const err = Math.abs(a - e);
    if (!(err <= tolerance)) {
      count++;
      const excess = Number.isNaN(err) ? Number.POSITIVE_INFINITY : err / tolerance;
      if (worst < 0 || excess > worstExcess) {
        worst = i;
        worstExcess = excess;
      }
      if (differing.length < 5) differing.push(`[${i}] ${a} vs ${e}`);
    }
  }
  if (count === 0) return { pass: true, message: `${prefix}all ${expected.length} values within atol ${atol}, rtol ${rtol}` };
  return {
    pass: false,
    message:
      `${prefix}${count} of ${expected.length} values differ beyond atol ${atol} + rtol ${rtol}·|expected|; ` +
      `worst at index ${worst}: ${actual[worst]} vs ${expected[worst]} (${worstExcess.toPrecision(3)}× the tolerance); ` +
      `first: ${differing.join(', ')}`,
  };
}
