// Rubrics: a weighted checklist of criteria, each a question with ordered answers (worst first),
// that a judge answers about an artefact; the score is the weighted mean of the answers' positions.
// This is the rubric-as-reward form of LLM-as-judge work — a checklist per task rather than one
// scalar opinion, weighted by category — used by the Qwen rubric for generated web apps, whose
// category weights are the defaults here. Judges live beside it (static-judge.ts) and in the task
// that knows how to look at its artefact (envs/ui-dsl/interactive-judge.ts). Left out: rubric
// trees (criteria under criteria) and per-criterion rationales; a judging is just one choice each.

/** The categories of the Qwen rubric, most weight first. */
export const RUBRIC_CATEGORIES = ['functionality', 'content', 'visual', 'layout', 'ux', 'technical'] as const;
export type RubricCategory = (typeof RUBRIC_CATEGORIES)[number];

/**
 * The Qwen rubric's category weights in percent, as published to one decimal: functionality,
 * content, visual effect, layout, user experience, technical specifications. They sum to 99.4 (the
 * rounding), so DEFAULT_CATEGORY_WEIGHTS divides by that sum rather than by 100.
 */
export const QWEN_CATEGORY_PERCENT: Readonly<Record<RubricCategory, number>> = {
  functionality: 37.7,
  content: 19.0,
  visual: 13.3,
  layout: 12.9,
  ux: 9.3,
  technical: 7.2,
};

/** The Qwen category weights scaled to sum to 1. */
export const DEFAULT_CATEGORY_WEIGHTS: Readonly<Record<RubricCategory, number>> = normalized(QWEN_CATEGORY_PERCENT);

export interface Criterion {
  /** Short, unique within its rubric, e.g. "behaviour". */
  name: string;
  /** The question a judge answers, for a person reading the rubric. */
  text: string;
  category: RubricCategory;
  /** Its share of the whole rubric; a rubric's weights sum to 1. */
  weight: number;
  /** The answers, worst first; answer i scores i / (choices.length − 1). */
  choices: readonly string[];
}

export interface Rubric<C extends Criterion = Criterion> {
  name: string;
  criteria: readonly C[];
}

/** One judge's answers: a choice index per criterion name. */
export type Judging = Readonly<Record<string, number>>;

/** How far from 1 a rubric's weights may sum (floating-point sums of decimal weights). */
export const WEIGHT_SUM_TOLERANCE = 1e-9;

/** Throws one sentence naming the rubric (and the criterion) when the rubric is malformed. */
export function checkRubric(rubric: Rubric): void {
  const names = new Set<string>();
  for (const c of rubric.criteria) {
    if (names.has(c.name)) throw new RangeError(`rubric "${rubric.name}": two criteria are named "${c.name}".`);
    names.add(c.name);
    if (!(c.weight >= 0) || !Number.isFinite(c.weight))
      throw new RangeError(`rubric "${rubric.name}": criterion "${c.name}" has weight ${c.weight}; weights must be finite and non-negative.`);
    if (c.choices.length < 2)
      throw new RangeError(`rubric "${rubric.name}": criterion "${c.name}" has ${c.choices.length} choices; it needs at least two, worst first.`);
  }
  const sum = rubric.criteria.reduce((s, c) => s + c.weight, 0);
  if (Math.abs(sum - 1) > WEIGHT_SUM_TOLERANCE) throw new RangeError(`rubric "${rubric.name}": its criteria's weights sum to ${sum}, not 1.`);
}

/** The rubric's score of a judging, in [0, 1]; every criterion must be answered with a valid choice. */
export function rubricScore(rubric: Rubric, judging: Judging): number {
  let score = 0;
  for (const c of rubric.criteria) {
    const choice = judging[c.name];
    if (!Number.isInteger(choice) || choice < 0 || choice >= c.choices.length)
      throw new RangeError(
        `rubric "${rubric.name}": the judging answers criterion "${c.name}" with ${choice}; it needs a choice index from 0 to ${c.choices.length - 1}.`,
      );
    score += (c.weight * choice) / (c.choices.length - 1);
  }
  return score;
}

/**
 * Criterion weights from category weights: each category's weight split evenly among its criteria.
 * A category with no criterion gives its weight to none, so the rest are rescaled to sum to 1.
 */
export function weightByCategory<C extends Omit<Criterion, 'weight'>>(
  criteria: readonly C[],
  categoryWeights: Readonly<Record<RubricCategory, number>> = DEFAULT_CATEGORY_WEIGHTS,
): (C & { weight: number })[] {
  const counts = new Map<RubricCategory, number>();
  for (const c of criteria) counts.set(c.category, (counts.get(c.category) ?? 0) + 1);
  const present = [...counts.keys()].reduce((s, k) => s + categoryWeights[k], 0);
  if (!(present > 0)) throw new RangeError("weightByCategory: the criteria's categories have no weight between them.");
  return criteria.map((c) => ({ ...c, weight: categoryWeights[c.category] / (counts.get(c.category) as number) / present }));
}

function normalized(percent: Readonly<Record<RubricCategory, number>>): Record<RubricCategory, number> {
  const total = RUBRIC_CATEGORIES.reduce((s, k) => s + percent[k], 0);
  return Object.fromEntries(RUBRIC_CATEGORIES.map((k) => [k, percent[k] / total])) as Record<RubricCategory, number>;
}
