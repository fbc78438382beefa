// Verifiers: what scores an episode once it is over. The reward is a property of the whole
// trajectory (the final answer, whether the tests pass in the sandbox afterwards), not of one step,
// so environments no longer return rewards and the episode runner (episode.ts) calls the verifier
// at the end, before `close()`, and places the reward on the last action token
// (docs/algorithms/README.md §1). This follows the environment/rubric split of
// PrimeIntellect-ai/verifiers and RLVR (a verifiable reward computed from the output, Tülu 3, arXiv:2411.15124).
//
// Built here: the answer verifier (exact match of the final action). A unit-test verifier runs the
// task's tests in the episode's sandbox and fits the same interface; it lives with the sandbox.

import type { ActionEnding, Info, MaybePromise } from './environment.ts';
import type { Turn } from './sample.ts';

/** Everything the verifier may read about a finished episode. */
export interface Trajectory {
  seed: number;
  /** The first prompt as text (specials written as their names). */
  prompt: string;
  /** Every action with its ending and the observation that followed. */
  turns: readonly Turn[];
  /** `completed`: the environment ended it; `truncated`: the runner cut it at a turn or context limit. */
  status: 'completed' | 'truncated';
  /** The environment's info: from reset (the expected answer, …) and from each step, later keys winning. */
  info: Info;
}

export interface Verification {
  /** A finite number; the runner places it on the last action token. */
  reward: number;
  /** Diagnostics merged into the sample's meta; `correct` (a boolean) is what evaluation counts as success. */
  info: Info;
}

export interface Verifier {
  readonly name: string;
  score(trajectory: Trajectory): MaybePromise<Verification>;
}

/**
 * Reward 1 when the last action is exactly the expected answer and ended with end-of-sequence,
 * else 0. The expected answer is the string at `info[key]` (default "expected"), which the
 * environment puts there in `reset`. A trajectory without one is an error: it is a bug in the
 * environment, not a wrong answer.
 */
export class AnswerVerifier implements Verifier {
  readonly name = 'answer';

  constructor(private readonly key = 'expected') {}

  score(trajectory: Trajectory): Verification {
    const expected = trajectory.info[this.key];
    if (typeof expected !== 'string')
      throw new RangeError(`the answer verifier needs the expected answer as a string at info.${this.key}; the environment gave ${JSON.stringify(expected)}`);
    const last = trajectory.turns.at(-1);
    const got = last?.action ?? '';
    const ending: ActionEnding | 'none' = last?.ending ?? 'none';
    const correct = ending === 'eos' && got === expected;
    return { reward: correct ? 1 : 0, info: { got, ending, correct } };
  }
}
