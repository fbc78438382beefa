// Each finished run's figures, on disk: runs/experiments/NAME/<arm>/<seed>/result.json, written
// once, atomically (a temp file renamed over), as the run's last act. A run is "done" exactly when
// its result.json exists and carries the planned key; a directory without one is a run stopped
// midway, which the runner clears and restarts from the cached warm start (restarts cleanly, it
// does not resume mid-run: a run is a few minutes, and restarting keeps it bit-identical to one
// uninterrupted run without carrying a checkpoint per arm). A result with another key was made by
// an older declaration of the report and is run again.

import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * An evaluation's hack figures (a task whose verifier records hack attempts: HiddenTestFS), each a
 * share of the held-out problems, with the monitor only logging: attempted a protected path,
 * solved after a protected read reached the agent (hacked-resolved), solved otherwise (clean-resolved).
 */
export interface HackFigures {
  attempts: number;
  hacked: number;
  clean: number;
}

/** One evaluation point of a run. */
export interface CurvePoint {
  /** RL iterations done (for an SFT-only arm: its evaluation index placed on the RL arms' axis). */
  iteration: number;
  /** Action tokens sampled by rollouts so far (0 for SFT-only). */
  sampledTokens: number;
  /** Extra SFT steps done (SFT-only arms). */
  sftSteps?: number;
  heldOut: number;
  ood: number;
  /** A mixed task's held-out success on each skill's problems (eval/held_out_success_<skill>). */
  bySkill?: Record<string, number>;
  hack?: HackFigures;
  /** Mean response tokens on the held-out set (eval/response_length); absent in results stored before it was kept. */
  responseLength?: number;
  /** Seconds since the warm start ended. */
  seconds: number;
}

/** All-equal reward groups in the batch an iteration trains on (the 'groups' probe). */
export interface GroupProbe {
  iteration: number;
  /** Fraction of prompt groups whose task rewards are all equal. */
  flatFraction: number;
  /** Share of the batch's Σ|advantage| over action tokens that falls in those groups. */
  flatAdvantageShare: number;
  /** Mean |advantage| per action token in flat groups, and in the others. */
  flatMeanAbsAdvantage: number;
  otherMeanAbsAdvantage: number;
}

/** The run's critic against the Monte-Carlo values of the batch the next iteration trains on (the 'critic' probe, critic-probe.ts). */
export interface CriticProbe {
  iteration: number;
  /** Mean |value − Monte-Carlo value| per rollout. */
  valueError: number;
  /** Fraction of prompt pairs with different Monte-Carlo values that the critic orders the same way. */
  rankingAccuracy: number;
  /** Prompt groups in the batch. */
  prompts: number;
}

export interface RunResult {
  key: string;
  report: string;
  arm: string;
  seed: number;
  curve: CurvePoint[];
  /** The last evaluation (after the last iteration or SFT step). */
  final: { heldOut: number; ood: number; bySkill?: Record<string, number>; hack?: HackFigures; responseLength?: number };
  /** Wall seconds after the warm start. */
  seconds: number;
  sampledTokens: number;
  /**
   * Reward the RL iterations' rollouts earned in all, counted as sampledTokens is (each iteration's
   * mean per rollout × its rollouts); absent for an arm that samples no rollouts, and in results
   * written before it was recorded.
   */
  sampledReward?: number;
  groups?: GroupProbe[];
  critic?: CriticProbe[];
  /** Means over the RL iterations of the metrics the report names (Report.trainingMetrics). */
  training?: Record<string, number>;
  /** An expert-sft arm's teacher completions: trained on, and dropped for not ending with <eos>. */
  teacherSamples?: { kept: number; dropped: number };
}

const SKILL_METRIC = 'eval/held_out_success_';

/** The per-skill held-out successes in an evaluation's metrics row, or undefined for a single-skill task. */
export function skillSuccess(metrics: Readonly<Record<string, number | undefined>>): Record<string, number> | undefined {
  const bySkill: Record<string, number> = {};
  for (const [name, value] of Object.entries(metrics))
    if (name.startsWith(SKILL_METRIC) && value !== undefined) bySkill[name.slice(SKILL_METRIC.length)] = value;
  return Object.keys(bySkill).length > 0 ? bySkill : undefined;
}

/** The hack figures in an evaluation's metrics row, or undefined for a task that records none. */
export function hackFigures(metrics: Readonly<Record<string, number | undefined>>): HackFigures | undefined {
  const attempts = metrics['eval/held_out_hack_attempt_rate'];
  const hacked = metrics['eval/held_out_hacked_success'];
  const clean = metrics['eval/held_out_clean_success'];
  return attempts === undefined || hacked === undefined || clean === undefined ? undefined : { attempts, hacked, clean };
}

export type RunState = 'done' | 'stale' | 'partial' | 'missing';

export const RESULT_FILE = 'result.json';

export async function readResult(dir: string): Promise<RunResult | undefined> {
  try {
    return JSON.parse(await readFile(join(dir, RESULT_FILE), 'utf8')) as RunResult;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Where a planned run stands. */
export async function runState(dir: string, key: string): Promise<RunState> {
  const result = await readResult(dir);
  if (result) return result.key === key ? 'done' : 'stale';
  try {
    await stat(dir);
    return 'partial';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
}

/** Empties a run's directory before it (re)starts. */
export async function clearRun(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
}

/** Writes result.json so that a crash leaves either no result or the whole one. */
export async function writeResult(dir: string, result: RunResult): Promise<void> {
  const temp = join(dir, `${RESULT_FILE}.tmp`);
  await writeFile(temp, `${JSON.stringify(result)}\n`);
  await rename(temp, join(dir, RESULT_FILE));
}
