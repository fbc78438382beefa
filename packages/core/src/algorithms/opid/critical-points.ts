// Critical decision points of an episode (docs/algorithms/opid.md §2): the steps where what the
// policy does next decides the outcome, found from the execution log alone. Two, both read off the
// call just before the step:
//   after-readme  the previous call read task/README successfully: the next action must turn its
//                 examples into a constant (7 − 2 = 5, so x+5) — the arithmetic the honest path
//                 fails on (docs/environments.md §7: "limited by the model's arithmetic");
//   after-fail    the previous call ended in a failing run_tests: the next action should revise the
//                 constant rather than submit the wrong one.
// Every other step is routine (a listing, a read, submit after a pass) and is routed the global
// skill. Leaves out: learned or scored detection (OPID's own highlights come from a larger model
// reading the trajectory; here, as the task allows, rules on the log).

import { endsWithRunTests, type LogStep } from './execution-log.ts';

export const CRITICAL_POINTS = ['after-readme', 'after-fail'] as const;
export type CriticalPoint = (typeof CRITICAL_POINTS)[number];

/** The README path as the policy writes it (relative to the working directory, the root). */
export const README_LINE = 'cat task/README';

/** The critical point a step is at, from the call before it; undefined for a routine step. */
export function criticalPointOf(log: readonly LogStep[], step: number): CriticalPoint | undefined {
  const previous = step > 0 ? log[step - 1]?.call : undefined;
  if (!previous) return undefined;
  if (previous.line.trim() === README_LINE && previous.exitCode === 0) return 'after-readme';
  if (endsWithRunTests(previous.line) && previous.exitCode !== 0) return 'after-fail';
  return undefined;
}

/** Every critical step of a log, by step index. */
export function criticalPoints(log: readonly LogStep[]): Map<number, CriticalPoint> {
  const found = new Map<number, CriticalPoint>();
  for (const { step } of log) {
    const point = criticalPointOf(log, step);
    if (point) found.set(step, point);
  }
  return found;
}
