// The two UI-DSL judges as Verifiers (envs/verifier.ts), scoring the episode's last action — the
// program — against the rubric of the spec the environment put in info (ui-rubric.ts):
//   interactive  the planner (planner.ts) writes actions from the spec and the render, a render
//                server runs them, and each criterion is answered from the recorded trace;
//   static       each criterion is answered by counting its keywords in the program text.
// Reward is the rubric score in [0, 1]; `correct` is the best answer on the SUCCESS_CRITERIA. The
// interactive judge is the ground truth the static one is measured against (judge-agreement.ts):
// it can be fooled only by a program that really does what the spec asks of the hidden inputs.

import { type Judging, rubricScore } from '../../verification/rubric.ts';
import { sampledStaticJudging, staticJudging } from '../../verification/static-judge.ts';
import type { Info, JsonValue } from '../environment.ts';
import type { Trajectory, Verification, Verifier } from '../verifier.ts';
import { planFor } from './planner.ts';
import type { RenderServer, RenderTrace } from './render.ts';
import { SimulatorRenderServer } from './simulator.ts';
import { UI_SPEC_KINDS, type UiSpec } from './spec.ts';
import { SUCCESS_CRITERIA, uiRubric } from './ui-rubric.ts';

export interface UiJudgement {
  score: number;
  judging: Judging;
  correct: boolean;
}

function judged(spec: UiSpec, judging: Judging): UiJudgement {
  const rubric = uiRubric(spec);
  const correct = SUCCESS_CRITERIA.every((name) => {
    const criterion = rubric.criteria.find((c) => c.name === name);
    return criterion !== undefined && judging[name] === criterion.choices.length - 1;
  });
  return { score: rubricScore(rubric, judging), judging, correct };
}

export async function judgeInteractively(spec: UiSpec, program: string, server: RenderServer): Promise<UiJudgement & { trace: RenderTrace }> {
  const trace = await server.run(program, planFor(spec));
  const judging = Object.fromEntries(uiRubric(spec).criteria.map((c) => [c.name, c.observe(trace)]));
  return { ...judged(spec, judging), trace };
}

export function judgeStatically(spec: UiSpec, program: string): UiJudgement {
  return judged(spec, staticJudging(uiRubric(spec), program));
}

/** The sampled static judge (static-judge.ts): `seed` picks this judging's draws. */
export function judgeStochastically(spec: UiSpec, program: string, seed: number, temperature: number): UiJudgement {
  return judged(spec, sampledStaticJudging(uiRubric(spec), program, seed, temperature));
}

/** The spec an episode's info carries (the environment writes it at reset); anything else is an environment bug. */
export function specOfInfo(info: Info): UiSpec {
  const raw = info.spec;
  const spec = raw as unknown as UiSpec;
  const ok =
    typeof raw === 'object' &&
    raw !== null &&
    !Array.isArray(raw) &&
    UI_SPEC_KINDS.includes(spec.kind) &&
    typeof spec.button === 'string' &&
    typeof spec.message === 'string' &&
    typeof spec.fill === 'string' &&
    Number.isInteger(spec.start) &&
    Number.isInteger(spec.clicks);
  if (!ok) throw new RangeError(`the UI-DSL judges need the episode's spec at info.spec; the environment gave ${JSON.stringify(raw)}`);
  return spec;
}

/** The program an episode wrote: its last action. */
function programOf(trajectory: Trajectory): string {
  return trajectory.turns.at(-1)?.action ?? '';
}

function verification(judgement: UiJudgement, extra: Info): Verification {
  return {
    reward: judgement.score,
    info: { correct: judgement.correct, rubricScore: judgement.score, judging: judgement.judging as Record<string, JsonValue>, ...extra },
  };
}

export class InteractiveJudgeVerifier implements Verifier {
  readonly name = 'ui-interactive';

  constructor(private readonly server: RenderServer = new SimulatorRenderServer()) {}

  async score(trajectory: Trajectory): Promise<Verification> {
    const { trace, ...judgement } = await judgeInteractively(specOfInfo(trajectory.info), programOf(trajectory), this.server);
    const errors = trace.steps.flatMap((s) => s.errors.map((e) => `${e.phase}: ${e.message}`));
    return verification(judgement, { server: trace.server, rendered: trace.rendered, actions: trace.steps.length - 1, errors, renderMs: trace.ms });
  }
}

export class StaticJudgeVerifier implements Verifier {
  readonly name = 'ui-static';

  score(trajectory: Trajectory): Verification {
    return verification(judgeStatically(specOfInfo(trajectory.info), programOf(trajectory)), {});
  }
}
