// The scripted user of the dialog-feedback environment: after each assistant answer it reacts the way
// real users of a deployed assistant mostly do, implicitly. It continues silently (approval, read as
// neutral), says the answer is not right (rejection, negative) or thanks (positive). This follows
// the implicit-feedback setting of span-level KTO (docs/algorithms/kto.md §2): most turns get no
// explicit signal, and negative feedback is only partly reliable — the source measured 81.8% of
// negatives on answers that really were wrong.
//
// Noise model. The user perceives correctness with a flip: with probability `flip` it sees a right
// answer as wrong and a wrong one as right. Seen as wrong, it rejects with probability q
// (`negativeIfWrong`); seen as right, it thanks with probability p (`positiveIfRight`); otherwise it
// stays silent. feedback-rates.ts solves p, q and the flip for a target mix and reliability from
// the measured correctness of a policy.
//
// A rejection says why, as the source splits negatives: an execution error (a number, but the wrong
// one) or misunderstood intent (no number at all, or the answer to an earlier request).
// Every reaction is a pure function of (episode seed, turn), so a dialogue replays exactly however
// episodes are batched. Leaves out: free-text complaints, users who give up, and feedback that
// depends on the dialogue's history beyond the current request.

import { SeededRandom } from '@horizon/kernels';
import { mixSeed } from '../seeds.ts';

/** The user's reaction rates (each a probability). */
export interface FeedbackRates {
  /** p = P(positive | the user sees the answer as right). */
  positiveIfRight: number;
  /** q = P(negative | the user sees the answer as wrong). */
  negativeIfWrong: number;
  /** P(the user's view of correctness is flipped). */
  flip: number;
}

export type FeedbackKind = 'neutral' | 'negative' | 'positive';
/** Why the user rejected an answer. */
export type NegativeKind = 'execution' | 'intent';

export interface Reaction {
  kind: FeedbackKind;
  /** Set when `kind` is negative. */
  negative?: NegativeKind;
  /** The user's view of correctness was flipped (the noise), whatever it then said. */
  flipped: boolean;
}

/** What the user writes for each reaction, before its next request (silence writes nothing). */
export const USER_TEXT = { positive: 'ty ', execution: 'no ', intent: 'what? ' } as const;

/** Salt separating the user's draws from the problem's. */
const USER_SALT = 0xd1a1_0001;

export function checkFeedbackRates(rates: FeedbackRates): void {
  for (const [key, value] of Object.entries(rates))
    if (!Number.isFinite(value) || value < 0 || value > 1) throw new RangeError(`the scripted user's ${key} must be a probability in [0, 1], got ${value}`);
}

export class ScriptedUser {
  constructor(readonly rates: FeedbackRates) {
    checkFeedbackRates(rates);
  }

  /**
   * The reaction to the answer of assistant turn `turn` (0-based) of episode `seed`. `earlier` holds
   * the expected answers of the dialogue's earlier requests: repeating one of them is misunderstood intent.
   */
  react(seed: number, turn: number, answer: string, expected: string, earlier: readonly string[]): Reaction {
    const random = new SeededRandom(mixSeed(seed, USER_SALT, turn));
    const right = answer === expected;
    const flipped = random.next() < this.rates.flip;
    const seenRight = right !== flipped;
    const draw = random.next();
    if (seenRight) return { kind: draw < this.rates.positiveIfRight ? 'positive' : 'neutral', flipped };
    if (draw >= this.rates.negativeIfWrong) return { kind: 'neutral', flipped };
    const intent = !/^[0-9]+$/.test(answer) || (answer !== expected && earlier.includes(answer));
    return { kind: 'negative', negative: intent ? 'intent' : 'execution', flipped };
  }
}

/** The text the user writes for a reaction (empty for silence). */
export function reactionText(reaction: Reaction): string {
  if (reaction.kind === 'positive') return USER_TEXT.positive;
  if (reaction.kind === 'negative') return USER_TEXT[reaction.negative ?? 'execution'];
  return '';
}
