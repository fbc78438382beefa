// What a set of dialogues' feedback looked like: the mix of the user's reactions over assistant
// turns (the figure span-level KTO's source reports for its SFT policy: 76.6% neutral, 20.0%
// negative, 3.5% positive), the split of negatives into execution errors and misunderstood intent,
// how reliable the negatives were, the per-turn accuracy the mix was produced at, and the retry
// ratio: the share of turns where the user had to ask again.

import type { Sample } from '../sample.ts';
import type { DialogTurnRecord } from './env.ts';
import { dialogRecords } from './feedback-verifier.ts';

export interface FeedbackMix {
  /** Assistant turns counted. */
  turns: number;
  neutral: number;
  negative: number;
  positive: number;
  /** Shares of all turns: negatives for a wrong number, and for no number or an earlier request's answer. */
  negativeExecution: number;
  negativeIntent: number;
  /** P(the answer was wrong | rejected); NaN without negatives. */
  negativeReliability: number;
  /** Share of turns whose answer was right. */
  accuracy: number;
  /** Share of turns that answer a request the user asked again. */
  retryRatio: number;
}

/** The feedback mix of dialogues given as their turn records. */
export function feedbackMix(dialogues: readonly (readonly DialogTurnRecord[])[]): FeedbackMix {
  const all = dialogues.flat();
  const n = all.length;
  if (n === 0) throw new RangeError('the feedback mix needs at least one assistant turn');
  const count = (pred: (r: DialogTurnRecord) => boolean) => all.filter(pred).length;
  const negatives = count((r) => r.feedback === 'negative');
  return {
    turns: n,
    neutral: count((r) => r.feedback === 'neutral') / n,
    negative: negatives / n,
    positive: count((r) => r.feedback === 'positive') / n,
    negativeExecution: count((r) => r.negative === 'execution') / n,
    negativeIntent: count((r) => r.negative === 'intent') / n,
    negativeReliability: negatives > 0 ? count((r) => r.feedback === 'negative' && !r.correct) / negatives : Number.NaN,
    accuracy: count((r) => r.correct) / n,
    retryRatio: count((r) => r.retry) / n,
  };
}

/** The turn records of a dialog-feedback rollout (its meta holds the environment's last `dialog` info). */
export function sampleDialog(sample: Sample): DialogTurnRecord[] {
  return dialogRecords(sample.meta, sample.turns.length);
}
