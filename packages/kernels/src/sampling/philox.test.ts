import { describe, expect, it } from 'vitest';
import { testGpu } from '../testing/node-gpu.ts';
import { SeededRandom } from '../util/seeded-random.ts';
import { mulhi32, philox4x32, philoxBlocks, samplingUniform, uniformFromBits } from './philox.ts';

const rng = new SeededRandom(2024);
const randomU32 = () => Math.floor(rng.next() * 2 ** 32) >>> 0;

describe('Philox4x32-10 in TypeScript', () => {
  it('reproduces the Random123 known-answer vectors (tests/kat_vectors, "philox4x32 10")', () => {
    const hex = (a: Uint32Array) => Array.from(a, (x) => x.toString(16).padStart(8, '0')).join(' ');
    expect(hex(philox4x32([0, 0, 0, 0], [0, 0]))).toBe('6627e8d5 e169c58d bc57ac4c 9b00dbd8');
    const ones = 0xffffffff;
    expect(hex(philox4x32([ones, ones, ones, ones], [ones, ones]))).toBe('408f276d 41c83b0e a20bc7c6 6d5451fd');
    expect(hex(philox4x32([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0]))).toBe('d16cfe09 94fdcceb 5001e420 24126ea1');
  });

  it('mulhi32 equals the high word of the exact 64-bit product', () => {
    const pairs: [number, number][] = [
      [0xffffffff, 0xffffffff],
      [0xffffffff, 1],
      [0x10000, 0x10000],
      [0, 0xdeadbeef],
    ];
    for (let i = 0; i < 2000; i++) pairs.push([randomU32(), randomU32()]);
    for (const [a, b] of pairs) expect(mulhi32(a, b)).toBe(Number((BigInt(a) * BigInt(b)) >> 32n));
  });

  it('uniforms lie in [0, 1) with 24-bit resolution', () => {
    expect(uniformFromBits(0)).toBe(0);
    expect(uniformFromBits(0xffffffff)).toBe(1 - 2 ** -24);
    expect(uniformFromBits(0x80000000)).toBe(0.5);
    let sum = 0;
    for (let c = 0; c < 4000; c++) sum += samplingUniform(7, 0, c, 0);
    expect(sum / 4000).toBeGreaterThan(0.48);
    expect(sum / 4000).toBeLessThan(0.52);
  });
});

describe('Philox4x32-10 in WGSL against TypeScript', () => {
  it('agrees word for word on 4096 random counters under three keys, and at the counter edges', async () => {
    const gpu = await testGpu();
    const n = 4096;
    const counters = new Uint32Array(4 * n);
    for (let i = 0; i < counters.length; i++) counters[i] = randomU32();
    counters.set([0, 0, 0, 0, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xfffffffe, 0, 1, 0x80000000]);
    for (const key of [
      [0, 0],
      [0xffffffff, 0xffffffff],
      [randomU32(), randomU32()],
    ] as [number, number][]) {
      const got = await philoxBlocks(gpu, counters, key);
      const want = new Uint32Array(4 * n);
      for (let i = 0; i < n; i++) want.set(philox4x32(counters.subarray(4 * i, 4 * i + 4), key), 4 * i);
      const firstDiff = got.findIndex((x, i) => x !== want[i]);
      expect(firstDiff, `key ${key}: first differing word`).toBe(-1);
    }
  });

  it('rejects keys that are not u32 and counters that are not whole blocks', async () => {
    const gpu = await testGpu();
    await expect(philoxBlocks(gpu, new Uint32Array(4), [2 ** 32, 0])).rejects.toThrow(/key\[0\] must be an integer in \[0, 2³²\)/);
    await expect(philoxBlocks(gpu, new Uint32Array(6), [0, 0])).rejects.toThrow(/multiple of 4 words/);
  });
});
