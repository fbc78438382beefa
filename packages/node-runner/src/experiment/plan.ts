// From a declared report to the list of runs it needs: one per (seed, arm), each with its resolved
// recipe, its directory, and the key of the SFT warm start it shares with the other arms of its
// seed. Pure apart from resolving recipes; nothing here touches a file or a GPU.
//
//   runs/experiments/NAME/<arm>/<seed>/   one run (result.json when finished, metrics.jsonl)
//   runs/experiments/sft/<key>/           one SFT warm start, a checkpoint (safetensors + state.json)

import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { methodsReading, type Recipe, recipeDifferences, resolveRecipe, validateRecipe } from '@horizon/core';
import type { Arm, Report } from './report.ts';

export interface PlannedRun {
  arm: Arm;
  seed: number;
  recipe: Recipe;
  /** The recipe the seed's warm start is trained with: `recipe` without the arm's `rlSets`. */
  warmRecipe: Recipe;
  /** runs/experiments/NAME/<arm>/<seed> */
  dir: string;
  /** Hash of everything that decides the run's result: a stored result with another key is stale. */
  key: string;
  /** Hash of what decides the SFT warm start: arms of one seed with the same key share it. */
  sftKey: string;
}

/** Recipe fields that decide the SFT warm start (trainer.ts runSft: the policy's init, its data and optimizer). */
export function sftKeyOf(recipe: Recipe): string {
  const { seed, task, model, sft, optim, rl } = recipe;
  return hash([seed, sftTask(task), model.contextLength, model.policy, sft, optim, rl.gradClip]).slice(0, 16);
}

/**
 * The task without the fields that shape only the RL training stream: HiddenTestFS's broken tasks,
 * its quality filter and its rule for unsubmitted episodes never reach an SFT demonstration
 * (hidden-test-fs/task.ts draws those from clean problems, and the rule only scores rollouts). So
 * arms that differ in them share a warm start, and warm starts cached before the fields existed keep
 * their key.
 */
function sftTask(task: Recipe['task']): unknown {
  const { defects: _defects, qualityFilter: _qualityFilter, unsubmitted: _unsubmitted, ...hiddenTestFs } = task.hiddenTestFs;
  return { ...task, hiddenTestFs };
}

const hash = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');

const DEFAULTS = validateRecipe({});

/**
 * The recipe as the fields it changes from the schema defaults, in schema order, leaving out fields
 * its method does not read (recipe/method-fields.ts). A field added to the schema later, at a default
 * that changes nothing, leaves this (and so a run's key) as it was, and so does a preset that stops
 * setting a field its method never read: finished runs stay finished when the recipe grows.
 */
export function recipeChanges(recipe: Recipe): [string, unknown][] {
  return recipeDifferences(DEFAULTS, recipe)
    .filter((d) => methodsReading(d.path)?.includes(recipe.rl.algorithm) ?? true)
    .map((d) => [d.path, d.b]);
}

/**
 * The recipe of one arm at one seed: preset ← report-wide overrides ← the arm's (and, unless
 * `warm`, its after-warm-start ones) ← seed and evaluation size ← the teacher runs' directories.
 */
export function armRecipe(report: Report, arm: Arm, seed: number, options: { warm?: boolean; teacherDirs?: readonly string[] } = {}): Recipe {
  const sets = [...report.common, ...arm.sets, ...(options.warm ? [] : (arm.rlSets ?? [])), `seed=${seed}`, `eval.heldOutSize=${report.heldOutSize}`];
  if (options.teacherDirs?.length) sets.push(`distill.teachers=${options.teacherDirs.join(',')}`);
  return resolveRecipe({ preset: arm.preset, sets }).recipe;
}

/** The arms whose final policies some other arm of the report learns from. */
export function teacherArms(report: Report): Set<string> {
  return new Set(report.arms.flatMap((arm) => arm.teachers ?? []));
}

/** Every run of the report, seed-major so that a seed's warm start is used by all its arms in a row. */
export function planRuns(report: Report, runsRoot: string): PlannedRun[] {
  const runs: PlannedRun[] = [];
  for (const seed of report.seeds) {
    const ofSeed = new Map<string, PlannedRun>();
    for (const arm of report.arms) {
      const teachers = (arm.teachers ?? []).map((name) => {
        const teacher = ofSeed.get(name);
        if (!teacher) throw new RangeError(`report ${report.name}: arm ${arm.name} learns from ${name}, which must be an arm declared before it`);
        return teacher;
      });
      const dir = join(runsRoot, report.name, arm.name, String(seed));
      const recipe = armRecipe(report, arm, seed, { teacherDirs: teachers.map((t) => t.dir) });
      const warmRecipe = armRecipe(report, arm, seed, { warm: true });
      // The key names teachers by their runs' keys, not their directories: a clone elsewhere keeps it.
      const changes = recipeChanges(recipe).filter(([path]) => path !== 'distill.teachers');
      const run: PlannedRun = {
        arm,
        seed,
        recipe,
        warmRecipe,
        dir,
        key: hash([changes, arm.kind ?? 'rl', arm.sftOnlySteps ?? 0, ...(teachers.length ? [teachers.map((t) => t.key)] : [])]).slice(0, 16),
        sftKey: sftKeyOf(warmRecipe),
      };
      ofSeed.set(arm.name, run);
      runs.push(run);
    }
  }
  return runs;
}

export const sftCacheDir = (runsRoot: string, sftKey: string) => join(runsRoot, 'sft', sftKey);

/** Why the report cannot run on this version (a field its arms set does not exist), or undefined. */
export function unrunnableReason(report: Report): string | undefined {
  try {
    for (const arm of report.arms) armRecipe(report, arm, report.seeds[0] ?? 1);
    return undefined;
  } catch (error) {
    return `${report.needs ?? 'its arms set recipe fields this version lacks'} (${(error as Error).message.split('\n')[0].replace(/\.$/, '')})`;
  }
}
