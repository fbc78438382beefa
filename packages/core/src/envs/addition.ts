// E1 Add (docs/algorithms/README.md §8): the prompt is "a+b=" with operands of n digits, n drawn uniformly from
// a configurable range; the answer is the sum written most-significant digit first, then the
// end-of-sequence token. Reward 1 for the exact answer ended by end-of-sequence, else 0: the
// answer verifier (verifier.ts) on the expected answer the episode puts in its info.
//
// Every episode is a pure function of its seed. Held-out problems are removed from training by
// value (not only by seed), so "held-out success" measures generalisation, not recall; the OOD set
// uses longer operands than training ever shows. Operands are drawn digit by digit and summed with
// BigInt, so any digit count is exact.

import { SeededRandom } from '@horizon/kernels';
import type { ActionEnding, Environment, EpisodeStart, SftExample, StepOutcome, Vocabulary } from './environment.ts';
import { AnswerVerifier } from './verifier.ts';

export interface DigitRange {
  minDigits: number;
  maxDigits: number;
}

export interface AdditionProblem {
  a: string;
  b: string;
  /** "a+b=" */
  prompt: string;
  /** The sum, most-significant digit first, no leading zeros. */
  answer: string;
}

/**
 * Digits, '+', '='; the end-of-sequence token is the only special token. No `<unk>`: every prompt
 * and answer is the environment's own text, and one more id would move every trained number.
 */
export const ADDITION_VOCABULARY: Vocabulary = {
  characters: [...'0123456789+='],
  specialTokens: ['<eos>'],
  unknownToken: false,
};

/** Largest operand length accepted; keeps prompts within any context this project trains. */
export const ADDITION_MAX_DIGITS = 20;

export function validateDigitRange(range: DigitRange, name = 'digits'): void {
  const { minDigits, maxDigits } = range;
  for (const [key, v] of [
    ['minDigits', minDigits],
    ['maxDigits', maxDigits],
  ] as const) {
    if (!Number.isInteger(v) || v < 1 || v > ADDITION_MAX_DIGITS)
      throw new RangeError(`${name}.${key} must be an integer in [1, ${ADDITION_MAX_DIGITS}], got ${v}`);
  }
  if (minDigits > maxDigits) throw new RangeError(`${name}.minDigits (${minDigits}) must not exceed ${name}.maxDigits (${maxDigits})`);
}

/** How many distinct operands have exactly n digits (1-digit operands include 0). */
export function operandsWithDigits(n: number): number {
  return n === 1 ? 10 : 9 * 10 ** (n - 1);
}

/** Number of distinct (a, b) problems in a digit range (a float; exact while below 2^53). */
export function additionProblemCount(range: DigitRange): number {
  let operands = 0;
  for (let n = range.minDigits; n <= range.maxDigits; n++) operands += operandsWithDigits(n);
  return operands * operands;
}

export function drawOperand(rng: SeededRandom, range: DigitRange): string {
  const n = rng.int(range.minDigits, range.maxDigits);
  let s = String(rng.int(n === 1 ? 0 : 1, 9));
  for (let i = 1; i < n; i++) s += String(rng.int(0, 9));
  return s;
}

export function makeAdditionProblem(a: string, b: string): AdditionProblem {
  if (!/^(0|[1-9][0-9]*)$/.test(a) || !/^(0|[1-9][0-9]*)$/.test(b))
    throw new RangeError(`operands must be decimal numbers without leading zeros, got "${a}" and "${b}"`);
  return { a, b, prompt: `${a}+${b}=`, answer: (BigInt(a) + BigInt(b)).toString() };
}

/** Draws the problem for a seed; problems in `exclude` (keys "a+b") are redrawn from the same generator. */
export function additionProblem(seed: number, range: DigitRange, exclude?: ReadonlySet<string>): AdditionProblem {
  const rng = new SeededRandom(seed);
  // The exclusion holds at most half the space (recipe check), so 64 redraws fail with p < 2^-64.
  for (let attempt = 0; attempt < 64; attempt++) {
    const a = drawOperand(rng, range);
    const b = drawOperand(rng, range);
    if (!exclude?.has(`${a}+${b}`)) return makeAdditionProblem(a, b);
  }
  throw new RangeError(
    `seed ${seed}: every drawn problem is excluded; the held-out set covers too much of the ${range.minDigits}–${range.maxDigits} digit space`,
  );
}

/**
 * `count` distinct problems from the seeds `seedAt(0), seedAt(1), …` (duplicates skipped), with the
 * seed each came from. Throws if the range has fewer than `count` problems.
 */
export function distinctAdditionProblems(count: number, range: DigitRange, seedAt: (i: number) => number): { seeds: number[]; problems: AdditionProblem[] } {
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`count must be a non-negative integer, got ${count}`);
  const space = additionProblemCount(range);
  if (count > space) throw new RangeError(`count (${count}) exceeds the ${space} distinct problems with ${range.minDigits}–${range.maxDigits} digit operands`);
  const seen = new Set<string>();
  const seeds: number[] = [];
  const problems: AdditionProblem[] = [];
  // Coupon collector: drawing a fraction f of the space takes about −ln(1−f)·space draws; the recipe
  // keeps f ≤ 1/2 for held-out sets, and the cap stops a pathological request from spinning forever.
  const cap = 64 * count + 1024;
  for (let i = 0; problems.length < count; i++) {
    if (i >= cap) throw new RangeError(`could not find ${count} distinct problems in ${cap} draws; ask for fewer`);
    const seed = seedAt(i);
    const p = additionProblem(seed, range);
    const key = `${p.a}+${p.b}`;
    if (seen.has(key)) continue;
    seen.add(key);
    seeds.push(seed);
    problems.push(p);
  }
  return { seeds, problems };
}

/** One single-turn addition episode per reset: the first action is the answer, and ends it. */
export class AdditionEnv implements Environment {
  readonly name = 'addition';
  readonly verifier = new AnswerVerifier();
  private problem: AdditionProblem | undefined;

  /** `exclude`: problem keys "a+b" never to produce (the held-out set, for training envs). */
  constructor(
    readonly range: DigitRange,
    private readonly exclude?: ReadonlySet<string>,
  ) {
    validateDigitRange(range);
  }

  reset(seed: number): EpisodeStart {
    const p = additionProblem(seed, this.range, this.exclude);
    this.problem = p;
    return { prompt: p.prompt, info: { a: p.a, b: p.b, expected: p.answer } };
  }

  /** The current problem (for logging); undefined before the first reset. */
  get current(): AdditionProblem | undefined {
    return this.problem;
  }

  step(_action: string, _ending: ActionEnding): StepOutcome {
    if (!this.problem) throw new Error('AdditionEnv.step called before reset (or twice in one episode)');
    this.problem = undefined;
    return { done: true };
  }

  close(): void {
    this.problem = undefined;
  }
}

export function additionSftExample(problem: AdditionProblem): SftExample {
  return { prompt: problem.prompt, completion: problem.answer };
}
