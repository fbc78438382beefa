// The walkthrough's numbers come from the GAE kernel: compared here, on Dawn, with the float64
// reference; δ (the λ = 0 row) against the reference's own δ; and the skip of observation tokens.

import { gaeRef } from '@horizon/kernels';
import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';
import { checkGaeRequest, computeWalkthrough } from './gae-walkthrough.ts';
import { WALKTHROUGH_T, WALKTHROUGH_TOKENS, walkthroughInputs } from './trajectory.ts';

const T = WALKTHROUGH_T;

function reference(gamma: number, lambda: number, outcome: number, values?: Float32Array) {
  const x = walkthroughInputs(outcome);
  return gaeRef({ ...x, values: values ?? x.values }, { B: 1, T, gamma, lambda: [lambda] });
}

describe('GAE walkthrough', () => {
  it('matches the float64 reference on the GPU for several γ, λ and both outcomes', async () => {
    const gpu = await testGpu();
    for (const [gamma, lambda, outcome] of [
      [1, 0.95, 1],
      [0.9, 0, 1],
      [0.97, 1, 0],
      [0.5, 0.37, 1],
    ]) {
      const answer = await computeWalkthrough(gpu, { gamma, lambda, outcome }, 'test device');
      const ref = reference(gamma, lambda, outcome);
      expect(answer.computedOn).toBe('gpu');
      expect(answer.advantages).toBeAllClose(ref.advantages, { atol: 1e-6, rtol: 1e-5 });
      expect(answer.returns).toBeAllClose(ref.returns, { atol: 1e-6, rtol: 1e-5 });
      expect(answer.deltas).toBeAllClose(ref.deltas, { atol: 1e-6, rtol: 1e-5 });
    }
  });

  it('puts the outcome on the last action token and skips observation values', async () => {
    const gpu = await testGpu();
    const answer = await computeWalkthrough(gpu, { gamma: 1, lambda: 1, outcome: 1 }, 'test device');
    expect(answer.rewards.indexOf(1)).toBe(T - 1);
    expect(WALKTHROUGH_TOKENS[T - 1].text).toBe('<eos>');
    // λ = γ = 1 and a terminal reward of 1: every action token's return is the outcome (MC return).
    for (const [t, m] of answer.actionMask.entries()) expect(answer.returns[t]).toBeCloseTo(m ? 1 : 0, 6);
    // Changing the values on non-action tokens must not move any advantage.
    const changed = walkthroughInputs(1).values.map((v, t) => (WALKTHROUGH_TOKENS[t].role === 'action' ? v : -50));
    expect(reference(1, 0.95, 1, changed).advantages).toEqual(reference(1, 0.95, 1).advantages);
    expect(answer.advantages.filter((_, t) => !answer.actionMask[t]).every((a) => a === 0)).toBe(true);
  });

  it('falls back to the float64 reference without a device, and says so', async () => {
    const answer = await computeWalkthrough(null, { gamma: 0.99, lambda: 0.5, outcome: 1 }, 'no WebGPU');
    expect(answer.computedOn).toBe('cpu');
    expect(answer.deviceLine).toBe('no WebGPU');
    expect(answer.advantages).toBeAllClose(reference(0.99, 0.5, 1).advantages, { atol: 1e-12 });
  });

  it('refuses out-of-range sliders and outcomes, naming the argument', () => {
    expect(() => checkGaeRequest({ gamma: 1.2, lambda: 0.5, outcome: 1 })).toThrow(/gamma must be in \[0, 1\], got 1.2/);
    expect(() => checkGaeRequest({ gamma: 1, lambda: Number.NaN, outcome: 1 })).toThrow(/lambda must be in \[0, 1\], got NaN/);
    expect(() => checkGaeRequest({ gamma: 1, lambda: 0.5, outcome: 0.5 })).toThrow(/outcome must be 0 or 1/);
    expect(() => walkthroughInputs(Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});
