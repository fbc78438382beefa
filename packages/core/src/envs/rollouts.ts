// A batch's samples by rollout. With compaction one rollout is several samples (its segments, one
// rolloutId, segmentIndex 0, 1, …); what is counted per rollout — success, reward, response length,
// the rollouts shown in samples.jsonl — must count each rollout once, from its final segment, and
// show a rollout whole. Without compaction every sample is its own rollout and these are identities.

import type { Sample } from './sample.ts';

type Keyed = Pick<Sample, 'rolloutId' | 'segmentIndex'>;

/** Samples grouped by rolloutId, in order of first appearance, each group in segment order. */
export function byRollout<S>(items: readonly S[], sampleOf: (item: S) => Keyed): S[][] {
  const groups = new Map<number, S[]>();
  for (const item of items) {
    const id = sampleOf(item).rolloutId;
    const group = groups.get(id);
    if (group) group.push(item);
    else groups.set(id, [item]);
  }
  return [...groups.values()].map((group) => group.sort((a, b) => sampleOf(a).segmentIndex - sampleOf(b).segmentIndex));
}

/** Each rollout's final segment (the whole sample when it was never cut). */
export function finalSegments(samples: readonly Sample[]): Sample[] {
  return byRollout(samples, (s) => s).map((group) => group[group.length - 1]);
}

/** Every segment of the first `n` rollouts, in order. */
export function firstRollouts<S>(items: readonly S[], n: number, sampleOf: (item: S) => Keyed): S[] {
  return byRollout(items, sampleOf).slice(0, n).flat();
}
