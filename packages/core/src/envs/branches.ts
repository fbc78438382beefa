// A rollout with sub-agents (delegate.ts) is a tree of contexts, one Sample each. This file names
// them and says how a child's sample ends once its root has been scored.
//
// Identity. The root context is branch '0' (a Sample without `branch`: every rollout without
// sub-agents keeps its old records); the k-th sub-agent started by branch b is `${b}.k`, 1-based, so
// a branch names the same context in every replay whatever the timing. A child's Sample carries its
// branch and a pointer to where it was started (the parent's branch, segment and turn). Its sampler
// rows are keyed (rollout id, samplerSegmentWord(branch, segment)): the GPU sampler draws noise by
// key and position (train/gpu-sampler.ts), and the root keeps its plain segment index, so runs
// without sub-agents draw exactly what they drew before.
//
// Reward and status. The root's verifier scores the root trajectory; its reward goes on the last
// trainable token of every context of the tree, as compaction gives it to every segment (CompactionRL,
// arXiv:2607.05378 eq. 14). A child is treated like a non-final segment, not as its own terminal
// sample: its context ended at its answer, but its future is its parent's, so it trains with
// bootstrap 0 (terminal in the packed batch) and `tokensAfter` = the trainable tokens its parent
// sampled after the delegate call plus the parent's own tokensAfter — the cross-segment discount
// (γλ)^tokensAfter measured along the path to the rollout's end. A child takes the root's status
// (a failed root drops the whole tree from its group, as it must: the tree is one member), except
// that a child which failed or was aborted itself keeps its own failure and never trains.

import type { Info } from './environment.ts';
import type { RolloutFailure, Sample, SampleBuilder, ToolCallCounts } from './sample.ts';
import { mixSeed } from './seeds.ts';

export const ROOT_BRANCH = '0';

/** Where a sub-agent was started: the parent context's branch and segment, and the 1-based turn of that segment whose delegate call started it. */
export interface ParentLink {
  branch: string;
  segmentIndex: number;
  turn: number;
}

/** The branch of a sample: '0' for a root context. */
export function branchOf(sample: Pick<Sample, 'branch'>): string {
  return sample.branch ?? ROOT_BRANCH;
}

export function childBranch(parent: string, k: number): string {
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`a child's number must be a positive integer, got ${k}`);
  return `${parent}.${k}`;
}

/** The child numbers on the path from the root ([] for the root); a RangeError for text that is no branch. */
export function branchPath(branch: string): number[] {
  const parts = branch.split('.');
  if (parts[0] !== ROOT_BRANCH || !parts.slice(1).every((p) => /^[1-9][0-9]*$/.test(p)))
    throw new RangeError(`branch ${JSON.stringify(branch)} is not '0' followed by '.k' parts with k ≥ 1`);
  return parts.slice(1).map(Number);
}

export function branchDepth(branch: string): number {
  return branchPath(branch).length;
}

export function isBranch(text: unknown): text is string {
  if (typeof text !== 'string') return false;
  try {
    branchPath(text);
    return true;
  } catch {
    return false;
  }
}

/** Tree order: a parent before its children, siblings by number. */
export function compareBranches(a: string, b: string): number {
  const pa = branchPath(a);
  const pb = branchPath(b);
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return pa.length - pb.length;
}

/**
 * The second word of a sampler row's key. The root's is its segment index (below 2^31); a child's has
 * the top bit set and its path in 8 bits a level (at most 3 levels of at most 255: delegate.ts), so
 * no two contexts of a rollout share a key. Sub-agents do not compact: their segment is always 0.
 */
export function samplerSegmentWord(branch: string, segment: number): number {
  const path = branchPath(branch);
  if (path.length === 0) {
    if (!Number.isInteger(segment) || segment < 0 || segment >= 0x8000_0000) throw new RangeError(`segment ${segment} does not fit a sampler key`);
    return segment;
  }
  if (segment !== 0) throw new RangeError(`sub-agent ${branch} has segment ${segment}, but sub-agents do not compact`);
  if (path.length > 3 || path.some((k) => k > 255)) throw new RangeError(`branch ${branch} is deeper than 3 levels or numbers a child above 255`);
  let code = 0;
  for (const k of path) code = code * 256 + k;
  return (0x8000_0000 | code) >>> 0;
}

/** Salts a root's seed into its sub-agents' seeds (with their branch path). */
const SUB_AGENT_SEED_SALT = 0x5ab_a9e7;

/** The seed a sub-agent's environment is reset with: the root's, mixed with the branch, so a replay resets it alike. */
export function subAgentSeed(rootSeed: number, branch: string): number {
  return mixSeed(rootSeed, SUB_AGENT_SEED_SALT, ...branchPath(branch));
}

/** A sub-agent context that is over, kept open until its root's reward is known. */
export interface FinishedSubAgent {
  builder: SampleBuilder;
  branch: string;
  /** The parent's trainable tokens in its context when it started this sub-agent. */
  parentTrainableAtStart: number;
  info: Info;
  /** Its own failure (an environment that threw, a sampler abort), if it had one. */
  failure?: RolloutFailure;
  toolCalls?: ToolCallCounts;
}

/** The samples of a tree's sub-agents, in branch order, once the root's are finished (`rootSamples`, its segments). */
export function finishSubAgents(
  finished: readonly FinishedSubAgent[],
  root: { status: 'completed' | 'truncated'; failure?: RolloutFailure },
  rootSamples: readonly Sample[],
): Sample[] {
  const ordered = [...finished].sort((a, b) => compareBranches(a.branch, b.branch));
  const samples = ordered.map((c) => c.builder.finish({ ...childFinish(c.failure, root), meta: c.info, ...(c.toolCalls ? { toolCalls: c.toolCalls } : {}) }));
  setChildTokensAfter([...rootSamples, ...samples], new Map(ordered.map((c) => [c.branch, c.parentTrainableAtStart])));
  return samples;
}

/**
 * How a child's sample ends: the root's status, unless the child failed itself (`own`). Returned as
 * the `finish` options of its SampleBuilder (sample.ts); setChildTokensAfter fills in tokensAfter.
 */
export function childFinish(
  own: RolloutFailure | undefined,
  root: { status: 'completed' | 'truncated'; failure?: RolloutFailure },
): { status: 'completed' | 'truncated'; failure?: RolloutFailure } {
  if (own) return { status: 'truncated', failure: own };
  if (root.failure) return { status: root.status, failure: { source: root.failure.source, message: `its root rollout failed: ${root.failure.message}` } };
  return { status: root.status };
}

/**
 * Every child's tokensAfter, parents first: the trainable tokens its parent sampled after the
 * delegate call in the parent's context, plus that context's own tokensAfter.
 */
export function setChildTokensAfter(samples: readonly Sample[], starts: ReadonlyMap<string, number>): void {
  const byContext = new Map(samples.map((s) => [`${branchOf(s)}#${s.segmentIndex}`, s]));
  const ordered = samples.filter((s) => s.parent).sort((a, b) => compareBranches(branchOf(a), branchOf(b)));
  for (const child of ordered) {
    const link = child.parent as ParentLink;
    const parent = byContext.get(`${link.branch}#${link.segmentIndex}`);
    const start = starts.get(branchOf(child));
    if (!parent || start === undefined) throw new RangeError(`sub-agent ${branchOf(child)} has no parent context ${link.branch} segment ${link.segmentIndex}`);
    let trainable = 0;
    for (const m of parent.actionMask) trainable += m;
    child.tokensAfter = trainable - start + parent.tokensAfter;
  }
}
