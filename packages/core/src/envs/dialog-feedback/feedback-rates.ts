// Choosing the scripted user's rates (scripted-user.ts) so that a given policy's dialogues get a
// target feedback mix. The source of span-level KTO (docs/algorithms/kto.md §2) reports the mix its
// SFT policy received from real users — 76.6% neutral, 20.0% negative, 3.5% positive — and that
// 81.8% of negatives were on answers that really were wrong. With per-turn correctness a measured on
// the policy, and the user's noise model (a flip f of perceived correctness, then P(neg | seen
// wrong) = q, P(pos | seen right) = p):
//
//   reliability  R = P(wrong | neg) = (1−a)(1−f) / ((1−a)(1−f) + a·f)   ⇒  f = (1−R)(1−a) / (R·a + (1−R)(1−a))
//   seen wrong   w = (1−a)(1−f) + a·f
//   P(neg) = q·w  ⇒  q = neg / w          P(pos) = p·(1 − w)  ⇒  p = pos / (1 − w)
//
// So f makes negatives exactly as reliable as the source's, and q, p make their shares the source's.
// A mix some accuracy cannot give (q or p above 1) is an error that says which.

import type { FeedbackRates } from './scripted-user.ts';

/** The feedback a policy's dialogues should get, as shares of assistant turns. */
export interface FeedbackTarget {
  /** Share of turns rejected. */
  negative: number;
  /** Share of turns thanked. */
  positive: number;
  /** P(the answer was wrong | the user rejected it). */
  negativeReliability: number;
}

/** The source's measurements: 20.0% negative, 3.5% positive (76.6% neutral, rounded), 81.8% of negatives reliable. */
export const SOURCE_FEEDBACK: FeedbackTarget = { negative: 0.2, positive: 0.035, negativeReliability: 0.818 };

/** Rates that give `target` to a policy whose answers are right with probability `accuracy` (per assistant turn). */
export function fitFeedbackRates(accuracy: number, target: FeedbackTarget = SOURCE_FEEDBACK): FeedbackRates {
  if (!(accuracy > 0 && accuracy < 1)) throw new RangeError(`fitting the user's rates needs a per-turn accuracy strictly between 0 and 1, got ${accuracy}`);
  const { negative, positive, negativeReliability: R } = target;
  if (!(R > 0 && R < 1)) throw new RangeError(`the negative feedback's reliability must be strictly between 0 and 1, got ${R}`);
  if (!(negative >= 0 && positive >= 0 && negative + positive <= 1))
    throw new RangeError(`the target shares must be ≥ 0 and sum to at most 1, got negative ${negative} and positive ${positive}`);
  const a = accuracy;
  const flip = ((1 - R) * (1 - a)) / (R * a + (1 - R) * (1 - a));
  const seenWrong = (1 - a) * (1 - flip) + a * flip;
  const negativeIfWrong = negative / seenWrong;
  const positiveIfRight = positive / (1 - seenWrong);
  if (negativeIfWrong > 1)
    throw new RangeError(
      `at accuracy ${a.toFixed(3)} only ${(100 * seenWrong).toFixed(1)}% of answers look wrong to the user, fewer than the ${(100 * negative).toFixed(1)}% negatives wanted`,
    );
  if (positiveIfRight > 1)
    throw new RangeError(
      `at accuracy ${a.toFixed(3)} only ${(100 * (1 - seenWrong)).toFixed(1)}% of answers look right to the user, fewer than the ${(100 * positive).toFixed(1)}% positives wanted`,
    );
  return { positiveIfRight, negativeIfWrong, flip };
}

/** The mix and reliability `rates` give in expectation at `accuracy` (the inverse of fitFeedbackRates). */
export function expectedFeedback(accuracy: number, rates: FeedbackRates): FeedbackTarget & { neutral: number } {
  const a = accuracy;
  const f = rates.flip;
  const seenWrong = (1 - a) * (1 - f) + a * f;
  const negative = rates.negativeIfWrong * seenWrong;
  const positive = rates.positiveIfRight * (1 - seenWrong);
  const reliability = seenWrong > 0 ? ((1 - a) * (1 - f)) / seenWrong : 0;
  return { negative, positive, neutral: 1 - negative - positive, negativeReliability: reliability };
}
