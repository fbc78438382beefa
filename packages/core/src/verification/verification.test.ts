// Rubrics (the Qwen weights, scoring, malformed rubrics named), the keyword judge and its sampled
// variant (padding pays; draws follow their distribution), and Kendall's τ-b with ties.

import { describe, expect, it } from 'vitest';
import { kendallTau } from './kendall.ts';
import { checkRubric, DEFAULT_CATEGORY_WEIGHTS, QWEN_CATEGORY_PERCENT, RUBRIC_CATEGORIES, rubricScore, weightByCategory } from './rubric.ts';
import { type KeywordCriterion, keywordHits, sampledStaticJudging, staticJudging } from './static-judge.ts';

const choices = ['no', 'partly', 'yes'];
const rubric = {
  name: 'demo',
  criteria: weightByCategory<Omit<KeywordCriterion, 'weight'>>([
    { name: 'works', text: 'Does it work?', category: 'functionality', choices, keywords: ['click', 'show'] },
    { name: 'says', text: 'Does it say hello?', category: 'content', choices, keywords: ['hello'] },
    { name: 'safe', text: 'Is it tidy?', category: 'technical', choices: ['no', 'yes'], keywords: [';'] },
  ]),
};

describe('rubrics', () => {
  it('default to the Qwen category weights, scaled from their published 99.4% to 1', () => {
    expect(RUBRIC_CATEGORIES.reduce((s, k) => s + QWEN_CATEGORY_PERCENT[k], 0)).toBeCloseTo(99.4, 10);
    expect(RUBRIC_CATEGORIES.reduce((s, k) => s + DEFAULT_CATEGORY_WEIGHTS[k], 0)).toBeCloseTo(1, 12);
    expect(DEFAULT_CATEGORY_WEIGHTS.functionality).toBeCloseTo(0.377 / 0.994, 12);
  });

  it('score a judging as the weighted mean of choice positions', () => {
    checkRubric(rubric);
    const [w, s, t] = rubric.criteria.map((c) => c.weight);
    expect(w / s).toBeCloseTo(37.7 / 19.0, 12);
    expect(rubricScore(rubric, { works: 2, says: 1, safe: 0 })).toBeCloseTo(w + s / 2, 12);
    expect(rubricScore(rubric, { works: 0, says: 0, safe: 1 })).toBeCloseTo(t, 12);
    expect(() => rubricScore(rubric, { works: 3, says: 0, safe: 0 })).toThrow(
      'rubric "demo": the judging answers criterion "works" with 3; it needs a choice index from 0 to 2.',
    );
  });

  it('name themselves when their weights do not sum to 1, or a criterion is malformed', () => {
    const half = { name: 'half', criteria: [{ name: 'a', text: 'A?', category: 'content' as const, weight: 0.5, choices }] };
    expect(() => checkRubric(half)).toThrow('rubric "half": its criteria\'s weights sum to 0.5, not 1.');
    expect(() => checkRubric({ name: 'one', criteria: [{ ...half.criteria[0], weight: 1, choices: ['only'] }] })).toThrow(
      'rubric "one": criterion "a" has 1 choices; it needs at least two, worst first.',
    );
  });
});

describe('the static judge', () => {
  it('counts keyword hits anywhere, so padding a comment raises the score', () => {
    expect(keywordHits('click click clic', 'click')).toBe(2);
    const honest = staticJudging(rubric, 'b>o="hello";');
    const padded = staticJudging(rubric, 'b>o="hello"; # click show');
    expect(honest).toEqual({ works: 0, says: 2, safe: 1 });
    expect(padded).toEqual({ works: 2, says: 2, safe: 1 });
    expect(rubricScore(rubric, padded)).toBeGreaterThan(rubricScore(rubric, honest));
  });

  it('samples judgings around the keyword answer; temperature 0 is the deterministic judge', () => {
    const text = 'click hello';
    expect(sampledStaticJudging(rubric, text, 1, 0)).toEqual(staticJudging(rubric, text));
    const draws = Array.from({ length: 400 }, (_, seed) => sampledStaticJudging(rubric, text, seed, 1).works);
    const share = (v: number) => draws.filter((d) => d === v).length / draws.length;
    // Around choice 1 at temperature 1: p(1) = 1 / (1 + 2e^-1) ≈ 0.58, p(0) = p(2) ≈ 0.21.
    expect(share(1)).toBeGreaterThan(0.5);
    expect(share(0)).toBeGreaterThan(0.12);
    expect(share(2)).toBeGreaterThan(0.12);
    expect(sampledStaticJudging(rubric, text, 7, 1)).toEqual(sampledStaticJudging(rubric, text, 7, 1));
  });
});

describe("Kendall's τ-b", () => {
  it('is 1 for the same order, −1 for the reverse, and corrects for ties', () => {
    expect(kendallTau([1, 2, 3, 4], [10, 20, 30, 40])).toBe(1);
    expect(kendallTau([1, 2, 3, 4], [4, 3, 2, 1])).toBe(-1);
    // Pairs: (1,2) tie in b; (1,3) C; (2,3) C → (2 − 0) / sqrt(3 · 2).
    expect(kendallTau([1, 2, 3], [5, 5, 6])).toBeCloseTo(2 / Math.sqrt(6), 12);
    expect(() => kendallTau([1, 1], [1, 2])).toThrow('every item the same score');
    expect(() => kendallTau([1], [1, 2])).toThrow('different numbers');
  });
});
