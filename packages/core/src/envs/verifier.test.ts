// Verifier v2: the answer verifier is unchanged, a weighted combination normalises its weights,
// refuses bad ones, namespaces each part's info, and carries per-span labels from the one part that
// gives them, checked against the trajectory's turns.

import { describe, expect, it } from 'vitest';
import type { Info } from './environment.ts';
import { AnswerVerifier, checkSpanLabels, type SpanLabel, type Trajectory, type Verification, type Verifier, WeightedVerifier } from './verifier.ts';

function trajectory(actions: string[], info: Info = {}): Trajectory {
  return { seed: 1, prompt: '1+2=', turns: actions.map((action) => ({ action, ending: 'eos' })), status: 'completed', info };
}

/** A verifier that returns a fixed verdict. */
function fixed(name: string, verdict: Verification): Verifier {
  return { name, score: () => verdict };
}

describe('AnswerVerifier', () => {
  it('still scores the last action against info.expected and gives no span labels', () => {
    const verdict = new AnswerVerifier().score(trajectory(['3'], { expected: '3' }));
    expect(verdict).toEqual({ reward: 1, info: { got: '3', ending: 'eos', correct: true } });
    expect(new AnswerVerifier().score(trajectory(['4'], { expected: '3' })).reward).toBe(0);
  });
});

describe('WeightedVerifier', () => {
  const spans: SpanLabel[] = [
    { turn: 0, label: 'bad' },
    { turn: 1, label: 'good' },
  ];

  it('mixes rewards by normalised weights, namespaces info, and keeps the one part’s spans', async () => {
    const v = new WeightedVerifier([
      { verifier: fixed('exact', { reward: 1, info: { correct: true } }), weight: 3 },
      { verifier: fixed('feedback', { reward: 0, info: { correct: false, negatives: 1 }, spans }), weight: 1 },
    ]);
    const verdict = await v.score(trajectory(['1', '3']));
    expect(verdict.reward).toBeCloseTo(0.75, 12);
    expect(verdict.info).toEqual({ 'exact.correct': true, 'feedback.correct': false, 'feedback.negatives': 1, correct: false });
    expect(verdict.spans).toEqual(spans);
    expect(v.name).toBe('3*exact+1*feedback');
  });

  it('lets a zero-weight part report without deciding success', async () => {
    const v = new WeightedVerifier([
      { verifier: fixed('exact', { reward: 1, info: { correct: true } }), weight: 1 },
      { verifier: fixed('style', { reward: 0, info: { correct: false } }), weight: 0 },
    ]);
    const verdict = await v.score(trajectory(['3']));
    expect(verdict.reward).toBe(1);
    expect(verdict.info.correct).toBe(true);
    expect(verdict.spans).toBeUndefined();
  });

  it('refuses negative, non-finite, all-zero and duplicate parts, and two parts that both label spans', async () => {
    const a = fixed('a', { reward: 1, info: {} });
    expect(() => new WeightedVerifier([])).toThrow(/at least one part/);
    expect(() => new WeightedVerifier([{ verifier: a, weight: -1 }])).toThrow(/weight of verifier a must be a finite number ≥ 0, got -1/);
    expect(() => new WeightedVerifier([{ verifier: a, weight: Number.NaN }])).toThrow(/finite/);
    expect(() => new WeightedVerifier([{ verifier: a, weight: 0 }])).toThrow(/at least one positive weight/);
    expect(
      () =>
        new WeightedVerifier([
          { verifier: a, weight: 1 },
          { verifier: a, weight: 1 },
        ]),
    ).toThrow(/appears twice/);
    const both = new WeightedVerifier([
      { verifier: fixed('x', { reward: 1, info: {}, spans }), weight: 1 },
      { verifier: fixed('y', { reward: 1, info: {}, spans }), weight: 1 },
    ]);
    await expect(both.score(trajectory(['1', '2']))).rejects.toThrow(/verifiers x and y both label spans/);
  });

  it('refuses span labels that name a turn the trajectory does not have', async () => {
    const v = new WeightedVerifier([{ verifier: fixed('f', { reward: 1, info: {}, spans }), weight: 1 }]);
    await expect(v.score(trajectory(['1']))).rejects.toThrow(/labelled turn 1, but the trajectory has turns 0 to 0/);
  });
});

describe('checkSpanLabels', () => {
  it('wants distinct turns in increasing order and known labels', () => {
    expect(() => checkSpanLabels([{ turn: 0, label: 'good' }], 1, 'v')).not.toThrow();
    expect(() =>
      checkSpanLabels(
        [
          { turn: 1, label: 'good' },
          { turn: 1, label: 'bad' },
        ],
        2,
        'v',
      ),
    ).toThrow(/increasing turn order/);
    expect(() => checkSpanLabels([{ turn: 0, label: 'meh' as SpanLabel['label'] }], 1, 'v')).toThrow(/good, bad or neutral/);
  });
});
