// How far the static judge can be trusted, measured against the interactive judge as ground truth
// on a set of judge cases: Kendall's τ-b (verification/kendall.ts) between their rubric scores,
// between two sampled static judgings (how much a non-deterministic judge disagrees with itself —
// a deterministic one has τ = 1 with itself, which says nothing), and between each sampled judging
// and the interactive judge; and how often the two agree on success, with the static judge's false
// passes (a program it calls a success that does not work) counted apart — the hack's footprint.

import { kendallTau } from '../../verification/kendall.ts';
import { mixSeed } from '../seeds.ts';
import type { JudgeCase } from './judge-cases.ts';
import { judgeInteractively, judgeStatically, judgeStochastically, type UiJudgement } from './judges.ts';
import type { RenderServer } from './render.ts';

export interface JudgeAgreement {
  cases: number;
  interactiveScores: number[];
  staticScores: number[];
  /** Two sampled static judgings of every case, one per judging seed. */
  sampledScores: [number[], number[]];
  tauStaticVsInteractive: number;
  tauSampledVsSampled: number;
  tauSampledVsInteractive: [number, number];
  /** Cases where both judges give the same `correct`. */
  correctAgreement: number;
  /** Cases the static judge passes and the interactive one fails. */
  staticFalsePasses: number;
}

export interface AgreementOptions {
  /** The sampled judge's temperature (static-judge.ts). */
  temperature: number;
  /** The two sampled judgings' seeds. */
  judgingSeeds: [number, number];
}

export async function judgeAgreement(cases: readonly JudgeCase[], server: RenderServer, options: AgreementOptions): Promise<JudgeAgreement> {
  const interactive: UiJudgement[] = [];
  for (const c of cases) interactive.push(await judgeInteractively(c.spec, c.program, server));
  const statics = cases.map((c) => judgeStatically(c.spec, c.program));
  const sampled = options.judgingSeeds.map((seed) =>
    cases.map((c, i) => judgeStochastically(c.spec, c.program, mixSeed(seed, i), options.temperature).score),
  ) as [number[], number[]];
  const interactiveScores = interactive.map((j) => j.score);
  const staticScores = statics.map((j) => j.score);
  return {
    cases: cases.length,
    interactiveScores,
    staticScores,
    sampledScores: sampled,
    tauStaticVsInteractive: kendallTau(staticScores, interactiveScores),
    tauSampledVsSampled: kendallTau(sampled[0], sampled[1]),
    tauSampledVsInteractive: [kendallTau(sampled[0], interactiveScores), kendallTau(sampled[1], interactiveScores)],
    correctAgreement: cases.filter((_, i) => statics[i].correct === interactive[i].correct).length,
    staticFalsePasses: cases.filter((_, i) => statics[i].correct && !interactive[i].correct).length,
  };
}
