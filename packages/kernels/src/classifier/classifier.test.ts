import { describe, expect, it } from 'vitest';
import { testGpu } from '../testing/node-gpu.ts';
import { SeededRandom } from '../util/seeded-random.ts';
import { classifierBackwardRef, classifierForwardRef } from './classifier.ref.ts';
import { type ClassifierShape, classifierBackward, classifierForward } from './classifier.ts';

const rng = new SeededRandom(97);

function randomTargets(N: number, V: number): Uint32Array {
  return Uint32Array.from({ length: N }, () => rng.int(0, V - 1));
}

async function checkForwardBackward(shape: ClassifierShape, temperature: number, spread: number, withEntropy = true) {
  const gpu = await testGpu();
  const { N, V } = shape;
  const logits = rng.uniformArray(N * V, -spread, spread);
  const targets = randomTargets(N, V);
  const name = `N=${N} V=${V} τ=${temperature}`;
  const got = await classifierForward(gpu, logits, targets, shape, { temperature });
  const want = classifierForwardRef(logits, targets, shape, temperature);
  expect(got.logp).toBeAllClose(want.logp, { atol: 2e-5, rtol: 1e-5, name: `logp ${name}` });
  expect(got.entropy).toBeAllClose(want.entropy, { atol: 2e-5, rtol: 1e-5, name: `entropy ${name}` });
  expect(got.lse).toBeAllClose(want.lse, { atol: 2e-5, rtol: 1e-5, name: `lse ${name}` });
  const dlogp = rng.uniformArray(N);
  const dentropy = withEntropy ? rng.uniformArray(N) : undefined;
  const dlogits = await classifierBackward(gpu, logits, targets, got, dlogp, dentropy, shape, { temperature });
  const wantD = classifierBackwardRef(logits, targets, dlogp, dentropy, shape, temperature);
  expect(dlogits).toBeAllClose(wantD, { atol: 2e-6, rtol: 1e-4, name: `dlogits ${name}` });
}

describe('fused classifier on the GPU against the float64 reference', () => {
  it('ragged N and V at τ = 1 and τ = 0.6', async () => {
    await checkForwardBackward({ N: 37, V: 13 }, 1, 3);
    await checkForwardBackward({ N: 5, V: 129 }, 0.6, 3);
  });

  it('without the entropy term (the log-prob / cross-entropy variant)', async () => {
    await checkForwardBackward({ N: 19, V: 23 }, 1.3, 2, false);
  });

  it('a single column, and a vocabulary of 50 000 (one row walks it all)', async () => {
    await checkForwardBackward({ N: 4, V: 1 }, 1, 2);
    await checkForwardBackward({ N: 3, V: 50_000 }, 0.8, 6);
  });

  it('stays finite and accurate for nearly one-hot rows (logits/τ spans ±160)', async () => {
    await checkForwardBackward({ N: 9, V: 17 }, 0.5, 80);
  });

  it('uniform logits give entropy log V and logp −log V; a one-hot row gives entropy 0', async () => {
    const gpu = await testGpu();
    const V = 11;
    const logits = new Float32Array(2 * V).fill(2.5);
    for (let j = 0; j < V; j++) logits[V + j] = j === 4 ? 200 : -200;
    const got = await classifierForward(gpu, logits, new Uint32Array([7, 4]), { N: 2, V });
    expect(got.entropy[0]).toBeCloseTo(Math.log(V), 5);
    expect(got.logp[0]).toBeCloseTo(-Math.log(V), 5);
    expect(got.entropy[1]).toBe(0);
    expect(got.logp[1]).toBe(0);
  });

  it('each row of dlogits sums to zero (softmax gradients are orthogonal to shifts)', async () => {
    const gpu = await testGpu();
    const shape = { N: 6, V: 21 };
    const logits = rng.uniformArray(6 * 21, -4, 4);
    const targets = randomTargets(6, 21);
    const fwd = await classifierForward(gpu, logits, targets, shape, { temperature: 0.7 });
    const d = await classifierBackward(gpu, logits, targets, fwd, rng.uniformArray(6), rng.uniformArray(6), shape, { temperature: 0.7 });
    for (let i = 0; i < 6; i++) {
      const row = d.subarray(i * 21, (i + 1) * 21);
      expect(Math.abs(row.reduce((s, x) => s + x, 0))).toBeLessThan(1e-6);
      expect(row.some((x) => Math.abs(x) > 1e-3)).toBe(true);
    }
  });

  it('rejects bad temperatures, out-of-range targets, non-finite logits and mismatched lengths', async () => {
    const gpu = await testGpu();
    const shape = { N: 2, V: 3 };
    const logits = new Float32Array(6);
    const targets = new Uint32Array([0, 2]);
    await expect(classifierForward(gpu, logits, targets, shape, { temperature: 0 })).rejects.toThrow(/temperature must be a finite number > 0/);
    await expect(classifierForward(gpu, logits, targets, shape, { temperature: Number.NaN })).rejects.toThrow(/temperature/);
    await expect(classifierForward(gpu, logits, new Uint32Array([0, 3]), shape)).rejects.toThrow(/targets\[1\] = 3 is not below V = 3/);
    await expect(classifierForward(gpu, Float32Array.of(0, 0, Number.NaN, 0, 0, 0), targets, shape)).rejects.toThrow(/logits\[2\] = NaN/);
    await expect(classifierForward(gpu, new Float32Array(5), targets, shape)).rejects.toThrow(/logits must hold N·V = 6/);
    const saved = { lse: new Float32Array(2), entropy: new Float32Array(2) };
    await expect(classifierBackward(gpu, logits, targets, saved, new Float32Array(3), undefined, shape)).rejects.toThrow(/dlogp must hold 2/);
  });
});

describe('the classifier reference backward against finite differences of its forward', () => {
  for (const temperature of [1, 0.45, 2.5]) {
    it(`τ = ${temperature}: ∂(Σ a·logp + b·H)/∂logits`, () => {
      const shape = { N: 3, V: 7 };
      const logits = Float64Array.from(rng.uniformArray(21, -2, 2));
      const targets = randomTargets(3, 7);
      const a = Float64Array.from(rng.uniformArray(3));
      const b = Float64Array.from(rng.uniformArray(3));
      const loss = (x: Float64Array) => {
        const f = classifierForwardRef(x, targets, shape, temperature);
        let s = 0;
        for (let i = 0; i < 3; i++) s += a[i] * f.logp[i] + b[i] * f.entropy[i];
        return s;
      };
      const numeric = new Float64Array(21);
      const eps = 1e-6;
      for (let k = 0; k < 21; k++) {
        const plus = logits.slice();
        const minus = logits.slice();
        plus[k] += eps;
        minus[k] -= eps;
        numeric[k] = (loss(plus) - loss(minus)) / (2 * eps);
      }
      expect(classifierBackwardRef(logits, targets, a, b, shape, temperature)).toBeAllClose(numeric, { atol: 1e-8, rtol: 1e-6 });
    });
  }
});
