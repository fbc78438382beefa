import { afterEach, describe, expect, it } from 'vitest';
import { dawnInstanceFlags, dawnRobustness } from './provider-node.ts';

describe("the Node provider's Dawn flags", () => {
  const saved = process.env.HORIZON_ROBUSTNESS;
  afterEach(() => {
    if (saved === undefined) delete process.env.HORIZON_ROBUSTNESS;
    else process.env.HORIZON_ROBUSTNESS = saved;
  });

  it('turn Dawn’s bounds clamping off by default', () => {
    delete process.env.HORIZON_ROBUSTNESS;
    expect(dawnRobustness()).toBe(false);
    expect(dawnInstanceFlags()).toEqual(['enable-dawn-features=disable_robustness']);
  });

  it('keep it with HORIZON_ROBUSTNESS=on, and only with "on"', () => {
    process.env.HORIZON_ROBUSTNESS = 'on';
    expect(dawnRobustness()).toBe(true);
    expect(dawnInstanceFlags()).toEqual([]);
    process.env.HORIZON_ROBUSTNESS = '1';
    expect(dawnInstanceFlags()).toEqual(['enable-dawn-features=disable_robustness']);
  });
});
