// A short pilot that times the report's arms on this machine, now: a few SFT steps, then a few RL
// iterations of each distinct arm and one evaluation of a sample of the report's problems, scaled
// to the report's size (evaluation runs the problems in fixed-size batches, so its time grows with
// their number; a last partial batch makes the scaled figure err long). It starts from the seed's
// warm start, which the runner trains first when it is not cached: from fresh weights every answer
// runs to rl.maxNewTokens (a warm-started policy stops after a few) and an agent episode to
// rl.maxTurns, so such estimates err long (docs/experiments.md, 2026-12-01, compares a pilot's
// estimate with the runs it priced). The first iteration pays shader
// compilation and is not counted. An arm that learns from teachers is timed with stand-ins (its own
// starting policy, as many times as it has teachers): scoring costs the same whoever the teacher is,
// and the real ones may not have run yet.

import { type Checkpoint, type Recipe, type TeacherWeights, Trainer, teacherRuns } from '@horizon/core';
import type { Gpu } from '@horizon/kernels';
import type { PilotTimings } from './budget.ts';
import type { PlannedRun } from './plan.ts';

const PILOT_SFT_STEPS = 12;
const PILOT_ITERATIONS = 3;
/** Held-out and OOD problems the pilot evaluates at most (each split); the time is scaled to the report's sizes. */
const PILOT_EVAL_PROBLEMS = 64;

export async function pilot(gpu: Gpu, runs: readonly PlannedRun[], warm?: Checkpoint): Promise<PilotTimings> {
  const arms: PilotTimings['arms'] = {};
  let sftStepSeconds = Number.NaN;
  const byArm = new Map(runs.map((run) => [run.arm.name, run]));
  for (const [name, run] of byArm) {
    // From a warm start, the pilot's SFT steps continue it (timed the same way).
    const sftSteps = (warm ? Number(warm.extra.sftSteps ?? 0) : 0) + PILOT_SFT_STEPS;
    const recipe: Recipe = {
      ...run.recipe,
      sft: { ...run.recipe.sft, steps: sftSteps },
      rl: { ...run.recipe.rl, iterations: PILOT_ITERATIONS, criticWarmupSteps: 0 },
      eval: { ...run.recipe.eval, interval: 0, ...pilotEvalSizes(run.recipe) },
    };
    const evalScale = evalProblems(run.recipe) / evalProblems(recipe);
    const teachers = await standInTeachers(gpu, recipe, warm);
    const trainer = new Trainer(gpu, recipe, teachers ? { teachers } : {});
    const iterations: number[] = [];
    const sftTimes: number[] = [];
    let evalSeconds = 0;
    let last = performance.now();
    // An arm that trains by supervised steps only (SFT-only, expert-sft) costs SFT steps and evaluations.
    const sftOnly = run.arm.kind === 'sft-only' || run.arm.kind === 'expert-sft';
    try {
      if (warm) trainer.restore(warm);
      await trainer.run({
        onMetrics: (phase, step, metrics) => {
          const now = performance.now();
          if (phase === 'sft' && step > sftSteps - PILOT_SFT_STEPS + 2) sftTimes.push((now - last) / 1000);
          if (phase === 'rl' && step > 1) iterations.push(metrics['perf/iteration_s'] ?? 0);
          if (phase === 'eval') evalSeconds = metrics['perf/eval_s'] ?? 0;
          last = now;
        },
        // An SFT-only arm runs no RL: its SFT steps and one evaluation are all it costs.
        shouldStop: () => sftOnly && trainer.sftStep >= sftSteps,
      });
      if (sftOnly) evalSeconds = (await timed(() => trainer.evaluateAll({}, trainer.sftStep))) / 1000;
    } finally {
      trainer.dispose();
    }
    if (Number.isNaN(sftStepSeconds) && sftTimes.length > 0) sftStepSeconds = mean(sftTimes);
    arms[name] = { iterationSeconds: mean(iterations), evalSeconds: evalSeconds * evalScale };
  }
  return { sftStepSeconds, arms };
}

/** The evaluation sizes the pilot runs: each split's, capped at PILOT_EVAL_PROBLEMS. */
export function pilotEvalSizes(recipe: Recipe): { heldOutSize: number; oodSize: number } {
  return { heldOutSize: Math.min(recipe.eval.heldOutSize, PILOT_EVAL_PROBLEMS), oodSize: Math.min(recipe.eval.oodSize, PILOT_EVAL_PROBLEMS) };
}

const evalProblems = (recipe: Recipe) => recipe.eval.heldOutSize + recipe.eval.oodSize;

/** The recipe's teachers replaced by copies of the arm's starting policy, or undefined if it has none. */
async function standInTeachers(gpu: Gpu, recipe: Recipe, warm: Checkpoint | undefined): Promise<TeacherWeights[] | undefined> {
  const runs = teacherRuns(recipe);
  if (runs.length === 0) return undefined;
  let policy = warm?.models.policy;
  if (!policy) {
    const fresh = new Trainer(gpu, recipe);
    try {
      policy = { config: fresh.policy.config, params: await fresh.policy.readParameters() };
    } finally {
      fresh.dispose();
    }
  }
  const { config, params } = policy;
  return runs.map((run) => ({ run: `stand-in for ${run}`, step: 0, task: recipe.task, config, params }));
}

const timed = async (f: () => Promise<unknown>) => {
  const started = performance.now();
  await f();
  return performance.now() - started;
};

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(xs.length, 1);
