// One (arm, seed) of an experiment: restore the seed's warm start, train the arm, evaluate it
// along the way and at the end, and write result.json last. RL arms run the trainer exactly as
// `horizon train` would after SFT (same recipe, same seeds), logging metrics.jsonl beside the
// result; SFT-only arms keep training the warm start's objective for `sftOnlySteps` more steps,
// evaluated at as many points as the RL arms are (tools/experiments/sft-baseline.ts did this by
// wall time; a step count keeps the arm deterministic and its cost declared).

import { join } from 'node:path';
import { type Checkpoint, loadTeachers, type MetricName, type Phase, saveCheckpoint, Trainer, teacherRuns } from '@horizon/core';
import type { Gpu } from '@horizon/kernels';
import { DirectoryCheckpointStore } from '../run/checkpoint-store.ts';
import { FileMetricsLogger } from '../run/metrics-file.ts';
import { RunDirTeacherSource } from '../run/teacher-source.ts';
import { criticProbeBatch, probeCritic } from './critic-probe.ts';
import { evaluateWithSkills } from './evaluate-skills.ts';
import { runExpertSft } from './expert-sft.ts';
import { probeGroups } from './group-probe.ts';
import { type PlannedRun, teacherArms } from './plan.ts';
import type { Report } from './report.ts';
import { type CriticProbe, type CurvePoint, clearRun, type GroupProbe, hackFigures, type RunResult, skillSuccess, writeResult } from './results.ts';
import { TrainingMeans, trainingMetricNames } from './training-means.ts';

/** Evaluation points of a run after the warm start's own: the RL arms' eval.interval, at least one. */
export function evaluationCount(run: PlannedRun): number {
  const { iterations } = run.recipe.rl;
  const interval = run.recipe.eval.interval;
  return interval > 0 ? Math.ceil(iterations / interval) : 1;
}

export async function runArm(gpu: Gpu, report: Report, run: PlannedRun, warm: Checkpoint): Promise<RunResult> {
  await clearRun(run.dir);
  if (run.arm.kind === 'sft-only') return runSftOnly(gpu, report, run, warm);
  if (run.arm.kind === 'expert-sft') return finish(run, report, await runExpertSft(gpu, run, warm));
  return runRl(gpu, report, run, warm);
}

/** Where an arm that teaches others keeps its final policy: a run directory `distill.teachers` can name. */
export const teacherCheckpointDir = (run: PlannedRun) => join(run.dir, 'checkpoints');

async function runRl(gpu: Gpu, report: Report, run: PlannedRun, warm: Checkpoint): Promise<RunResult> {
  const { recipe } = run;
  // A distilled arm's teachers are earlier arms of its seed, each a run directory with its final checkpoint.
  const teachers = teacherRuns(recipe).length > 0 ? await loadTeachers(recipe, new RunDirTeacherSource()) : undefined;
  const trainer = new Trainer(gpu, recipe, teachers ? { teachers } : {});
  const log = await FileMetricsLogger.create(join(run.dir, 'metrics.jsonl'), recipe);
  const curve: CurvePoint[] = [];
  const groups: GroupProbe[] = [];
  const critic: CriticProbe[] = [];
  const rolloutsPerIteration = recipe.rl.promptsPerIteration * recipe.rl.groupSize;
  const training = new TrainingMeans(trainingMetricNames(report));
  let sampledTokens = 0;
  let sampledReward = 0;
  const started = performance.now();
  try {
    trainer.restore(warm);
    await trainer.run({
      onMetrics: async (phase: Phase, step: number, metrics: Partial<Record<MetricName, number>>, at) => {
        await log.log({ phase, step, global_step: at.globalStep, time_s: at.seconds, metrics });
        training.add(phase, metrics);
        if (phase === 'rl') {
          sampledTokens += (metrics['rollout/response_length'] ?? 0) * rolloutsPerIteration;
          sampledReward += (metrics['rollout/reward'] ?? 0) * rolloutsPerIteration;
        }
        if (phase !== 'eval') return;
        const bySkill = skillSuccess(metrics);
        const hack = hackFigures(metrics);
        curve.push({
          iteration: step,
          sampledTokens,
          heldOut: metrics['eval/held_out_success'] ?? Number.NaN,
          ood: metrics['eval/ood_success'] ?? Number.NaN,
          ...(bySkill ? { bySkill } : {}),
          ...(hack ? { hack } : {}),
          ...(metrics['eval/response_length'] !== undefined ? { responseLength: metrics['eval/response_length'] } : {}),
          seconds: (performance.now() - started) / 1000,
        });
        // The batch the next iteration trains on, sampled and scored with the same seeds; nothing is
        // updated. The critic is probed after the last iteration too: its final state is a result.
        const probeGroupsNow = report.probes?.includes('groups') && step < recipe.rl.iterations;
        const probeCriticNow = report.probes?.includes('critic');
        if (probeGroupsNow || probeCriticNow) {
          const batch = await trainer.sampleBatch();
          if (probeGroupsNow) groups.push(probeGroups({ ...batch.rows, advantages: batch.advantages }, step));
          const forCritic = probeCriticNow ? criticProbeBatch(batch) : undefined;
          if (forCritic) critic.push(probeCritic(forCritic, step));
        }
      },
    });
    if (teacherArms(report).has(run.arm.name))
      await saveCheckpoint(new DirectoryCheckpointStore(teacherCheckpointDir(run)), await trainer.checkpoint(), { keepLast: 1 });
  } finally {
    await log.close();
    trainer.dispose();
  }
  return finish(run, report, {
    curve,
    sampledTokens,
    sampledReward,
    seconds: seconds(started),
    groups: groups.length > 0 ? groups : undefined,
    critic: critic.length > 0 ? critic : undefined,
    training: training.means(),
  });
}

async function runSftOnly(gpu: Gpu, report: Report, run: PlannedRun, warm: Checkpoint): Promise<RunResult> {
  const extra = run.arm.sftOnlySteps ?? 0;
  if (!(extra > 0)) throw new RangeError(`arm ${run.arm.name} is SFT-only but declares no sftOnlySteps`);
  const warmSteps = run.recipe.sft.steps;
  const recipe = { ...run.recipe, sft: { ...run.recipe.sft, steps: warmSteps + extra } };
  const trainer = new Trainer(gpu, recipe);
  const points = evaluationCount(run);
  const every = extra / points;
  const interval = run.recipe.rl.iterations / points;
  const curve: CurvePoint[] = [];
  const started = performance.now();
  const evaluate = async (k: number) => {
    const point = await evaluateWithSkills(trainer, trainer.sftStep);
    curve.push({ iteration: Math.round(k * interval), sampledTokens: 0, sftSteps: trainer.sftStep - warmSteps, ...point, seconds: seconds(started) });
  };
  try {
    trainer.restore(warm);
    await evaluate(0);
    let next = 1;
    await trainer.run({
      onMetrics: async (phase, step) => {
        if (phase === 'sft' && step - warmSteps >= Math.round(next * every)) await evaluate(next++);
      },
      shouldStop: () => trainer.sftStep >= warmSteps + extra,
    });
  } finally {
    trainer.dispose();
  }
  return finish(run, report, { curve, sampledTokens: 0, seconds: seconds(started) });
}

const seconds = (started: number) => (performance.now() - started) / 1000;

/** What an arm's training produced, before it is written as a result. */
export interface ArmOutcome {
  curve: CurvePoint[];
  sampledTokens: number;
  sampledReward?: number;
  /** Wall seconds after the warm start. */
  seconds: number;
  groups?: GroupProbe[];
  critic?: CriticProbe[];
  training?: RunResult['training'];
  teacherSamples?: RunResult['teacherSamples'];
}

async function finish(run: PlannedRun, report: Report, outcome: ArmOutcome): Promise<RunResult> {
  const { curve, groups } = outcome;
  const last = curve.at(-1);
  if (!last) throw new RangeError(`run ${run.arm.name}/${run.seed} ended without an evaluation`);
  const result: RunResult = {
    key: run.key,
    report: report.name,
    arm: run.arm.name,
    seed: run.seed,
    curve,
    final: {
      heldOut: last.heldOut,
      ood: last.ood,
      ...(last.bySkill ? { bySkill: last.bySkill } : {}),
      ...(last.hack ? { hack: last.hack } : {}),
      ...(last.responseLength !== undefined ? { responseLength: last.responseLength } : {}),
    },
    seconds: outcome.seconds,
    sampledTokens: outcome.sampledTokens,
    ...(outcome.sampledReward !== undefined ? { sampledReward: outcome.sampledReward } : {}),
    ...(groups ? { groups } : {}),
    ...(outcome.critic ? { critic: outcome.critic } : {}),
    ...(outcome.training ? { training: outcome.training } : {}),
    ...(outcome.teacherSamples ? { teacherSamples: outcome.teacherSamples } : {}),
  };
  await writeResult(run.dir, result);
  return result;
}
