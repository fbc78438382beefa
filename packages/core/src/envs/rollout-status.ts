// How a rollout ended, and the one rule for whether and how each kind trains. The episode runner
// (episode.ts) sets the status; train/valid-rollouts.ts reads `trains` to choose the samples an
// update sees, and packSamples (sample.ts) writes `terminal` into the batch, which is what tells
// GAE whether to bootstrap (algorithms/critic-gae.ts). Group methods (GRPO, RLOO) read only the
// reward, so a truncated rollout enters its group with its reward as it is.
// The four statuses are slime's (THUDM/slime, `Sample.Status` in slime/utils/types.py: completed,
// truncated, aborted, failed); the rules are Horizon's. Left out: slime's `pending` (a Sample here
// exists only once its episode is over) and retrying a failed rollout.

export const ROLLOUT_STATUSES = ['completed', 'truncated', 'aborted', 'failed'] as const;
export type RolloutStatus = (typeof ROLLOUT_STATUSES)[number];

export interface StatusRule {
  /** The rollout can train (it still needs a trainable token and, for group methods, a group). */
  trains: boolean;
  /** No value after its last token: GAE does not bootstrap. Meaningless where it does not train. */
  terminal: boolean;
  /** The rule in one sentence, for docs/environments.md and the UI. */
  rule: string;
}

export const STATUS_RULES: Readonly<Record<RolloutStatus, StatusRule>> = {
  completed: {
    trains: true,
    terminal: true,
    rule: 'the environment ended the episode: it trains with its verifier reward, as a true terminal (no bootstrap value)',
  },
  truncated: {
    trains: true,
    terminal: false,
    rule: 'the runner cut it at the turn limit or a full context: it trains with the verifier reward of what it did; critic methods bootstrap from V at its last action token (the last position the value loss trains) unless rl.truncation is "terminal", group methods use the reward as it is',
  },
  aborted: {
    trains: false,
    terminal: false,
    rule: 'the sampler gave up on its row (through no fault of the policy): it leaves its group and never trains (rollout/aborted_rollouts)',
  },
  failed: {
    trains: false,
    terminal: false,
    rule: 'its environment or verifier threw: it leaves its group and never trains (rollout/failed_rollouts)',
  },
};
