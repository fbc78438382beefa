// Dialog-feedback as a trainer task (envs/tasks.ts): its recipe config, vocabulary, limits, seeds,
// evaluation sets and SFT demonstrations. Seeds are the shared streams (seeds.ts) salted with the
// task's own word. Held-out dialogues come from the held-out stream over the same operands: with
// 100 sums of operands 0–9 nearly every problem appears in training too, so held-out success
// measures dialogues (their order and the user's replies), not unseen sums. The OOD set uses larger
// operands (oodMaxOperand), arithmetic the training never shows.

import { episodeSeed, mixSeed } from '../seeds.ts';
import type { EvalSizes, EvalSplit, Task, TaskIssue, TaskLimits } from '../tasks.ts';
import { dialogSftExample } from './demonstrations.ts';
import { DIALOG_VOCABULARY, type DialogConfig, DialogFeedbackEnv } from './env.ts';
import { USER_TEXT } from './scripted-user.ts';

export interface DialogFeedbackTaskConfig {
  rounds: number;
  maxRetries: number;
  maxOperand: number;
  /** Out-of-distribution operands are maxOperand+1 … oodMaxOperand. */
  oodMaxOperand: number;
  positiveIfRight: number;
  negativeIfWrong: number;
  flip: number;
}

const DIALOG_SALT = 0xd1a1_0003;

function dialogConfig(c: DialogFeedbackTaskConfig, split: 'train' | EvalSplit): DialogConfig {
  return {
    rounds: c.rounds,
    maxRetries: c.maxRetries,
    maxOperand: split === 'ood' ? c.oodMaxOperand : c.maxOperand,
    rates: { positiveIfRight: c.positiveIfRight, negativeIfWrong: c.negativeIfWrong, flip: c.flip },
  };
}

export function dialogFeedbackLimits(c: DialogFeedbackTaskConfig): TaskLimits {
  const operand = String(Math.max(c.maxOperand, c.oodMaxOperand));
  return { maxPromptChars: 2 * operand.length + 2, maxResponseChars: String(2 * Math.max(c.maxOperand, c.oodMaxOperand)).length };
}

/** Tokens of the longest dialogue the task can produce: every round retried, each reply the longest. */
export function dialogFeedbackMaxTokens(c: DialogFeedbackTaskConfig): number {
  const { maxPromptChars: question, maxResponseChars: answer } = dialogFeedbackLimits(c);
  const reply = Math.max(...Object.values(USER_TEXT).map((t) => t.length));
  const turns = c.rounds * (1 + c.maxRetries);
  return question + turns * (answer + 1) + (turns - 1) * (reply + question);
}

export function dialogFeedbackChecks(c: DialogFeedbackTaskConfig): TaskIssue[] {
  const at = 'task.dialogFeedback';
  const issues: TaskIssue[] = [];
  if (c.oodMaxOperand <= c.maxOperand)
    issues.push({
      path: `${at}.oodMaxOperand`,
      message: `must exceed ${at}.maxOperand (${c.maxOperand}) so OOD operands are larger than any trained, got ${c.oodMaxOperand}`,
    });
  return issues;
}

export function dialogFeedbackTask(c: DialogFeedbackTaskConfig, sizes: EvalSizes): Task {
  const salted = (seed: number) => mixSeed(seed, DIALOG_SALT);
  const evalSeeds: Record<EvalSplit, number[]> = {
    heldOut: Array.from({ length: sizes.heldOutSize }, (_, i) => salted(episodeSeed(0, 'heldOut', i))),
    ood: Array.from({ length: sizes.oodSize }, (_, i) => salted(episodeSeed(0, 'ood', i))),
  };
  return {
    name: 'dialog-feedback',
    tags: [],
    vocabulary: DIALOG_VOCABULARY,
    limits: dialogFeedbackLimits(c),
    createEnv: (split) => new DialogFeedbackEnv(dialogConfig(c, split)),
    trainSeed: (runSeed, index) => salted(episodeSeed(runSeed, 'train', index)),
    evalSeeds: (split) => evalSeeds[split],
    sftExample: (runSeed, index) => dialogSftExample(salted(episodeSeed(runSeed, 'sft', index)), dialogConfig(c, 'train')),
  };
}
