import { describe, expect, it } from 'vitest';
import { testGpu } from '../../testing/node-gpu.ts';
import { SeededRandom } from '../../util/seeded-random.ts';
import { gaeRef } from './gae.ref.ts';
import { gae, lengthAdaptiveLambda, placeOutcomeRewards } from './gae.ts';
import type { GaeVariant } from './gae.wgsl.ts';

const rng = new SeededRandom(23);
const VARIANTS: GaeVariant[] = ['loop', 'scan'];

/** Agent-like rows: runs of action tokens separated by observation runs, a prompt, right padding. */
function agentMask(B: number, T: number): Uint32Array {
  const mask = new Uint32Array(B * T);
  for (let b = 0; b < B; b++) {
    const length = rng.int(0, T);
    let t = rng.int(0, Math.min(3, T)); // prompt
    while (t < length) {
      const act = rng.int(1, 9);
      for (let k = 0; k < act && t < length; k++, t++) mask[b * T + t] = 1;
      t += rng.int(0, 6); // observation
    }
  }
  return mask;
}

function randomCase(B: number, T: number) {
  return {
    rewards: rng.uniformArray(B * T, -1, 1),
    values: rng.uniformArray(B * T, -1, 1),
    actionMask: agentMask(B, T),
    bootstrap: rng.uniformArray(B, -1, 1),
    terminal: Uint32Array.from({ length: B }, () => (rng.next() < 0.5 ? 1 : 0)),
    tokensAfter: Uint32Array.from({ length: B }, () => (rng.next() < 0.5 ? 0 : rng.int(1, 40))),
    lambda: rng.uniformArray(B, 0.5, 1),
    lambdaCritic: Float32Array.from({ length: B }, () => (rng.next() < 0.5 ? 1 : rng.next())),
  };
}

describe('GAE on the GPU against the float64 reference', () => {
  for (const variant of VARIANTS) {
    it(`${variant}: agent masks, truncation, per-sample and decoupled λ, compaction factor`, async () => {
      const gpu = await testGpu();
      for (const [B, T] of [
        [5, 37],
        [3, 200],
        [2, 131],
      ]) {
        const c = randomCase(B, T);
        const options = { B, T, gamma: 0.97, lambda: c.lambda, lambdaCritic: c.lambdaCritic, terminal: c.terminal, tokensAfter: c.tokensAfter };
        const got = await gae(gpu, c, { ...options, variant });
        const want = gaeRef(c, options);
        expect(got.advantages).toBeAllClose(want.advantages, { atol: 1e-5, rtol: 1e-5, name: `${variant} A ${B}×${T}` });
        expect(got.returns).toBeAllClose(want.returns, { atol: 1e-5, rtol: 1e-5, name: `${variant} R ${B}×${T}` });
      }
    });
  }

  it('scan matches loop on long sequences (chunk boundaries inside observation runs)', async () => {
    const gpu = await testGpu();
    const B = 3;
    const T = 1000;
    const c = randomCase(B, T);
    const options = { B, T, gamma: 1, lambda: c.lambda, lambdaCritic: new Float32Array(B).fill(1), terminal: c.terminal };
    const loop = await gae(gpu, c, { ...options, variant: 'loop' });
    const scan = await gae(gpu, c, { ...options, variant: 'scan' });
    // With γ = λ_c = 1 the critic accumulator is a running sum of up to 1000 rewards (|·| ≈ 30), and
    // R̂ = A^c + V cancels most of it: both forms round at the accumulator's scale, so the tolerance
    // is 1e-6 of that scale (measured: 6e-6 absolute at scale 30, i.e. 2e-7 of it).
    const want = gaeRef(c, options);
    let scale = 1;
    for (let i = 0; i < B * T; i++) if (c.actionMask[i]) scale = Math.max(scale, Math.abs(want.returns[i] - c.values[i]), Math.abs(want.advantages[i]));
    expect(scan.advantages).toBeAllClose(loop.advantages, { atol: 1e-6 * scale, rtol: 0, name: 'A scan vs loop' });
    expect(scan.returns).toBeAllClose(loop.returns, { atol: 1e-6 * scale, rtol: 0, name: 'R scan vs loop' });
    expect(scan.returns).toBeAllClose(want.returns, { atol: 1e-6 * scale, rtol: 0, name: 'R scan vs float64' });
  });

  it('the reward before a tool observation reaches the action in front of it (verl PR #6376 case)', async () => {
    const gpu = await testGpu();
    for (const variant of VARIANTS) {
      const got = await gae(
        gpu,
        { rewards: Float32Array.of(0, 0, 1), values: new Float32Array(3), actionMask: Uint32Array.of(1, 0, 1) },
        { B: 1, T: 3, gamma: 0.5, lambda: 1, variant },
      );
      expect(Array.from(got.advantages)).toEqual([0.5, 0, 1]);
    }
  });

  it('γ = λ = 1 with one outcome reward: returns are the reward everywhere, advantages R − V', async () => {
    const gpu = await testGpu();
    const B = 2;
    const T = 9;
    const actionMask = Uint32Array.of(0, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 1, 0, 1, 1);
    const rewards = placeOutcomeRewards([1, -0.5], actionMask, B, T);
    expect(rewards[7]).toBe(1); // last action token, not the trailing observation
    const values = rng.uniformArray(B * T);
    for (const variant of VARIANTS) {
      const got = await gae(gpu, { rewards, values, actionMask }, { B, T, gamma: 1, lambda: 1, variant });
      for (let i = 0; i < B * T; i++) {
        const R = i < T ? 1 : -0.5;
        expect(got.returns[i]).toBeCloseTo(actionMask[i] ? R : 0, 6);
        expect(got.advantages[i]).toBeCloseTo(actionMask[i] ? R - values[i] : 0, 6);
      }
    }
  });

  it('observation invariance: values on observations and rewards before the first action change nothing, bit for bit', async () => {
    const gpu = await testGpu();
    const B = 4;
    const T = 300;
    const c = randomCase(B, T);
    const options = { B, T, gamma: 0.99, lambda: c.lambda, lambdaCritic: c.lambdaCritic, terminal: c.terminal, tokensAfter: c.tokensAfter };
    const noisy = { ...c, values: c.values.slice(), rewards: c.rewards.slice() };
    for (let b = 0; b < B; b++) {
      let seenAction = false;
      for (let t = 0; t < T; t++) {
        const i = b * T + t;
        if (c.actionMask[i]) seenAction = true;
        else {
          noisy.values[i] = (rng.next() - 0.5) * 1e6;
          if (!seenAction) noisy.rewards[i] = (rng.next() - 0.5) * 1e6;
        }
      }
    }
    for (const variant of VARIANTS) {
      const a = await gae(gpu, c, { ...options, variant });
      const b = await gae(gpu, noisy, { ...options, variant });
      expect(Array.from(b.advantages)).toEqual(Array.from(a.advantages));
      expect(Array.from(b.returns)).toEqual(Array.from(a.returns));
    }
  });

  it('a reward on an observation equals the same reward on the action token before it (bit for bit in the loop form)', async () => {
    const gpu = await testGpu();
    const T = 12;
    const actionMask = Uint32Array.of(1, 1, 0, 0, 1, 1, 1, 0, 1, 0, 0, 0);
    const values = rng.uniformArray(T);
    const onObservation = rng.uniformArray(T).map((x, i) => (actionMask[i] ? x : 0));
    onObservation[3] = 0.375; // observation after action 1
    onObservation[10] = -1.25; // trailing observation after the last action
    const moved = onObservation.slice();
    moved[1] += moved[3];
    moved[3] = 0;
    moved[8] += moved[10];
    moved[10] = 0;
    for (const variant of VARIANTS) {
      const a = await gae(gpu, { rewards: onObservation, values, actionMask }, { B: 1, T, gamma: 0.9, lambda: 0.8, variant });
      const b = await gae(gpu, { rewards: moved, values, actionMask }, { B: 1, T, gamma: 0.9, lambda: 0.8, variant });
      if (variant === 'loop') expect(Array.from(a.advantages)).toEqual(Array.from(b.advantages));
      else expect(a.advantages).toBeAllClose(b.advantages, { atol: 1e-6 });
    }
  });

  it('truncated samples bootstrap, terminal samples do not', async () => {
    const gpu = await testGpu();
    const common = { rewards: Float32Array.of(0, 1), values: Float32Array.of(0.25, 0.5), actionMask: Uint32Array.of(1, 1), bootstrap: Float32Array.of(2) };
    const truncated = await gae(gpu, common, { B: 1, T: 2, gamma: 0.5, lambda: 1, terminal: [0] });
    const terminal = await gae(gpu, common, { B: 1, T: 2, gamma: 0.5, lambda: 1, terminal: [1] });
    // δ_1 = 1 + 0.5·2 − 0.5 = 1.5 (truncated), 1 − 0.5 = 0.5 (terminal)
    expect(truncated.advantages[1]).toBeCloseTo(1.5, 6);
    expect(terminal.advantages[1]).toBeCloseTo(0.5, 6);
  });

  it('compaction: segments scaled by (γλ)^{tokens after} match the uncut trajectory (CompactionRL eq. 15)', async () => {
    const gpu = await testGpu();
    // One rollout of 10 action tokens, V = 0, reward 1 at the end; cut into 6 + 4 tokens, each
    // segment getting the full reward on its last token and bootstrap 0 at its end.
    const lam = 0.9;
    const whole = await gae(
      gpu,
      { rewards: Float32Array.from({ length: 10 }, (_, t) => (t === 9 ? 1 : 0)), values: new Float32Array(10), actionMask: new Uint32Array(10).fill(1) },
      { B: 1, T: 10, gamma: 1, lambda: lam },
    );
    const rewards = new Float32Array(20);
    rewards[5] = 1;
    rewards[13] = 1;
    const actionMask = Uint32Array.from({ length: 20 }, (_, i) => (i < 6 || (i >= 10 && i < 14) ? 1 : 0));
    const split = await gae(gpu, { rewards, values: new Float32Array(20), actionMask }, { B: 2, T: 10, gamma: 1, lambda: lam, tokensAfter: [4, 0] });
    const stitched = [...split.advantages.slice(0, 6), ...split.advantages.slice(10, 14)];
    expect(stitched).toBeAllClose(whole.advantages, { atol: 1e-6 });
    // Critic targets stay local: the first segment's return is its own reward.
    expect(split.returns[0]).toBeCloseTo(lam ** 5, 6);
  });

  it('edge shapes: no samples, one token, all-masked rows', async () => {
    const gpu = await testGpu();
    const empty = await gae(
      gpu,
      { rewards: new Float32Array(0), values: new Float32Array(0), actionMask: new Uint32Array(0) },
      { B: 0, T: 5, gamma: 1, lambda: 1 },
    );
    expect(empty.advantages.length).toBe(0);
    for (const variant of VARIANTS) {
      const one = await gae(
        gpu,
        { rewards: Float32Array.of(2), values: Float32Array.of(0.5), actionMask: Uint32Array.of(1) },
        { B: 1, T: 1, gamma: 1, lambda: 1, variant },
      );
      expect(Array.from(one.advantages)).toEqual([1.5]);
      const masked = await gae(
        gpu,
        { rewards: new Float32Array(8).fill(3), values: new Float32Array(8).fill(1), actionMask: new Uint32Array(8) },
        { B: 2, T: 4, gamma: 1, lambda: 1, variant },
      );
      expect(Array.from(masked.advantages)).toEqual(Array(8).fill(0));
      expect(Array.from(masked.returns)).toEqual(Array(8).fill(0));
    }
  });

  it('length-adaptive λ = 1 − 1/(α·l), clipped to [0, 1]', () => {
    expect(Array.from(lengthAdaptiveLambda([0, 1, 2, 100], 1.5))).toEqual([0, Math.fround(1 / 3), Math.fround(2 / 3), Math.fround(1 - 1 / 150)]);
    expect(lengthAdaptiveLambda([10], 0.05)[0]).toBe(0); // VAPO's α on a short sample clips at 0
    expect(() => lengthAdaptiveLambda([3], 0)).toThrow(/alpha/);
  });

  it('bad input throws a RangeError naming the argument', async () => {
    const gpu = await testGpu();
    const ok = { rewards: new Float32Array(4), values: new Float32Array(4), actionMask: new Uint32Array(4).fill(1) };
    const shape = { B: 2, T: 2, gamma: 1, lambda: 1 };
    await expect(gae(gpu, ok, { ...shape, lambda: 1.5 })).rejects.toThrow(/lambda must be a finite number in \[0, 1\]/);
    await expect(gae(gpu, ok, { ...shape, lambda: [0.5, -0.1] })).rejects.toThrow(/lambda\[1\]/);
    await expect(gae(gpu, ok, { ...shape, lambdaCritic: Number.NaN })).rejects.toThrow(/lambdaCritic/);
    await expect(gae(gpu, ok, { ...shape, gamma: -0.1 })).rejects.toThrow(/gamma/);
    await expect(gae(gpu, { ...ok, rewards: Float32Array.of(0, Number.NaN, 0, 0) }, shape)).rejects.toThrow(/rewards\[1\] is NaN/);
    await expect(gae(gpu, { ...ok, values: new Float32Array(5) }, shape)).rejects.toThrow(/values holds 5 values, expected 4/);
    await expect(gae(gpu, ok, { ...shape, B: -1 })).rejects.toThrow(/B must be a non-negative integer/);
    await expect(gae(gpu, ok, { ...shape, tokensAfter: [1, -2] })).rejects.toThrow(/tokensAfter\[1\]/);
    await expect(gae(gpu, ok, { ...shape, terminal: [1, 7] })).rejects.toThrow(/terminal\[1\] is 7/);
    expect(() => placeOutcomeRewards([1], [0, 0], 1, 2)).toThrow(/no action token/);
  });
});
