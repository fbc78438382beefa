import { describe, expect, it } from 'vitest';
import { testGpu } from '../../testing/node-gpu.ts';
import { SeededRandom } from '../../util/seeded-random.ts';
import { opdRef, opidRef } from './distill.ref.ts';
import { opdAdvantages, opidAdvantages } from './distill.ts';

const rng = new SeededRandom(101);
const B = 4;
const T = 93;
const N = B * T;
const mask = () => Uint32Array.from({ length: N }, () => (rng.next() < 0.7 ? 1 : 0));

describe('distillation advantages', () => {
  it('OPD: GPU matches the reference, with and without a base advantage', async () => {
    const gpu = await testGpu();
    const c = { studentLogp: rng.uniformArray(N, -5, 0), teacherLogp: rng.uniformArray(N, -5, 0), mask: mask(), advantages: rng.uniformArray(N) };
    for (const advantages of [c.advantages, undefined]) {
      const inputs = { ...c, ...(advantages ? { advantages } : { advantages: undefined }) };
      const got = await opdAdvantages(gpu, advantages ? c : { studentLogp: c.studentLogp, teacherLogp: c.teacherLogp, mask: c.mask }, { B, T, coef: 0.7 });
      const want = opdRef(inputs, 0.7);
      expect(got.advantages).toBeAllClose(want.advantages, { atol: 1e-6, rtol: 1e-6 });
      expect(got.reverseKl).toBeAllClose(want.reverseKl, { atol: 1e-6, rtol: 1e-6 });
    }
  });

  it('OPD: padded positions stay 0 whatever the teacher scored there (trl#7024)', async () => {
    const gpu = await testGpu();
    const got = await opdAdvantages(
      gpu,
      { studentLogp: Float32Array.of(-1, -1, -1), teacherLogp: Float32Array.of(-2, 1e6, -1e6), mask: Uint32Array.of(1, 0, 0) },
      { B: 1, T: 3 },
    );
    expect(Array.from(got.advantages)).toEqual([-1, 0, 0]);
  });

  it('OPID: GPU matches the reference, and q = 0 removes the skill term', async () => {
    const gpu = await testGpu();
    const c = {
      episodeAdvantages: rng.uniformArray(N),
      augmentedLogp: rng.uniformArray(N, -5, 0),
      originalLogp: rng.uniformArray(N, -5, 0),
      mask: mask(),
      skillWeight: Float32Array.of(1, 0, 1, 0.5),
    };
    const got = await opidAdvantages(gpu, c, { B, T, weight: 0.1 });
    const want = opidRef(c, T, 0.1);
    expect(got.advantages).toBeAllClose(want.advantages, { atol: 1e-6, rtol: 1e-6 });
    expect(got.delta).toBeAllClose(want.delta, { atol: 1e-6, rtol: 1e-6 });
    expect(got.delta.subarray(T, 2 * T).every((d) => d === 0)).toBe(true);
  });

  it('OPID: Δ = 0 exactly with an empty skill (augmented context = original context)', async () => {
    const gpu = await testGpu();
    const originalLogp = rng.uniformArray(N, -5, 0);
    const episodeAdvantages = rng.uniformArray(N);
    const m = mask();
    const got = await opidAdvantages(gpu, { episodeAdvantages, augmentedLogp: originalLogp.slice(), originalLogp, mask: m }, { B, T, weight: 1e-3 });
    expect(got.delta.every((d) => d === 0)).toBe(true);
    expect(Array.from(got.advantages)).toEqual(Array.from(episodeAdvantages, (a, i) => (m[i] ? a : 0)));
  });

  it('bad input throws a RangeError naming the argument', async () => {
    const gpu = await testGpu();
    const two = new Float32Array(2);
    await expect(opdAdvantages(gpu, { studentLogp: two, teacherLogp: two, mask: Uint32Array.of(1, 1) }, { B: 1, T: 2, coef: -1 })).rejects.toThrow(/coef/);
    await expect(
      opdAdvantages(gpu, { studentLogp: two, teacherLogp: Float32Array.of(0, Number.NaN), mask: Uint32Array.of(1, 1) }, { B: 1, T: 2 }),
    ).rejects.toThrow(/teacherLogp\[1\] is NaN/);
    await expect(
      opidAdvantages(
        gpu,
        { episodeAdvantages: two, augmentedLogp: two, originalLogp: two, mask: Uint32Array.of(1, 1), skillWeight: new Float32Array(2) },
        { B: 1, T: 2, weight: 1 },
      ),
    ).rejects.toThrow(/skillWeight holds 2/);
    await expect(
      opidAdvantages(
        gpu,
        { episodeAdvantages: two, augmentedLogp: two, originalLogp: two, mask: Uint32Array.of(1, 1) },
        { B: 1, T: 2, weight: Number.POSITIVE_INFINITY },
      ),
    ).rejects.toThrow(/weight/);
  });
});
