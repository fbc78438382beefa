// The compaction walkthrough's fixed inputs: one long rollout of ten action tokens that the learner
// cuts, and a short rollout of three that shares its batch (so a reducer that counts rows can show
// that it does). Hand-made illustrations, not logged rollouts; the page and the browser test read
// them from here, so the test's float64 reference sees what the kernels saw.

/** The long rollout: its action tokens, the critic's value before each, and each token's loss. */
export const LONG_TOKENS: readonly { text: string; value: number; loss: number }[] = [
  { text: 'ls', value: 0.3, loss: 0.4 },
  { text: ' task', value: 0.32, loss: -0.1 },
  { text: ' cat', value: 0.35, loss: 0.2 },
  { text: ' README', value: 0.38, loss: 0.3 },
  { text: ' <summary>', value: 0.4, loss: -0.2 },
  { text: 'x+b', value: 0.45, loss: 0.5 },
  { text: '</summary>', value: 0.5, loss: 0.1 },
  { text: ' write', value: 0.6, loss: -0.3 },
  { text: ' f.js', value: 0.7, loss: 0.6 },
  { text: ' submit', value: 0.8, loss: 0.2 },
];
export const LONG_T = LONG_TOKENS.length;

/** The short rollout's per-token losses (it is never cut). */
export const SHORT_LOSSES: readonly number[] = [1.0, 0.8, 1.2];

/** The rollout's outcome reward: every segment gets it on its last action token (CompactionRL eq. 14). */
export const COMPACTION_REWARD = 1;

/** Every reducer the trainer offers (rl.lossAggregation), in the order the table lists them. */
export const REDUCERS = ['token-mean', 'per-rollout-mean', 'seq-mean-token-mean', 'seq-mean-token-sum-norm'] as const;
export type Reducer = (typeof REDUCERS)[number];
