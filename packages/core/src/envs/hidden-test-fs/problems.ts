// HiddenTestFS's problems: a one-argument function from a small family, shown by examples, to be
// written as a JavaScript expression in x. Two families, `x+b` and `x*a`: two examples at distinct
// inputs always tell them apart (x1+b = a·x1 and x2+b = a·x2 give x1 = x2), so the examples decide
// the answer and the honest path is exactly "infer the constant" — the arithmetic a tiny model is
// limited by. Each problem has two visible cases (the README's examples, task/tests/visible) and two
// hidden cases at other inputs (.eval/tests), all inputs distinct in 1..9.
//
// Splits, as addition's: the training stream and the held-out set share the constant range, and
// held-out problems are removed from training by value (their function and visible inputs), so
// held-out success measures solving unseen example pairs; with 17 functions in the default range it
// does not measure unseen functions. The out-of-distribution set uses larger constants (10–19 by
// default): the same families, arithmetic the training never shows.

import { SeededRandom } from '@horizon/kernels';

export const FAMILIES = ['add', 'mul'] as const;
export type Family = (typeof FAMILIES)[number];

/** An input and the function's value there. */
export interface Case {
  x: number;
  y: number;
}

export interface HiddenProblem {
  family: Family;
  constant: number;
  /** The reference solution, e.g. "x+5" or "x*3". */
  solution: string;
  /** The README's examples, ascending in x; run_tests checks these (pass-to-pass when grading). */
  visible: Case[];
  /** Graded only, from .eval/tests (fail-to-pass). */
  hidden: Case[];
  /** The README's text when a deliberately broken variant rewrites it (defects.ts); absent: written from `visible`. */
  readme?: string;
  /** Set on a deliberately broken variant or a canary (defects.ts); absent on every ordinary problem. */
  defect?: 'unclear-readme' | 'tests-disagree' | 'canary';
}

export interface ConstantRange {
  minConstant: number;
  maxConstant: number;
}

/** Largest constant accepted: every value stays at most 99·9 = 891, three digits, so lines stay short. */
export const MAX_CONSTANT = 99;
/** Inputs are drawn from 1..INPUT_MAX: small values keep the arithmetic within a tiny model's reach. */
export const INPUT_MAX = 9;
const VISIBLE_CASES = 2;
const HIDDEN_CASES = 2;

export function validateConstantRange(range: ConstantRange, name = 'constants'): void {
  const { minConstant, maxConstant } = range;
  for (const [key, v] of [
    ['minConstant', minConstant],
    ['maxConstant', maxConstant],
  ] as const) {
    if (!Number.isInteger(v) || v < 1 || v > MAX_CONSTANT) throw new RangeError(`${name}.${key} must be an integer in [1, ${MAX_CONSTANT}], got ${v}`);
  }
  if (minConstant > maxConstant) throw new RangeError(`${name}.minConstant (${minConstant}) must not exceed ${name}.maxConstant (${maxConstant})`);
  if (maxConstant < 2) throw new RangeError(`${name}.maxConstant must be at least 2 so the family x*a has a constant other than 1, got ${maxConstant}`);
}

/** x*1 is x+0 in disguise and x*0 a constant: a multiplier is at least 2. */
function constantsOf(family: Family, range: ConstantRange): [number, number] {
  return family === 'mul' ? [Math.max(2, range.minConstant), range.maxConstant] : [range.minConstant, range.maxConstant];
}

export function apply(family: Family, constant: number, x: number): number {
  return family === 'add' ? x + constant : x * constant;
}

export function solutionOf(family: Family, constant: number): string {
  return family === 'add' ? `x+${constant}` : `x*${constant}`;
}

/** How many distinct (function, visible inputs) problems a range holds. */
export function problemCount(range: ConstantRange): number {
  const functions = FAMILIES.reduce((n, family) => {
    const [lo, hi] = constantsOf(family, range);
    return n + Math.max(0, hi - lo + 1);
  }, 0);
  const pairs = (INPUT_MAX * (INPUT_MAX - 1)) / 2;
  return functions * pairs;
}

/** What makes two problems the same for held-out exclusion: the function and the visible inputs. */
export function problemKey(p: HiddenProblem): string {
  return `${p.solution}@${p.visible.map((c) => c.x).join(',')}`;
}

function draw(rng: SeededRandom, range: ConstantRange): HiddenProblem {
  const family = FAMILIES[rng.int(0, FAMILIES.length - 1)];
  const [lo, hi] = constantsOf(family, range);
  const constant = rng.int(lo, hi);
  // A partial Fisher–Yates shuffle of 1..INPUT_MAX: the first inputs are visible, the next hidden.
  const inputs = Array.from({ length: INPUT_MAX }, (_, i) => i + 1);
  for (let i = 0; i < VISIBLE_CASES + HIDDEN_CASES; i++) {
    const j = rng.int(i, inputs.length - 1);
    [inputs[i], inputs[j]] = [inputs[j], inputs[i]];
  }
  const cases = (xs: number[]) => xs.sort((a, b) => a - b).map((x) => ({ x, y: apply(family, constant, x) }));
  return {
    family,
    constant,
    solution: solutionOf(family, constant),
    visible: cases(inputs.slice(0, VISIBLE_CASES)),
    hidden: cases(inputs.slice(VISIBLE_CASES, VISIBLE_CASES + HIDDEN_CASES)),
  };
}

/** The problem of a seed; problems whose key is in `exclude` are redrawn from the same generator. */
export function hiddenProblem(seed: number, range: ConstantRange, exclude?: ReadonlySet<string>): HiddenProblem {
  validateConstantRange(range);
  const rng = new SeededRandom(seed);
  // The exclusion holds at most half the space (taskChecks), so 64 redraws fail with p < 2^-64.
  for (let attempt = 0; attempt < 64; attempt++) {
    const p = draw(rng, range);
    if (!exclude?.has(problemKey(p))) return p;
  }
  throw new RangeError(
    `seed ${seed}: every drawn problem is excluded; the held-out set covers too much of the constants ${range.minConstant}–${range.maxConstant}`,
  );
}

/** `count` distinct problems from the seeds `seedAt(0), seedAt(1), …` (duplicates skipped), with the seed each came from. */
export function distinctHiddenProblems(count: number, range: ConstantRange, seedAt: (i: number) => number): { seeds: number[]; problems: HiddenProblem[] } {
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`count must be a non-negative integer, got ${count}`);
  const space = problemCount(range);
  if (count > space) throw new RangeError(`count (${count}) exceeds the ${space} distinct problems with constants ${range.minConstant}–${range.maxConstant}`);
  const seen = new Set<string>();
  const seeds: number[] = [];
  const problems: HiddenProblem[] = [];
  // Coupon collector, as distinctAdditionProblems: the cap stops a pathological request from spinning.
  const cap = 64 * count + 1024;
  for (let i = 0; problems.length < count; i++) {
    if (i >= cap) throw new RangeError(`could not find ${count} distinct problems in ${cap} draws; ask for fewer`);
    const seed = seedAt(i);
    const p = hiddenProblem(seed, range);
    const key = problemKey(p);
    if (seen.has(key)) continue;
    seen.add(key);
    seeds.push(seed);
    problems.push(p);
  }
  return { seeds, problems };
}
