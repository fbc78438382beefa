// The GAE walkthrough's trajectory: one tool-using addition episode, token by token. It is an
// illustration, not a logged rollout: the critic values are chosen by hand to rise as the answer
// becomes certain, and the values on prompt and observation tokens are deliberately high so that a
// kernel that read them (instead of skipping to the next action token) would visibly change A_t.
//
// Shape legend: T = 16 tokens.

export type TokenRole = 'prompt' | 'action' | 'observation';

export interface TrajectoryToken {
  text: string;
  role: TokenRole;
  /** V_t: the critic's value of the state just before this token (docs/algorithms/README.md §2). */
  value: number;
}

const p = (text: string, value: number): TrajectoryToken => ({ text, role: 'prompt', value });
const a = (text: string, value: number): TrajectoryToken => ({ text, role: 'action', value });
const o = (text: string, value: number): TrajectoryToken => ({ text, role: 'observation', value });

/** "9+8=" → a calculator call → its result → the answer "17" and end-of-sequence. */
export const WALKTHROUGH_TOKENS: readonly TrajectoryToken[] = [
  p('9', 0.9),
  p('+', 0.9),
  p('8', 0.9),
  p('=', 0.9),
  a('<tool_call>', 0.4),
  a('9', 0.42),
  a('+', 0.45),
  a('8', 0.47),
  a('</tool_call>', 0.5),
  o('<tool_result>', 0.9),
  o('1', 0.9),
  o('7', 0.9),
  o('</tool_result>', 0.9),
  a('1', 0.85),
  a('7', 0.9),
  a('<eos>', 0.93),
];

export const WALKTHROUGH_T = WALKTHROUGH_TOKENS.length;

/** The kernel's inputs for an outcome reward: r on the last action token (as the trainer places it). */
export function walkthroughInputs(outcome: number): { rewards: Float32Array; values: Float32Array; actionMask: Uint32Array } {
  if (!Number.isFinite(outcome)) throw new RangeError(`outcome must be a finite reward, got ${outcome}`);
  const rewards = new Float32Array(WALKTHROUGH_T);
  const values = Float32Array.from(WALKTHROUGH_TOKENS, (t) => t.value);
  const actionMask = Uint32Array.from(WALKTHROUGH_TOKENS, (t) => (t.role === 'action' ? 1 : 0));
  rewards[actionMask.lastIndexOf(1)] = outcome;
  return { rewards, values, actionMask };
}
