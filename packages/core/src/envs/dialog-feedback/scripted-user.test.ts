// The scripted user reacts as its rates say (checked on many draws), replays from (seed, turn), and
// tells execution errors from misunderstood intent; the fitted rates give the source's mix and
// reliability in expectation, and refuse a mix an accuracy cannot give.

import { describe, expect, it } from 'vitest';
import { expectedFeedback, fitFeedbackRates, SOURCE_FEEDBACK } from './feedback-rates.ts';
import { reactionText, ScriptedUser } from './scripted-user.ts';

describe('ScriptedUser', () => {
  it('replays the same reaction for the same episode seed and turn', () => {
    const user = new ScriptedUser({ positiveIfRight: 0.3, negativeIfWrong: 0.6, flip: 0.2 });
    const a = Array.from({ length: 50 }, (_, t) => user.react(7, t, '5', '6', []));
    const b = Array.from({ length: 50 }, (_, t) => user.react(7, t, '5', '6', []));
    expect(b).toEqual(a);
    expect(new Set(a.map((r) => r.kind)).size).toBeGreaterThan(1);
  });

  it('rejects wrong answers at rate q·(1−f) + p-side flips, and thanks right ones at p·(1−f)', () => {
    const rates = { positiveIfRight: 0.3, negativeIfWrong: 0.6, flip: 0.2 };
    const user = new ScriptedUser(rates);
    const n = 20_000;
    const share = (answer: string, kind: string) =>
      Array.from({ length: n }, (_, s) => user.react(s, 0, answer, '6', [])).filter((r) => r.kind === kind).length / n;
    // Wrong: seen wrong with 1 − f, rejected with q; seen right with f, thanked with p.
    expect(share('5', 'negative')).toBeCloseTo(0.6 * 0.8, 1);
    expect(share('5', 'positive')).toBeCloseTo(0.3 * 0.2, 1);
    expect(share('6', 'positive')).toBeCloseTo(0.3 * 0.8, 1);
    expect(share('6', 'negative')).toBeCloseTo(0.6 * 0.2, 1);
  });

  it('calls a wrong number an execution error, and no number or an earlier answer misunderstood intent', () => {
    const user = new ScriptedUser({ positiveIfRight: 0, negativeIfWrong: 1, flip: 0 });
    expect(user.react(1, 0, '5', '6', [])).toEqual({ kind: 'negative', negative: 'execution', flipped: false });
    expect(user.react(1, 0, '', '6', []).negative).toBe('intent');
    expect(user.react(1, 0, 'no', '6', []).negative).toBe('intent');
    expect(user.react(1, 1, '9', '6', ['9']).negative).toBe('intent');
    expect(reactionText({ kind: 'negative', negative: 'intent', flipped: false })).toBe('what? ');
    expect(reactionText({ kind: 'neutral', flipped: false })).toBe('');
  });

  it('refuses rates that are not probabilities', () => {
    expect(() => new ScriptedUser({ positiveIfRight: 1.2, negativeIfWrong: 0.5, flip: 0 })).toThrow(/positiveIfRight must be a probability/);
  });
});

describe('fitFeedbackRates', () => {
  it('gives the source’s mix and negative reliability in expectation at any feasible accuracy', () => {
    for (const accuracy of [0.3, 0.5, 0.62, 0.75]) {
      const rates = fitFeedbackRates(accuracy);
      const mix = expectedFeedback(accuracy, rates);
      expect(mix.negative).toBeCloseTo(0.2, 12);
      expect(mix.positive).toBeCloseTo(0.035, 12);
      expect(mix.neutral).toBeCloseTo(0.765, 12);
      expect(mix.negativeReliability).toBeCloseTo(0.818, 12);
    }
    // Near even accuracy the flip is the ~18–20% of labels the source's reliability implies.
    expect(fitFeedbackRates(0.5).flip).toBeCloseTo(0.182, 3);
  });

  it('says when an accuracy cannot give the wanted share of negatives', () => {
    expect(() => fitFeedbackRates(0.97)).toThrow(/look wrong to the user, fewer than the 20.0% negatives wanted/);
    expect(() => fitFeedbackRates(1)).toThrow(/strictly between 0 and 1/);
    expect(() => fitFeedbackRates(0.5, { ...SOURCE_FEEDBACK, negativeReliability: 1 })).toThrow(/reliability/);
  });
});
