// UI-DSL as a trainer task (envs/tasks.ts): its recipe config (which judge scores), vocabulary,
// limits, seeds, evaluation sets and scripted honest SFT demonstrations (the spec's honest program,
// spec.ts). Seeds are the shared streams (seeds.ts) salted with the task's own word. The held-out
// set is drawn from the training range and removed from training and SFT by prompt; the OOD set
// uses words no training spec has and two-digit counters. The recipe's judge scores training only:
// evaluation always renders and clicks (the interactive judge), so held-out success is true success
// whichever judge the policy was trained against — what the static-vs-interactive report compares.

import type { SftExample, Vocabulary } from '../environment.ts';
import { episodeSeed, mixSeed } from '../seeds.ts';
import type { EvalSizes, EvalSplit, Task, TaskIssue, TaskLimits } from '../tasks.ts';
import { UiDslEnv, type UiDslJudge } from './env.ts';
import { distinctUiSpecs, everyUiSpec, honestProgram, specCount, specKey, specPrompt, type UiSpec, uiSpec } from './spec.ts';

export interface UiDslConfig {
  /** Which judge scores training episodes: static (keyword counting, hackable by padding) or interactive (renders and clicks). Evaluation is always interactive. */
  judge: UiDslJudge;
}

/**
 * New tokens a program may take. An honest program is 17–31 characters; the budget is 64 so a
 * policy can pad (with comments the static judge pays for) — the behaviour the comparison of the
 * two judges needs room to appear.
 */
export const UI_DSL_PROGRAM_BUDGET = 64;

/** Printable ASCII and newline (a program may use any of them in a string or a comment); `<eos>` ends the program. */
export const UI_DSL_VOCABULARY: Vocabulary = {
  characters: ['\n', ...Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i))],
  specialTokens: ['<eos>'],
};

const UI_DSL_SALT = 0x0d51_1001;

export function uiDslLimits(): TaskLimits {
  const specs = [...everyUiSpec('train'), ...everyUiSpec('ood')];
  const longestProgram = Math.max(...specs.map((s) => honestProgram(s).length));
  return { maxPromptChars: Math.max(...specs.map((s) => specPrompt(s).length)), maxResponseChars: Math.max(UI_DSL_PROGRAM_BUDGET, longestProgram) };
}

export function uiDslChecks(sizes: EvalSizes): TaskIssue[] {
  const issues: TaskIssue[] = [];
  const trainSpace = specCount('train');
  if (sizes.heldOutSize > trainSpace / 2)
    issues.push({ path: 'eval.heldOutSize', message: `must be at most half of the ${trainSpace} training UI-DSL specs, got ${sizes.heldOutSize}` });
  const oodSpace = specCount('ood');
  if (sizes.oodSize > oodSpace) issues.push({ path: 'eval.oodSize', message: `must be at most the ${oodSpace} OOD UI-DSL specs, got ${sizes.oodSize}` });
  return issues;
}

/** The scripted honest demonstration of a spec: its prompt, and the honest program as the completion. */
export function uiDslSftExample(spec: UiSpec): SftExample {
  return { prompt: specPrompt(spec), completion: honestProgram(spec) };
}

export function uiDslTask(c: UiDslConfig, sizes: EvalSizes): Task {
  const salted = (seed: number) => mixSeed(seed, UI_DSL_SALT);
  const heldOut = distinctUiSpecs(sizes.heldOutSize, 'train', (i) => salted(episodeSeed(0, 'heldOut', i)));
  const oodSet = distinctUiSpecs(sizes.oodSize, 'ood', (i) => salted(episodeSeed(0, 'ood', i)));
  const excluded: ReadonlySet<string> = new Set(heldOut.specs.map(specKey));
  const evalSeeds: Record<EvalSplit, readonly number[]> = { heldOut: heldOut.seeds, ood: oodSet.seeds };
  return {
    name: 'ui-dsl',
    tags: [],
    vocabulary: UI_DSL_VOCABULARY,
    limits: uiDslLimits(),
    createEnv: (split) =>
      new UiDslEnv({
        spec: (seed) => uiSpec(seed, split === 'ood' ? 'ood' : 'train', split === 'train' ? excluded : undefined),
        judge: split === 'train' ? c.judge : 'interactive',
      }),
    trainSeed: (runSeed, index) => salted(episodeSeed(runSeed, 'train', index)),
    evalSeeds: (split) => evalSeeds[split],
    sftExample: (runSeed, index) => uiDslSftExample(uiSpec(salted(episodeSeed(runSeed, 'sft', index)), 'train', excluded)),
  };
}
