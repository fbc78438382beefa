// The cost estimate from pilot timings and the refusal to go over budget, on a planned report.

import { describe, expect, it } from 'vitest';
import { budgetRefusal, estimate, type PilotTimings } from './budget.ts';
import { planRuns } from './plan.ts';
import { multiTeacherOpd } from './reports/multi-teacher-opd.ts';
import { ppoGrpoRlooSft } from './reports/ppo-grpo-rloo-sft.ts';

const runs = planRuns(ppoGrpoRlooSft, '/nowhere');
const timings: PilotTimings = {
  sftStepSeconds: 0.1,
  arms: {
    ppo: { iterationSeconds: 2, evalSeconds: 1 },
    grpo: { iterationSeconds: 1, evalSeconds: 1 },
    rloo: { iterationSeconds: 1, evalSeconds: 1 },
    'sft-only': { iterationSeconds: 0, evalSeconds: 1 },
  },
};

describe('estimate', () => {
  it('adds iterations × time, evaluations, SFT-only steps and the warm starts still to train', () => {
    const seed1 = runs.filter((r) => r.seed === 1);
    // 60 iterations, eval every 10: 7 evaluations each.
    // ppo 60·2 + 7 = 127; grpo 67; rloo 67; sft-only 1800·0.1 + 7 = 187; one warm start 600·0.1 = 60.
    const e = estimate(seed1, seed1.slice(0, 1), timings, false);
    expect(e.minutes * 60).toBeCloseTo(127 + 67 + 67 + 187 + 60, 9);
    expect(e.lines).toHaveLength(5);
    expect(e.lines[0]).toMatch(/warm start seed 1: 600 SFT steps/);
    expect(e.lines[1]).toBe('ppo seed 1 ≈ 127 s (60 iterations × 2.0 s, 7 evaluations × 1 s)');
  });

  it('counts only what is passed as pending: finished runs cost nothing', () => {
    expect(estimate([], [], timings, false).minutes).toBe(0);
  });

  it('adds half an iteration per evaluation for the group probe', () => {
    const grpo = runs.filter((r) => r.arm.name === 'grpo' && r.seed === 1);
    expect((estimate(grpo, [], timings, true).minutes - estimate(grpo, [], timings, false).minutes) * 60).toBeCloseTo(7 * 0.5, 9);
  });

  it('prices an expert-sft arm at the distilled arm’s optimizer steps', () => {
    const [sft] = planRuns(multiTeacherOpd, '/nowhere').filter((r) => r.arm.kind === 'expert-sft');
    // 40 iterations × 4 epochs × 2 minibatches = 320 supervised steps; eval every 10: 5 evaluations.
    const e = estimate([sft], [], { sftStepSeconds: 0.1, arms: { 'expert-sft': { iterationSeconds: 0, evalSeconds: 2 } } }, false);
    expect(e.minutes * 60).toBeCloseTo(320 * 0.1 + 5 * 2, 9);
  });

  it('refuses an arm the pilot did not time', () => {
    expect(() => estimate(runs, [], { sftStepSeconds: 0.1, arms: {} }, false)).toThrow(/did not time arm ppo/);
  });
});

describe('budgetRefusal', () => {
  it('accepts an estimate within the declared budget', () => {
    expect(budgetRefusal(24.9, 25, undefined)).toBeUndefined();
    expect(budgetRefusal(25, 25, undefined)).toBeUndefined();
  });

  it('refuses over the declared budget, saying the estimate and the flag that allows it', () => {
    const message = budgetRefusal(31.2, 25, undefined);
    expect(message).toMatch(/estimated at 31\.2 min/);
    expect(message).toMatch(/declared budget of 25 min/);
    expect(message).toMatch(/--budget 32/);
  });

  it('--budget replaces the declared figure, both ways', () => {
    expect(budgetRefusal(31.2, 25, 40)).toBeUndefined();
    expect(budgetRefusal(20, 25, 10)).toMatch(/over --budget 10/);
  });
});
