// Compaction of long trajectories: the settings the episode runner (episode.ts) reads, the
// threshold each episode compacts at, and the ids a new context carries. When the next action
// would take the context past the threshold, the policy writes a summary between `<summary>` and
// `</summary>` (sampled, kind `summary`, trained with the rest of the rollout as CompactionRL,
// arXiv:2607.05378, does: its untrained summaries "degenerate to naive brevity"), the segment
// ends, and a new context restarts as prompt + summary + the most recent steps, all carried as
// kind `context` (sample.ts). The `deterministic` summariser writes the environment's own summary
// text (Environment.summarize) instead: a baseline that samples and trains nothing at the cut.
//
// The threshold is drawn per episode seed from a stated range, so every rollout of one prompt (a
// GRPO group shares the seed) compacts at the same length, and different prompts at different
// lengths: a policy never sees a single fixed cut point. Left out: compacting in the middle of an
// action (the check runs between turns only) and summaries of summaries kept apart (each summary
// replaces the previous one; the policy sees only the newest).

import type { EnvText } from './environment.ts';
import { mixSeed } from './seeds.ts';

export const SUMMARISERS = ['policy', 'deterministic'] as const;
export type Summariser = (typeof SUMMARISERS)[number];

export interface CompactionOptions {
  /** Smallest context length, in tokens, at which an episode compacts (inclusive). */
  minThreshold: number;
  /** Largest (inclusive); an episode's own threshold is drawn from its seed (compactionThreshold). */
  maxThreshold: number;
  /** Steps (an action and the observation after it) carried verbatim into the next context, newest last. */
  keepSteps: number;
  /** New tokens the policy may write for one summary, `</summary>` included. */
  summaryTokens: number;
  /** `policy`: the policy samples the summary; `deterministic`: the environment's summarize() text, never trained. */
  summariser: Summariser;
  /** With the policy summariser: false records the sampled summary as untrained context (the "untrained summaries" arm). */
  trainSummaries: boolean;
  /**
   * Segments a rollout may have: where it would compact past the last, it ends truncated. It bounds
   * the rows an iteration scores and trains (recipe/fits.ts); absent: no bound (evaluation).
   */
  maxSegments?: number;
}

/** What an environment offers the deterministic summariser: the summary text of its episode so far. */
export interface Summarizing {
  summarize(): EnvText;
}

export function canSummarize(env: object): env is Summarizing {
  return typeof (env as Partial<Summarizing>).summarize === 'function';
}

/** Salts an episode seed into the seed of its compaction threshold (independent of its task). */
const THRESHOLD_SALT = 0xc0a7_0001;

/** The threshold of the episode of `seed`: uniform over [minThreshold, maxThreshold] by a hash of the seed. */
export function compactionThreshold(seed: number, options: Pick<CompactionOptions, 'minThreshold' | 'maxThreshold'>): number {
  const span = options.maxThreshold - options.minThreshold + 1;
  return options.minThreshold + (mixSeed(seed, THRESHOLD_SALT) % span);
}

/** Refuses settings that could not work: a range upside down, or a summary that does not fit above the threshold. */
export function checkCompaction(options: CompactionOptions, contextLength: number, maxNewTokens: number): void {
  for (const key of ['minThreshold', 'maxThreshold', 'summaryTokens'] as const) {
    const v = options[key];
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`compaction.${key} must be a positive integer, got ${v}`);
  }
  if (options.maxSegments !== undefined && (!Number.isInteger(options.maxSegments) || options.maxSegments < 1))
    throw new RangeError(`compaction.maxSegments must be a positive integer, got ${options.maxSegments}`);
  if (!Number.isInteger(options.keepSteps) || options.keepSteps < 0)
    throw new RangeError(`compaction.keepSteps must be a non-negative integer, got ${options.keepSteps}`);
  if (options.minThreshold > options.maxThreshold)
    throw new RangeError(`compaction.minThreshold (${options.minThreshold}) must not exceed compaction.maxThreshold (${options.maxThreshold})`);
  // The check runs when length + maxNewTokens passes the threshold; `<summary>` and the summary must still fit.
  const room = options.maxThreshold + 1 + options.summaryTokens;
  if (options.summariser === 'policy' && room > contextLength)
    throw new RangeError(
      `compaction.maxThreshold (${options.maxThreshold}) leaves no room for <summary> and ${options.summaryTokens} summary tokens in a context of ${contextLength}`,
    );
  if (options.minThreshold <= maxNewTokens)
    throw new RangeError(
      `compaction.minThreshold (${options.minThreshold}) must exceed rl.maxNewTokens (${maxNewTokens}): the runner compacts once length + maxNewTokens passes it`,
    );
}
