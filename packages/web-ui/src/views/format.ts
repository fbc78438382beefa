// Numbers as the views print them: fixed decimals near 1, exponent form when tiny or huge, and
// non-finite values spelled out (a NaN must be visible, not blank).

export function fmt(x: number, digits = 3): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '−∞';
  const a = Math.abs(x);
  if (a !== 0 && (a < 10 ** -digits || a >= 1e6)) return x.toExponential(2).replace('-', '−');
  // Large values keep about four significant digits: "1010", not "1010.000".
  const decimals = a >= 1000 ? 0 : a >= 100 ? Math.min(digits, 1) : digits;
  return x.toFixed(decimals).replace('-', '−');
}

/** Signed, with an explicit + for positive numbers (token-strip tooltips). */
export function fmtSigned(x: number, digits = 3): string {
  return x > 0 ? `+${fmt(x, digits)}` : fmt(x, digits);
}
