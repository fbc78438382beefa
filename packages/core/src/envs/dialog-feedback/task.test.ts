// Dialog-feedback as a recipe task: `task.env = dialog-feedback` resolves with its section's
// defaults, the task's SFT demonstrations fit the longest dialogue it declares and encode with its
// vocabulary, evaluation seeds are fixed, the OOD split uses the larger operands, and a bad range
// is a recipe error naming the field.

import { describe, expect, it } from 'vitest';
import { resolveRecipe } from '../../recipe/resolve.ts';
import { CharTokenizer } from '../../tokenizer/char-tokenizer.ts';
import { sftBatch } from '../../train/sft.ts';
import { createTask, taskChecks } from '../tasks.ts';
import type { DialogFeedbackEnv } from './env.ts';
import { dialogFeedbackMaxTokens } from './task.ts';

const recipe = (...sets: string[]) => resolveRecipe({ sets: ['task.env=dialog-feedback', ...sets] }).recipe;

describe('dialog-feedback task', () => {
  it('resolves with its defaults and builds SFT examples that fit its declared longest dialogue', () => {
    const r = recipe();
    expect(r.task.dialogFeedback).toMatchObject({ rounds: 2, maxRetries: 1, maxOperand: 9, oodMaxOperand: 19 });
    const task = createTask(r.task, r.eval);
    const config = r.task.dialogFeedback;
    if (!config) throw new Error('no dialogFeedback section');
    const longest = dialogFeedbackMaxTokens(config);
    const tokenizer = new CharTokenizer(task.vocabulary);
    const examples = Array.from({ length: 200 }, (_, i) => task.sftExample(r.seed, i));
    const batch = sftBatch(examples, tokenizer, tokenizer.eosId, tokenizer.padId, longest + 1);
    expect(batch.T).toBeLessThanOrEqual(longest + 1);
    expect(task.evalSeeds('heldOut')).toEqual(createTask(r.task, r.eval).evalSeeds('heldOut'));
    expect(task.evalSeeds('heldOut')).toHaveLength(r.eval.heldOutSize);
  });

  it('draws OOD operands above the training range', () => {
    const r = recipe();
    const task = createTask(r.task, r.eval);
    const env = task.createEnv('ood') as DialogFeedbackEnv;
    expect(env.config.maxOperand).toBe(19);
    expect((task.createEnv('train') as DialogFeedbackEnv).config.maxOperand).toBe(9);
  });

  it('refuses OOD operands that are not larger than training’s, as a recipe error naming the field', () => {
    expect(() => recipe('task.dialogFeedback.oodMaxOperand=9')).toThrow(/task.dialogFeedback.oodMaxOperand .*must exceed task.dialogFeedback.maxOperand \(9\)/);
    const r = recipe();
    const config = r.task.dialogFeedback;
    if (!config) throw new Error('no dialogFeedback section');
    expect(taskChecks({ ...r.task, dialogFeedback: { ...config, oodMaxOperand: 5 } }, r.eval)[0]).toMatchObject({ path: 'task.dialogFeedback.oodMaxOperand' });
  });
});
