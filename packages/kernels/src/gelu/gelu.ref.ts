// Float64 reference for GELU (tanh approximation), from the formula and its derivative by the
// product and chain rules:
//   gelu(x) = ½x(1 + tanh u),  u = √(2/π)(x + 0.044715x³)
//   d/dx    = ½(1 + tanh u) + ½x·sech²u·du/dx,  du/dx = √(2/π)(1 + 3·0.044715x²)

const S = Math.sqrt(2 / Math.PI);
const C = 0.044715;

export function geluRef(x: number): number {
  return 0.5 * x * (1 + Math.tanh(S * (x + C * x ** 3)));
}

export function geluForwardRef(x: ArrayLike<number>): Float64Array {
  return Float64Array.from(x, geluRef);
}

export function geluBackwardRef(x: ArrayLike<number>, dout: ArrayLike<number>): Float64Array {
  return Float64Array.from(x, (v, i) => {
    const t = Math.tanh(S * (v + C * v ** 3));
    const sech2 = 1 - t * t;
    return dout[i] * (0.5 * (1 + t) + 0.5 * v * sech2 * S * (1 + 3 * C * v * v));
  });
}
