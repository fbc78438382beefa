// The cost of what is left to run, from a pilot's timings, and the refusal to go over budget.
// A report declares its minutes; the runner estimates the pending runs from timings measured on
// this machine a moment ago (pilot.ts) and will not start past the declared figure, or past
// `--budget MINUTES` when given, saying the estimate. Pure arithmetic: testable without a GPU.

import type { PlannedRun } from './plan.ts';
import { evaluationCount } from './run-arm.ts';

/** Seconds measured by the pilot for one arm (by arm name), and for one SFT step. */
export interface PilotTimings {
  sftStepSeconds: number;
  /** Per arm: one RL iteration and one evaluation (held-out at the report's size plus OOD). */
  arms: Record<string, { iterationSeconds: number; evalSeconds: number }>;
}

export interface Estimate {
  minutes: number;
  /** One line per pending run and warm start, for the plan. */
  lines: string[];
}

/** A probe samples and scores one batch: about the rollout-and-score part of an iteration, taken as half of it. */
const PROBE_FRACTION = 0.5;

export function estimate(pending: readonly PlannedRun[], uncachedWarmStarts: readonly PlannedRun[], timings: PilotTimings, probes: boolean): Estimate {
  const lines: string[] = [];
  let seconds = 0;
  for (const run of uncachedWarmStarts) {
    const s = run.recipe.sft.steps * timings.sftStepSeconds;
    lines.push(`warm start seed ${run.seed}: ${run.recipe.sft.steps} SFT steps ≈ ${s.toFixed(0)} s`);
    seconds += s;
  }
  for (const run of pending) {
    const arm = timings.arms[run.arm.name];
    if (!arm) throw new RangeError(`the pilot did not time arm ${run.arm.name}`);
    const evals = evaluationCount(run) + 1;
    const supervised = run.arm.kind === 'sft-only' || run.arm.kind === 'expert-sft';
    const s = supervised
      ? supervisedSteps(run) * timings.sftStepSeconds + evals * arm.evalSeconds
      : run.recipe.rl.iterations * arm.iterationSeconds + evals * arm.evalSeconds + (probes ? evals * PROBE_FRACTION * arm.iterationSeconds : 0);
    // The parts, so a report over budget shows whether training or evaluation to shrink.
    const training = supervised
      ? `${supervisedSteps(run)} SFT steps × ${timings.sftStepSeconds.toFixed(2)} s`
      : `${run.recipe.rl.iterations} iterations × ${arm.iterationSeconds.toFixed(1)} s`;
    lines.push(`${run.arm.name} seed ${run.seed} ≈ ${s.toFixed(0)} s (${training}, ${evals} evaluations × ${arm.evalSeconds.toFixed(0)} s)`);
    seconds += s;
  }
  return { minutes: seconds / 60, lines };
}

/**
 * Optimizer steps of an arm that trains by supervised steps only: an SFT-only arm's declared count;
 * an expert-sft arm's are the RL arms' (iterations × epochs × minibatches). The teachers' sampling
 * before each iteration is not timed, so an expert-sft estimate errs short by it.
 */
export function supervisedSteps(run: PlannedRun): number {
  if (run.arm.kind === 'expert-sft') return run.recipe.rl.iterations * run.recipe.rl.epochs * run.recipe.rl.minibatches;
  return run.arm.sftOnlySteps ?? 0;
}

/** undefined when the estimate fits; otherwise the sentence that refuses. */
export function budgetRefusal(estimateMinutes: number, declaredMinutes: number, budgetFlag: number | undefined): string | undefined {
  const allowed = budgetFlag ?? declaredMinutes;
  if (estimateMinutes <= allowed) return undefined;
  const over = budgetFlag !== undefined ? `over --budget ${budgetFlag}` : `over the report's declared budget of ${declaredMinutes} min`;
  return `the pending runs are estimated at ${estimateMinutes.toFixed(1)} min on this machine now, ${over}; run with --budget ${Math.ceil(estimateMinutes)} to accept that, or when the machine is quieter.`;
}
