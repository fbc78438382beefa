// E1′ Subtract, the second arithmetic skill (docs/algorithms/README.md §8): the prompt is "a-b=" with
// a ≥ b, both with n digits drawn as in addition (addition.ts), so the answer is never negative; it
// is the difference written most-significant digit first without leading zeros, then end-of-sequence.
// Reward 1 for the exact answer ended by end-of-sequence, else 0 (the answer verifier). It exists so that two experts can
// be trained on different skills and merged into one student by multi-teacher distillation
// (docs/algorithms/distillation.md).
//
// As in addition, every episode is a pure function of its seed, held-out problems are excluded from
// training by value, and the OOD set uses longer operands. Two operands are drawn and the larger
// goes first, so problems are unordered pairs {a, b} written larger first.
// Leaves out: negative answers (no '-' in any answer) and borrowing curricula.

import { SeededRandom } from '@horizon/kernels';
import { type DigitRange, drawOperand, operandsWithDigits, validateDigitRange } from './addition.ts';
import type { ActionEnding, Environment, EpisodeStart, SftExample, StepOutcome, Vocabulary } from './environment.ts';
import { AnswerVerifier } from './verifier.ts';

export interface SubtractionProblem {
  /** The larger operand (a ≥ b). */
  a: string;
  b: string;
  /** "a-b=" */
  prompt: string;
  /** a − b, most-significant digit first, no leading zeros. */
  answer: string;
}

/**
 * The characters of every arithmetic task that has subtraction in it: addition's twelve with '-'
 * appended, so each character keeps the id it has in ADDITION_VOCABULARY and only a new id (13) is
 * added; the tokenizer appends <unk> after it (14). The addition task itself keeps its own 13-token
 * vocabulary, without <unk>, so its runs are unchanged.
 */
export const ARITHMETIC_VOCABULARY: Vocabulary = {
  characters: [...'0123456789+=-'],
  specialTokens: ['<eos>'],
};

/** Distinct problems in a digit range: unordered operand pairs, a pair of equal operands counted once. */
export function subtractionProblemCount(range: DigitRange): number {
  let operands = 0;
  for (let n = range.minDigits; n <= range.maxDigits; n++) operands += operandsWithDigits(n);
  return (operands * (operands + 1)) / 2;
}

/** The problem "a-b=" with a ≥ b (the operands are swapped if needed). */
export function makeSubtractionProblem(x: string, y: string): SubtractionProblem {
  if (!/^(0|[1-9][0-9]*)$/.test(x) || !/^(0|[1-9][0-9]*)$/.test(y))
    throw new RangeError(`operands must be decimal numbers without leading zeros, got "${x}" and "${y}"`);
  const [a, b] = BigInt(x) >= BigInt(y) ? [x, y] : [y, x];
  return { a, b, prompt: `${a}-${b}=`, answer: (BigInt(a) - BigInt(b)).toString() };
}

/** Draws the problem for a seed; problems in `exclude` (keys "a-b") are redrawn from the same generator. */
export function subtractionProblem(seed: number, range: DigitRange, exclude?: ReadonlySet<string>): SubtractionProblem {
  const rng = new SeededRandom(seed);
  // The exclusion holds at most half the space (task checks), so 64 redraws fail with p < 2^-64.
  for (let attempt = 0; attempt < 64; attempt++) {
    const p = makeSubtractionProblem(drawOperand(rng, range), drawOperand(rng, range));
    if (!exclude?.has(`${p.a}-${p.b}`)) return p;
  }
  throw new RangeError(
    `seed ${seed}: every drawn problem is excluded; the held-out set covers too much of the ${range.minDigits}–${range.maxDigits} digit space`,
  );
}

/** `count` distinct problems from the seeds `seedAt(0), seedAt(1), …` (duplicates skipped), with their seeds. */
export function distinctSubtractionProblems(
  count: number,
  range: DigitRange,
  seedAt: (i: number) => number,
): { seeds: number[]; problems: SubtractionProblem[] } {
  const space = subtractionProblemCount(range);
  if (count > space) throw new RangeError(`count (${count}) exceeds the ${space} distinct problems with ${range.minDigits}–${range.maxDigits} digit operands`);
  const seen = new Set<string>();
  const seeds: number[] = [];
  const problems: SubtractionProblem[] = [];
  const cap = 64 * count + 1024;
  for (let i = 0; problems.length < count; i++) {
    if (i >= cap) throw new RangeError(`could not find ${count} distinct problems in ${cap} draws; ask for fewer`);
    const p = subtractionProblem(seedAt(i), range);
    const key = `${p.a}-${p.b}`;
    if (seen.has(key)) continue;
    seen.add(key);
    seeds.push(seedAt(i));
    problems.push(p);
  }
  return { seeds, problems };
}

/** One single-turn subtraction episode per reset. */
export class SubtractionEnv implements Environment {
  readonly name = 'subtraction';
  readonly verifier = new AnswerVerifier();
  private problem: SubtractionProblem | undefined;

  /** `exclude`: problem keys "a-b" never to produce (the held-out set, for training envs). */
  constructor(
    readonly range: DigitRange,
    private readonly exclude?: ReadonlySet<string>,
  ) {
    validateDigitRange(range);
  }

  reset(seed: number): EpisodeStart {
    const p = subtractionProblem(seed, this.range, this.exclude);
    this.problem = p;
    return { prompt: p.prompt, info: { a: p.a, b: p.b, expected: p.answer } };
  }

  step(_action: string, _ending: ActionEnding): StepOutcome {
    if (!this.problem) throw new Error('SubtractionEnv.step called before reset (or twice in one episode)');
    this.problem = undefined;
    return { done: true };
  }

  close(): void {
    this.problem = undefined;
  }
}

export function subtractionSftExample(problem: SubtractionProblem): SftExample {
  return { prompt: problem.prompt, completion: problem.answer };
}
