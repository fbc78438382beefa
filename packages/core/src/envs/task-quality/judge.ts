// A rules-based task-quality judge for HiddenTestFS tasks, used to filter tasks before RL (not a
// reward): a task whose instructions do not say what its tests check teaches nothing but guessing
// or cheating, and a policy rewarded on it learns to read the tests. Two verdicts, as the
// task-quality rubrics of agentic RL data pipelines ask them:
//
//   instruction_clear     the README states examples `f(N)=N` (at least two), names the file to
//                         write, and exactly one function of the task's families (x+b, x*a) fits
//                         every example — so the README alone decides the answer;
//   instruction_ut_align  every test case, visible and hidden, is what the README's function gives:
//                         the README says what the tests check.
//
// The judge reads the task's files as an author would (the hidden tests included); it never sees
// an agent. A task is kept iff both hold. Rules, not a language model: this task's format is fixed,
// so rules decide exactly; a free-form task would need a model judge, which this leaves out.

import { HIDDEN_TESTS_PATH, parseCases, README_PATH, SOLUTION_FILE, VISIBLE_TESTS_PATH } from '../hidden-test-fs/files.ts';
import { apply, type Case, FAMILIES, type Family } from '../hidden-test-fs/problems.ts';

export interface TaskQuality {
  instruction_clear: boolean;
  instruction_ut_align: boolean;
  /** Both verdicts hold. */
  keep: boolean;
  /** One sentence per failed rule. */
  reasons: string[];
}

/** Every function of the task's families that fits all `examples` (a constant from the first, checked on the rest). */
function fits(examples: readonly Case[]): { family: Family; constant: number }[] {
  const [first] = examples;
  if (!first) return [];
  const out: { family: Family; constant: number }[] = [];
  for (const family of FAMILIES) {
    const constant = family === 'add' ? first.y - first.x : first.y / first.x;
    if (!Number.isInteger(constant)) continue;
    if (examples.every((c) => apply(family, constant, c.x) === c.y)) out.push({ family, constant });
  }
  return out;
}

/** The README's examples: every `f(N)=N` on its first line; undefined when a piece of that line is something else. */
function readmeExamples(readme: string): Case[] | undefined {
  const pieces = (readme.split('\n')[0] ?? '').split(' ').filter((p) => p !== '');
  const cases: Case[] = [];
  for (const piece of pieces) {
    const m = /^f\((-?\d+)\)=(-?\d+)$/.exec(piece);
    if (!m) return undefined;
    cases.push({ x: Number(m[1]), y: Number(m[2]) });
  }
  return cases;
}

/** Judges one task from its files (HiddenTestFS `taskFiles`). */
export function judgeTask(files: Readonly<Record<string, string>>): TaskQuality {
  const reasons: string[] = [];
  const readme = files[README_PATH];
  if (readme === undefined) reasons.push(`the task has no ${README_PATH}`);
  const examples = readme === undefined ? undefined : readmeExamples(readme);
  if (readme !== undefined && (!examples || examples.length < 2)) reasons.push('the README does not state at least two examples of the form f(N)=N');
  if (readme !== undefined && !readme.includes(`write ${SOLUTION_FILE}`)) reasons.push(`the README does not say to write ${SOLUTION_FILE}`);
  const candidates = examples && examples.length >= 2 ? fits(examples) : [];
  if (examples && examples.length >= 2 && candidates.length !== 1)
    reasons.push(candidates.length === 0 ? 'no x+b or x*a fits the README’s examples' : 'more than one function fits the README’s examples');
  const instruction_clear = reasons.length === 0;
  let instruction_ut_align = false;
  if (instruction_clear) {
    const [{ family, constant }] = candidates;
    const tests = [VISIBLE_TESTS_PATH, HIDDEN_TESTS_PATH].flatMap((path) =>
      files[path] === undefined ? [] : parseCases(files[path], path).map((c) => ({ ...c, path })),
    );
    const wrong = tests.filter((c) => apply(family, constant, c.x) !== c.y);
    if (tests.length === 0) reasons.push('the task has no tests');
    for (const c of wrong) reasons.push(`${c.path} expects f(${c.x})=${c.y}, but the README’s function gives ${apply(family, constant, c.x)}`);
    instruction_ut_align = tests.length > 0 && wrong.length === 0;
  } else reasons.push('the README states no function the tests could be checked against');
  return { instruction_clear, instruction_ut_align, keep: instruction_clear && instruction_ut_align, reasons };
}

/** The seeds whose tasks the judge keeps, and the verdict on each dropped one. */
export function filterTasks(
  seeds: readonly number[],
  filesOf: (seed: number) => Readonly<Record<string, string>>,
): { kept: number[]; dropped: { seed: number; quality: TaskQuality }[] } {
  const kept: number[] = [];
  const dropped: { seed: number; quality: TaskQuality }[] = [];
  for (const seed of seeds) {
    const quality = judgeTask(filesOf(seed));
    if (quality.keep) kept.push(seed);
    else dropped.push({ seed, quality });
  }
  return { kept, dropped };
}
