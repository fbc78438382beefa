// A task bundles what the trainer needs from an environment family, built from the recipe's `task`
// and `eval` sections: fresh environments per split, the seed of every training episode, the fixed
// evaluation seeds, SFT examples by index, and size limits for the context checks. Adding an
// environment = one more `case` in createTask and taskChecks.

import {
  ADDITION_VOCABULARY,
  AdditionEnv,
  type AdditionProblem,
  additionProblem,
  additionProblemCount,
  additionSftExample,
  type DigitRange,
  distinctAdditionProblems,
} from './addition.ts';
import type { Environment, SftExample, Vocabulary } from './environment.ts';
import { episodeSeed } from './seeds.ts';

export interface AdditionTaskConfig {
  minDigits: number;
  maxDigits: number;
  oodMinDigits: number;
  oodMaxDigits: number;
}

export interface TaskConfig {
  env: 'addition';
  addition: AdditionTaskConfig;
}

export interface EvalSizes {
  heldOutSize: number;
  oodSize: number;
}

export type EvalSplit = 'heldOut' | 'ood';

/** Longest texts the task produces, in characters (= tokens for a character-level tokenizer). */
export interface TaskLimits {
  /** Longest first prompt over training and OOD episodes. */
  maxPromptChars: number;
  /** Longest correct response, end-of-sequence not counted. */
  maxResponseChars: number;
}

export interface Task {
  readonly name: string;
  readonly vocabulary: Vocabulary;
  readonly limits: TaskLimits;
  /** A fresh environment; 'train' never produces a held-out problem. One per concurrent episode. */
  createEnv(split: 'train' | EvalSplit): Environment;
  /** Seed of training episode `index` (0-based; the data cursor). */
  trainSeed(runSeed: number, index: number): number;
  /** The fixed seeds of an evaluation set, the same in every run. */
  evalSeeds(split: EvalSplit): readonly number[];
  /** SFT warm-start example `index` (0-based), from the training distribution. */
  sftExample(runSeed: number, index: number): SftExample;
}

/** A problem with a recipe path: cross-field checks report these as recipe errors. */
export interface TaskIssue {
  path: string;
  message: string;
}

function trainRange(c: AdditionTaskConfig): DigitRange {
  return { minDigits: c.minDigits, maxDigits: c.maxDigits };
}

function oodRange(c: AdditionTaskConfig): DigitRange {
  return { minDigits: c.oodMinDigits, maxDigits: c.oodMaxDigits };
}

export function taskLimits(task: TaskConfig): TaskLimits {
  const c = task.addition;
  const longest = Math.max(c.maxDigits, c.oodMaxDigits);
  return { maxPromptChars: 2 * longest + 2, maxResponseChars: longest + 1 };
}

/** Cross-field checks that only the task can make (digit ranges, evaluation set sizes). */
export function taskChecks(task: TaskConfig, sizes: EvalSizes): TaskIssue[] {
  const c = task.addition;
  const issues: TaskIssue[] = [];
  if (c.minDigits > c.maxDigits)
    issues.push({ path: 'task.addition.minDigits', message: `must not exceed task.addition.maxDigits (${c.maxDigits}), got ${c.minDigits}` });
  if (c.oodMinDigits > c.oodMaxDigits)
    issues.push({ path: 'task.addition.oodMinDigits', message: `must not exceed task.addition.oodMaxDigits (${c.oodMaxDigits}), got ${c.oodMinDigits}` });
  if (c.oodMinDigits <= c.maxDigits)
    issues.push({
      path: 'task.addition.oodMinDigits',
      message: `must exceed task.addition.maxDigits (${c.maxDigits}) so OOD operands are longer than any trained, got ${c.oodMinDigits}`,
    });
  if (issues.length > 0) return issues;
  // At most half the training space is held out, so training keeps most problems and redraws stay rare.
  const trainSpace = additionProblemCount(trainRange(c));
  if (sizes.heldOutSize > trainSpace / 2)
    issues.push({
      path: 'eval.heldOutSize',
      message: `must be at most half of the ${trainSpace} problems with ${c.minDigits}–${c.maxDigits} digit operands, got ${sizes.heldOutSize}`,
    });
  const oodSpace = additionProblemCount(oodRange(c));
  if (sizes.oodSize > oodSpace) issues.push({ path: 'eval.oodSize', message: `must be at most the ${oodSpace} OOD problems, got ${sizes.oodSize}` });
  return issues;
}

export function createTask(task: TaskConfig, sizes: EvalSizes): Task {
  if (task.env !== 'addition') throw new RangeError(`task.env: unknown environment "${task.env}"`);
  const issues = taskChecks(task, sizes);
  if (issues.length > 0) throw new RangeError(`${issues[0].path} ${issues[0].message}`);
  const c = task.addition;
  const train = trainRange(c);
  const ood = oodRange(c);
  const heldOut = distinctAdditionProblems(sizes.heldOutSize, train, (i) => episodeSeed(0, 'heldOut', i));
  const oodSet = distinctAdditionProblems(sizes.oodSize, ood, (i) => episodeSeed(0, 'ood', i));
  const excluded: ReadonlySet<string> = new Set(heldOut.problems.map((p: AdditionProblem) => `${p.a}+${p.b}`));
  return {
    name: 'addition',
    vocabulary: ADDITION_VOCABULARY,
    limits: taskLimits(task),
    createEnv: (split) => new AdditionEnv(split === 'ood' ? ood : train, split === 'train' ? excluded : undefined),
    trainSeed: (runSeed, index) => episodeSeed(runSeed, 'train', index),
    evalSeeds: (split) => (split === 'heldOut' ? heldOut.seeds : oodSet.seeds),
    sftExample: (runSeed, index) => additionSftExample(additionProblem(episodeSeed(runSeed, 'sft', index), train, excluded)),
  };
}
