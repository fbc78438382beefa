// The UI-DSL judges on the simulator: the rubric per kind, the planner, honest programs passing both
// judges on train and OOD specs, the padding hack paying only the static judge, τ computed from
// sampled judgings (not asserted), and both judges as Verifiers of a trajectory.

import { describe, expect, it } from 'vitest';
import { checkRubric } from '../../verification/rubric.ts';
import { judgeAgreement } from './judge-agreement.ts';
import { casePlans, JUDGE_CASES } from './judge-cases.ts';
import { InteractiveJudgeVerifier, judgeInteractively, judgeStatically, StaticJudgeVerifier } from './judges.ts';
import { expectedText, planFor } from './planner.ts';
import { SimulatorRenderServer, simulate } from './simulator.ts';
import { honestProgram, UI_SPEC_KINDS, uiSpec } from './spec.ts';
import { uiRubric } from './ui-rubric.ts';

const server = new SimulatorRenderServer();
const byName = (name: string) => {
  const found = JUDGE_CASES.find((c) => c.name === name);
  if (!found) throw new Error(`no judge case "${name}"`);
  return found;
};

describe('the UI-DSL rubric and planner', () => {
  it('has one criterion per Qwen category, weights summing to 1, for every kind', () => {
    for (const kind of UI_SPEC_KINDS) {
      const spec = { ...uiSpec(1, 'train'), kind };
      const rubric = uiRubric(spec);
      checkRubric(rubric);
      expect(new Set(rubric.criteria.map((c) => c.category)).size).toBe(6);
    }
  });

  it('plans by kind and text, so any ids work, and the honest program meets every spec it plans for', async () => {
    const plan = planFor({ kind: 'copy', button: 'Ok', message: '', start: 0, fill: 'tea', clicks: 1 });
    expect(
      plan([
        { id: 'q', kind: 'input', text: '' },
        { id: 'z', kind: 'button', text: 'No' },
        { id: 'w', kind: 'button', text: 'Ok' },
      ]),
    ).toEqual([
      { type: 'fill', id: 'q', text: 'tea' },
      { type: 'click', id: 'w' },
    ]);
    for (let seed = 1; seed <= 60; seed++)
      for (const range of ['train', 'ood'] as const) {
        const spec = uiSpec(seed, range);
        const judgement = await judgeInteractively(spec, honestProgram(spec), server);
        expect(judgement.score, `${range} ${seed}: ${honestProgram(spec)}`).toBeCloseTo(1, 12);
        expect(judgement.correct).toBe(true);
        expect(judgement.trace.steps.at(-1)?.state.some((e) => e.text === expectedText(spec))).toBe(true);
        expect(judgeStatically(spec, honestProgram(spec)).score).toBeCloseTo(1, 12);
      }
  });
});

describe('the judges on the judge cases', () => {
  it('cover every error phase, console output, and both action sequences', () => {
    const traces = JUDGE_CASES.flatMap((c) => casePlans(c).map((p) => simulate(c.program, p.plan)));
    const phases = new Set(traces.flatMap((t) => t.steps.flatMap((s) => s.errors.map((e) => e.phase))));
    expect(phases).toEqual(new Set(['parse', 'render', 'handler', 'action']));
    expect(traces.some((t) => t.steps.some((s) => s.console.length > 0))).toBe(true);
    expect(traces.filter((t) => !t.rendered).length).toBeGreaterThanOrEqual(8);
  });

  it('the static judge is paid by padding that the interactive judge sees through', async () => {
    const hack = byName('set: no handler, the message preset, keywords in a comment');
    expect(judgeStatically(hack.spec, hack.program).correct).toBe(true);
    const interactive = await judgeInteractively(hack.spec, hack.program, server);
    expect(interactive.correct).toBe(false);
    expect(interactive.judging.behaviour).toBe(0);
    const broken = byName('set: unclosed string (never parses)');
    // Statically it loses only the content criterion (its "Go" lost the closing quote): 1 − 19.0/99.4.
    expect(judgeStatically(broken.spec, broken.program).score).toBeCloseTo(1 - 19.0 / 99.4, 12);
    expect((await judgeInteractively(broken.spec, broken.program, server)).score).toBeLessThan(0.2);
  });

  it("measures τ: the sampled judge's τ with itself is computed from its draws, and temperature 0 is the static judge", async () => {
    const cold = await judgeAgreement(JUDGE_CASES, server, { temperature: 0, judgingSeeds: [1, 2] });
    expect(cold.tauSampledVsSampled).toBe(1);
    expect(cold.tauSampledVsInteractive[0]).toBeCloseTo(cold.tauStaticVsInteractive, 12);
    const warm = await judgeAgreement(JUDGE_CASES, server, { temperature: 0.5, judgingSeeds: [1, 2] });
    expect(warm.sampledScores[0]).not.toEqual(warm.sampledScores[1]);
    expect(warm.tauSampledVsSampled).toBeLessThan(1);
    expect(warm.tauSampledVsSampled).toBeGreaterThan(-1);
    const other = await judgeAgreement(JUDGE_CASES, server, { temperature: 0.5, judgingSeeds: [3, 4] });
    expect(other.tauSampledVsSampled).not.toBe(warm.tauSampledVsSampled);
    // The static judge ranks programs unlike the ground truth, and passes some that do not work.
    expect(cold.tauStaticVsInteractive).toBeLessThan(0.9);
    expect(cold.staticFalsePasses).toBeGreaterThan(0);
    expect(cold.correctAgreement).toBeLessThan(JUDGE_CASES.length);
  });

  it('score trajectories as Verifiers, with the spec from info and the program from the last action', async () => {
    const c = byName('count: honest');
    const trajectory = {
      seed: 1,
      prompt: '',
      turns: [{ action: c.program, ending: 'eos' as const, observation: '' }],
      status: 'completed' as const,
      info: { spec: { ...c.spec } },
    };
    const interactive = await new InteractiveJudgeVerifier().score(trajectory);
    expect(interactive.reward).toBeCloseTo(1, 12);
    expect(interactive.info).toMatchObject({ correct: true, server: 'simulator', rendered: true, actions: 2, errors: [] });
    const wrong = await new InteractiveJudgeVerifier().score({ ...trajectory, turns: [{ ...trajectory.turns[0], action: 'B a"+";L c"3"' }] });
    expect(wrong.info.correct).toBe(false);
    expect(new StaticJudgeVerifier().score(trajectory).reward).toBeCloseTo(1, 12);
    await expect(new InteractiveJudgeVerifier().score({ ...trajectory, info: {} })).rejects.toThrow('info.spec');
  });
});
