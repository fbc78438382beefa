// Philox4x32-10 in TypeScript, word for word the WGSL in philox.wgsl.ts (32-bit integer ops only:
// Math.imul for the low half of a product, 16-bit halves for the high half, `>>> 0` to stay
// unsigned), plus a launcher that runs the WGSL version over a list of counters.
//
// Shape legend:  n blocks
//   counters: [n, 4] u32 · blocks: [n, 4] u32

import { gridFor } from '../gpu/grid.ts';
import type { Gpu, Recorder } from '../gpu/runtime.ts';
import type { Tensor } from '../gpu/tensor.ts';
import { checkTensor } from '../util/checks.ts';
import { PHILOX_WORKGROUP, philoxBlocksWgsl } from './philox.wgsl.ts';

const M0 = 0xd2511f53;
const M1 = 0xcd9e8d57;
const W0 = 0x9e3779b9;
const W1 = 0xbb67ae85;

/** High 32 bits of the 64-bit product of two u32 (Hacker's Delight §8-2); every step stays below 2³². */
export function mulhi32(a: number, b: number): number {
  const a0 = a & 0xffff;
  const a1 = a >>> 16;
  const b0 = b & 0xffff;
  const b1 = b >>> 16;
  const t = a1 * b0 + ((a0 * b0) >>> 16);
  const w1 = a0 * b1 + (t & 0xffff);
  return (a1 * b1 + (t >>> 16) + (w1 >>> 16)) >>> 0;
}

/** One Philox4x32-10 block: four u32 words from a 4-word counter and a 2-word key. */
export function philox4x32(counter: ArrayLike<number>, key: ArrayLike<number>): Uint32Array {
  let [c0, c1, c2, c3] = [counter[0] >>> 0, counter[1] >>> 0, counter[2] >>> 0, counter[3] >>> 0];
  let k0 = key[0] >>> 0;
  let k1 = key[1] >>> 0;
  for (let r = 0; r < 10; r++) {
    if (r > 0) {
      k0 = (k0 + W0) >>> 0;
      k1 = (k1 + W1) >>> 0;
    }
    const lo0 = Math.imul(M0, c0) >>> 0;
    const hi0 = mulhi32(M0, c0);
    const lo1 = Math.imul(M1, c2) >>> 0;
    const hi1 = mulhi32(M1, c2);
    [c0, c1, c2, c3] = [(hi1 ^ c1 ^ k0) >>> 0, lo1, (hi0 ^ c3 ^ k1) >>> 0, lo0];
  }
  return Uint32Array.of(c0, c1, c2, c3);
}

/** A uniform in [0, 1) from the top 24 bits of a word, exactly as the WGSL `uniformFromBits` computes it. */
export function uniformFromBits(x: number): number {
  return (x >>> 8) / 16777216;
}

/**
 * The uniform the sampler draws for `row` at `counter` (sample.wgsl.ts): word 0 of the block with
 * counter (counter, row, 0, 0) and key (seed, stream); a keyed draw uses (counter, key[0], key[1], 1).
 */
export function samplingUniform(seed: number, stream: number, counter: number, row: number, key?: readonly [number, number]): number {
  return uniformFromBits(philox4x32(key ? [counter, key[0], key[1], 1] : [counter, row, 0, 0], [seed, stream])[0]);
}

export interface PhiloxTensors {
  counters: Tensor; // [n, 4] u32
  blocks: Tensor; // [n, 4] u32
}

/** Records blocks[i] = philox4x32(counters[i], key). */
export function recordPhilox(rec: Recorder, gpu: Gpu, t: PhiloxTensors, key: readonly [number, number]): void {
  checkKey(key);
  const n = t.counters.size / 4;
  if (!Number.isInteger(n)) throw new RangeError(`philox: counters (${t.counters}) must hold a multiple of 4 words`);
  checkTensor('philox', 'blocks', t.blocks, 4 * n, 'u32');
  const pipeline = gpu.pipeline(philoxBlocksWgsl(), 'main', 'philox_blocks');
  rec.dispatch(pipeline, [t.counters, t.blocks, gpu.uniform([n, key[0], key[1]])], ...gridFor(gpu, n, PHILOX_WORKGROUP));
}

/** Host API: the Philox blocks of `counters` ([n, 4] words) under `key`, computed on the GPU. */
export async function philoxBlocks(gpu: Gpu, counters: Uint32Array, key: readonly [number, number]): Promise<Uint32Array> {
  if (counters.length % 4 !== 0) throw new RangeError(`philox: counters must hold a multiple of 4 words, got ${counters.length}`);
  checkKey(key);
  const n = counters.length / 4;
  const t = { counters: gpu.upload(counters, [n, 4], 'counters'), blocks: gpu.tensor([n, 4], 'u32', 'blocks') };
  try {
    gpu.run((rec) => recordPhilox(rec, gpu, t, key), 'philox');
    return await gpu.read(t.blocks);
  } finally {
    gpu.destroy(t.counters);
    gpu.destroy(t.blocks);
  }
}

/** A u32 argument (seed, stream, key word, counter), or a RangeError naming it. */
export function checkU32(name: string, v: number): void {
  if (!Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new RangeError(`${name} must be an integer in [0, 2³²), got ${v}`);
}

function checkKey(key: readonly [number, number]): void {
  checkU32('philox: key[0]', key[0]);
  checkU32('philox: key[1]', key[1]);
}
