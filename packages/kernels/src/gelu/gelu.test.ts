import { describe, expect, it } from 'vitest';
import { testGpu } from '../testing/node-gpu.ts';
import { SeededRandom } from '../util/seeded-random.ts';
import { geluBackwardRef, geluForwardRef, geluRef } from './gelu.ref.ts';
import { geluBackward, geluForward } from './gelu.ts';

const rng = new SeededRandom(31);
const tol = { atol: 1e-6, rtol: 1e-5 };

describe('GELU (tanh approximation)', () => {
  it('forward and backward match the float64 reference, scalar (ragged n) and vec4 (n % 4 = 0)', async () => {
    const gpu = await testGpu();
    for (const n of [1001, 1000]) {
      const x = rng.uniformArray(n, -6, 6);
      const dout = rng.uniformArray(n);
      expect(await geluForward(gpu, x)).toBeAllClose(geluForwardRef(x), { ...tol, name: `gelu n = ${n}` });
      // Near x ≈ −5 the slope (~1e-6) is a difference of two terms that f32 tanh resolves only to
      // ~1e-6, so the backward's tolerance is absolute at 1e-5 (the slope itself is O(1)).
      expect(await geluBackward(gpu, x, dout)).toBeAllClose(geluBackwardRef(x, dout), { atol: 1e-5, rtol: 1e-5, name: `dgelu n = ${n}` });
    }
  });

  it('stays finite and exact for large |x|: gelu(x) → x, gelu(−x) → 0, slope → 1 and 0', async () => {
    const gpu = await testGpu();
    // Seven values take the scalar path, eight the vec4 path.
    for (const extra of [[], [-7]]) {
      const x = new Float32Array([-1e4, -100, -20, 20, 100, 1e4, 0, ...extra]);
      const ones = new Float32Array(x.length).fill(1);
      const out = await geluForward(gpu, x);
      const slope = await geluBackward(gpu, x, ones);
      expect([...out, ...slope].every(Number.isFinite)).toBe(true);
      expect(out).toBeAllClose([0, 0, 0, 20, 100, 1e4, 0, ...extra.map(() => 0)], { atol: 1e-3, rtol: 1e-6 });
      expect(slope).toBeAllClose([0, 0, 0, 1, 1, 1, 0.5, ...extra.map(() => 0)], { atol: 1e-6, rtol: 0 });
    }
  });

  it('the reference derivative matches central finite differences of the reference forward', () => {
    const xs = [-3, -1.2, -0.1, 0, 0.3, 1, 2.5];
    const h = 1e-6;
    const numeric = xs.map((x) => (geluRef(x + h) - geluRef(x - h)) / (2 * h));
    expect(geluBackwardRef(xs, new Array(xs.length).fill(1))).toBeAllClose(numeric, { atol: 1e-8, rtol: 1e-7 });
  });

  it('an empty input gives an empty output; mismatched lengths are refused', async () => {
    const gpu = await testGpu();
    expect((await geluForward(gpu, new Float32Array(0))).length).toBe(0);
    await expect(geluBackward(gpu, new Float32Array(3), new Float32Array(2))).rejects.toThrow(/geluBackward: dout holds 2 values, expected 3/);
  });
});
