// A batch's samples by rollout. With compaction one rollout is several samples (its segments, one
// rolloutId, segmentIndex 0, 1, …), and with sub-agents a tree of them (branches.ts: the root is
// branch '0', its sub-agents '0.1', …, all of one rolloutId); what is counted per rollout — success,
// reward, response length, the rollouts shown in samples.jsonl — must count each rollout once, from
// the root's final segment, and show a rollout whole. Without either every sample is its own rollout
// and these are identities.

import { branchOf, compareBranches } from './branches.ts';
import type { Sample } from './sample.ts';

type Keyed = Pick<Sample, 'rolloutId' | 'segmentIndex' | 'branch'>;

/** Samples grouped by rolloutId, in order of first appearance, each group in tree order (the root first), each context's segments in order. */
export function byRollout<S>(items: readonly S[], sampleOf: (item: S) => Keyed): S[][] {
  const groups = new Map<number, S[]>();
  for (const item of items) {
    const id = sampleOf(item).rolloutId;
    const group = groups.get(id);
    if (group) group.push(item);
    else groups.set(id, [item]);
  }
  const order = (a: S, b: S) => {
    const [x, y] = [sampleOf(a), sampleOf(b)];
    return compareBranches(branchOf(x), branchOf(y)) || x.segmentIndex - y.segmentIndex;
  };
  return [...groups.values()].map((group) => group.sort(order));
}

/** Each rollout's final root segment (the whole sample when it was never cut): its sub-agents are not rollouts. */
export function finalSegments(samples: readonly Sample[]): Sample[] {
  return byRollout(samples, (s) => s).flatMap((group) => {
    const roots = group.filter((s) => s.parent === undefined);
    return roots.length > 0 ? [roots[roots.length - 1]] : [];
  });
}

/** Every context of the first `n` rollouts, in order. */
export function firstRollouts<S>(items: readonly S[], n: number, sampleOf: (item: S) => Keyed): S[] {
  return byRollout(items, sampleOf).slice(0, n).flat();
}
