// Small helpers shared by kernel launchers.

const f32Scratch = new Float32Array(1);
const u32Scratch = new Uint32Array(f32Scratch.buffer);

/** The bit pattern of an f32, for packing floats into a u32 uniform word list. */
export function f32Bits(x: number): number {
  f32Scratch[0] = x;
  return u32Scratch[0];
}

export function ceilDiv(n: number, d: number): number {
  return Math.ceil(n / d);
}
