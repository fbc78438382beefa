// The genac report's fairness, beyond the protocol every report keeps (reports.test.ts): the
// discriminative critic arm sees the same rollouts as the generative one (prompts × group size,
// minibatches, epochs) and is fitted to Monte-Carlo returns of them (γ = 1, λ_critic = 1), with the
// actor frozen for as many iterations as GenAC's critic-only phases; the critics are compared by the
// critic probe.

import { describe, expect, it } from 'vitest';
import { planRuns } from './plan.ts';
import { genacReport } from './reports/genac.ts';

const runs = planRuns(genacReport, '/runs').filter((r) => r.seed === genacReport.seeds[0]);
const recipeOf = (arm: string) => {
  const run = runs.find((r) => r.arm.name === arm);
  if (!run) throw new Error(`the genac report declares arm ${arm}`);
  return run.recipe;
};

describe('genac report', () => {
  const generative = recipeOf('genac');
  const discriminative = recipeOf('ppo-mc');

  it('gives the discriminative critic the same rollouts and Monte-Carlo targets as the generative one', () => {
    expect(generative.rl.algorithm).toBe('genac');
    expect(discriminative.rl.algorithm).toBe('ppo');
    for (const field of ['promptsPerIteration', 'groupSize', 'minibatches', 'epochs', 'iterations', 'gamma', 'klPlacement', 'klCoef'] as const)
      expect(discriminative.rl[field], field).toBe(generative.rl[field]);
    expect(discriminative.rl.gamma).toBe(1);
    expect(discriminative.rl.lambdaCritic).toBe(1);
  });

  it('freezes both actors for the same iterations while their critics learn', () => {
    expect(discriminative.rl.criticWarmupSteps).toBe(generative.genac.sftIterations + generative.genac.reinforceIterations);
    expect(discriminative.rl.criticWarmupTarget).toBe(1); // a fixed count, not VC-PPO's early end
    expect(discriminative.rl.criticWarmupSteps).toBeLessThan(generative.rl.iterations);
  });

  it('probes the critics and compares them on value error (lower) and ranking (higher)', () => {
    expect(genacReport.probes).toContain('critic');
    const onCritic = genacReport.comparisons.filter((c) => c.metric);
    expect(onCritic).toContainEqual(expect.objectContaining({ arm: 'genac', against: 'ppo-mc', metric: 'critic-value-error', direction: 'lower' }));
    expect(onCritic).toContainEqual(expect.objectContaining({ arm: 'genac', against: 'ppo-mc', metric: 'critic-ranking', direction: 'higher' }));
  });
});
