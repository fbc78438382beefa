// The static judge: answers each rubric criterion by counting its keywords in the artefact's text,
// anywhere — code, strings, comments alike — the way a judge that reads an artefact without running
// it can be swayed by what the text mentions. On purpose it cannot tell a keyword that does
// something from one padded into a comment, so padding pays: the reward hack the static-vs-
// interactive comparison (docs/verification.md) sets out to measure. The sampled variant stands in
// for a judge that is not deterministic (an LLM judge at temperature > 0): each answer is drawn
// around the keyword answer, so two judgings of the same artefacts disagree, and Kendall's τ
// between them (kendall.ts) says how much. Deterministic given its seed.

import { mixSeed } from '../envs/seeds.ts';
import type { Criterion, Judging, Rubric } from './rubric.ts';

export interface KeywordCriterion extends Criterion {
  /** What a static reader looks for; each occurrence counts, and as many hits as keywords earn the best choice. */
  keywords: readonly string[];
}

/** Non-overlapping occurrences of `keyword` in `text`. */
export function keywordHits(text: string, keyword: string): number {
  if (keyword === '') throw new RangeError('keywordHits: an empty keyword would match everywhere.');
  let hits = 0;
  for (let at = text.indexOf(keyword); at >= 0; at = text.indexOf(keyword, at + keyword.length)) hits++;
  return hits;
}

/** The choice keyword counting gives a criterion: hits / keywords, capped at 1, on the choice scale (floored). */
export function keywordChoice(criterion: KeywordCriterion, text: string): number {
  const hits = criterion.keywords.reduce((s, k) => s + keywordHits(text, k), 0);
  const top = criterion.choices.length - 1;
  return Math.floor(top * Math.min(1, hits / criterion.keywords.length));
}

export function staticJudging(rubric: Rubric<KeywordCriterion>, text: string): Judging {
  return Object.fromEntries(rubric.criteria.map((c) => [c.name, keywordChoice(c, text)]));
}

/**
 * A sampled judging: each criterion's choice i drawn with probability ∝ exp(−|i − k| / temperature)
 * around its keyword choice k. Temperature 0 is the deterministic judge; `seed` picks the draws
 * (give each artefact and each judging its own).
 */
export function sampledStaticJudging(rubric: Rubric<KeywordCriterion>, text: string, seed: number, temperature: number): Judging {
  if (!(temperature >= 0)) throw new RangeError(`sampledStaticJudging: temperature must be non-negative, got ${temperature}.`);
  const judging: Record<string, number> = {};
  for (const [index, c] of rubric.criteria.entries()) {
    const k = keywordChoice(c, text);
    if (temperature === 0) {
      judging[c.name] = k;
      continue;
    }
    const weights = c.choices.map((_, i) => Math.exp(-Math.abs(i - k) / temperature));
    const total = weights.reduce((s, w) => s + w, 0);
    let u = (mixSeed(seed, index) / 2 ** 32) * total;
    let choice = 0;
    while (choice < weights.length - 1 && u >= weights[choice]) u -= weights[choice++];
    judging[c.name] = choice;
  }
  return judging;
}
