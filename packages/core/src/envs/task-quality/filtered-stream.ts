// The training stream with every task a judge rejects skipped (task.hiddenTestFs.qualityFilter):
// filtered episode i is the i-th episode of the unfiltered stream whose task the judge keeps. So a
// filtered run trains on the same clean tasks, in the same order, as the unfiltered run of its seed,
// minus the rejected ones; every rollout of a group shares the task of its index; and the stream is
// a function of (run seed, index), as the unfiltered one is — a resumed run walks it again from
// index 0 and lands on the same seeds, with no state beyond the data cursor in its checkpoint.

import type { MetricName } from '../../metrics/glossary.ts';

/** Rejected tasks in a row the stream walks past before it gives up: a judge that keeps nothing is a broken recipe, not bad luck. */
export const MAX_CONSECUTIVE_DROPS = 10_000;

export interface FilteredStream {
  /** The seed of filtered training episode `index`. */
  seed(runSeed: number, index: number): number;
  /** Tasks the filter skipped up to and including filtered episode `index` (0 for index −1). */
  droppedThrough(runSeed: number, index: number): number;
}

/** `seedAt` (the unfiltered stream) with every seed `keep` rejects skipped; kept indices are memoised per run seed. */
export function filteredStream(seedAt: (runSeed: number, index: number) => number, keep: (seed: number) => boolean): FilteredStream {
  // keptIndices.get(runSeed)[i]: the unfiltered index of filtered episode i.
  const keptIndices = new Map<number, number[]>();
  const unfilteredIndex = (runSeed: number, index: number): number => {
    if (!Number.isInteger(index) || index < 0) throw new RangeError(`filtered stream: index must be a non-negative integer, got ${index}`);
    const kept = keptIndices.get(runSeed) ?? [];
    keptIndices.set(runSeed, kept);
    let next = (kept.at(-1) ?? -1) + 1;
    while (kept.length <= index) {
      const from = next;
      while (!keep(seedAt(runSeed, next))) {
        next++;
        if (next - from >= MAX_CONSECUTIVE_DROPS)
          throw new RangeError(
            `filtered stream: the judge rejected ${MAX_CONSECUTIVE_DROPS} training tasks in a row from episode ${from} of run seed ${runSeed}; the recipe breaks (nearly) every task`,
          );
      }
      kept.push(next++);
    }
    return kept[index];
  };
  return {
    seed: (runSeed, index) => seedAt(runSeed, unfilteredIndex(runSeed, index)),
    droppedThrough: (runSeed, index) => (index === -1 ? 0 : unfilteredIndex(runSeed, index) - index),
  };
}

/** An iteration's `rollout/filtered_tasks`: the tasks skipped to reach its training episodes `cursor` … `cursor + prompts − 1`. */
export function filteredTasksMetric(
  droppedThrough: FilteredStream['droppedThrough'],
  runSeed: number,
  cursor: number,
  prompts: number,
): Partial<Record<MetricName, number>> {
  return { 'rollout/filtered_tasks': droppedThrough(runSeed, cursor + prompts - 1) - droppedThrough(runSeed, cursor - 1) };
}
