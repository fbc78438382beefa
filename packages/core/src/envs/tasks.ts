// A task bundles what the trainer needs from an environment family, built from the recipe's `task`
// and `eval` sections: fresh environments per split, the seed of every training episode, the fixed
// evaluation seeds, SFT examples by index, and size limits for the context checks. Adding an
// environment = one more `case` in createTask and taskChecks.
// Six tasks today: addition, subtraction (subtraction.ts) and their mix (mixed.ts), which draws
// each prompt from one of the two skills and tags its sample with it; the mix's held-out and OOD
// sets are the two skills' own sets side by side, so per-skill success compares with either expert;
// hidden-test-fs (hidden-test-fs/), the first agent environment: a multi-turn tool-using task
// in the sandbox, with no arithmetic skill tags; and long-stream (long-stream/), a stream of digits
// read one tool call at a time, long enough to need compaction (compaction.ts); ui-dsl
// (ui-dsl/), a one-shot UI program scored by a static or an interactive judge; and dialog-feedback
// (dialog-feedback/), sums asked in rounds by a scripted user whose implicit feedback labels spans.

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
import { DIALOG_VOCABULARY } from './dialog-feedback/env.ts';
import { type DialogFeedbackTaskConfig, dialogFeedbackChecks, dialogFeedbackLimits, dialogFeedbackTask } from './dialog-feedback/task.ts';
import type { Environment, SftExample, Vocabulary } from './environment.ts';
import { HIDDEN_TEST_FS_VOCABULARY, type HiddenTestFsConfig, hiddenTestFsChecks, hiddenTestFsLimits, hiddenTestFsTask } from './hidden-test-fs/task.ts';
import { LONG_STREAM_VOCABULARY, type LongStreamConfig, longStreamChecks, longStreamLimits, longStreamTask } from './long-stream/task.ts';
import { MixedEnv, SKILL_TAGS, type SkillTag } from './mixed.ts';
import type { Sample } from './sample.ts';
import { episodeSeed, mixSeed } from './seeds.ts';
import {
  ARITHMETIC_VOCABULARY,
  distinctSubtractionProblems,
  SubtractionEnv,
  subtractionProblem,
  subtractionProblemCount,
  subtractionSftExample,
} from './subtraction.ts';
import { UI_DSL_VOCABULARY, type UiDslConfig, uiDslChecks, uiDslLimits, uiDslTask } from './ui-dsl/task.ts';

export interface AdditionTaskConfig {
  minDigits: number;
  maxDigits: number;
  oodMinDigits: number;
  oodMaxDigits: number;
}

export const TASK_ENVS = ['addition', 'subtraction', 'mix', 'hidden-test-fs', 'long-stream', 'ui-dsl', 'dialog-feedback'] as const;
export type TaskEnv = (typeof TASK_ENVS)[number];

export interface TaskConfig {
  env: TaskEnv;
  addition: AdditionTaskConfig;
  /** Subtraction's digit ranges, with the same meaning as addition's (needed when the task has subtraction). */
  subtraction?: AdditionTaskConfig;
  /** Needed when env is 'mix'. */
  mix?: { subtractionShare: number };
  /** Needed when env is 'hidden-test-fs'. */
  hiddenTestFs?: HiddenTestFsConfig;
  /** Needed when env is 'long-stream'. */
  longStream?: LongStreamConfig;
  /** Needed when env is 'ui-dsl'. */
  uiDsl?: UiDslConfig;
  /** Needed when env is 'dialog-feedback'. */
  dialogFeedback?: DialogFeedbackTaskConfig;
}

/** The dialog-feedback section of a task config, which that env needs. */
function dialogFeedbackConfig(task: TaskConfig): DialogFeedbackTaskConfig {
  if (!task.dialogFeedback) throw new RangeError('task.dialogFeedback: missing, but task.env is "dialog-feedback"');
  return task.dialogFeedback;
}

/** The long-stream section of a task config, which that env needs. */
function longStreamConfig(task: TaskConfig): LongStreamConfig {
  if (!task.longStream) throw new RangeError('task.longStream: missing, but task.env is "long-stream"');
  return task.longStream;
}

/** The ui-dsl section of a task config, which that env needs. */
function uiDslConfig(task: TaskConfig): UiDslConfig {
  if (!task.uiDsl) throw new RangeError('task.uiDsl: missing, but task.env is "ui-dsl"');
  return task.uiDsl;
}

/** The hidden-test-fs section of a task config, which that env needs. */
function hiddenTestFsConfig(task: TaskConfig): HiddenTestFsConfig {
  if (!task.hiddenTestFs) throw new RangeError('task.hiddenTestFs: missing, but task.env is "hidden-test-fs"');
  return task.hiddenTestFs;
}

/** The digit ranges of one skill of a task config. */
function skillConfig(task: TaskConfig, skill: SkillTag): AdditionTaskConfig {
  const c = task[skill];
  if (!c) throw new RangeError(`task.${skill}: missing, but task.env "${task.env}" has ${skill}`);
  return c;
}

/**
 * Salts giving subtraction its own episode seeds: its held-out problems are drawn from seeds no
 * addition episode uses, and the mix's choice of skill from a hash independent of the problem.
 */
const SUBTRACTION_SALT = 0x5ab7_0001;
const MIX_CHOICE_SALT = 0x5ab7_0002;

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
  /** The skills its episodes belong to (sample `meta.task` in a mix); a single-skill task has one, hidden-test-fs none. */
  readonly tags: readonly SkillTag[];
  readonly vocabulary: Vocabulary;
  readonly limits: TaskLimits;
  /** A fresh environment; 'train' never produces a held-out problem. One per concurrent episode. */
  createEnv(split: 'train' | EvalSplit): Environment;
  /** Seed of training episode `index` (0-based; the data cursor). */
  trainSeed(runSeed: number, index: number): number;
  /**
   * With a task filter (hidden-test-fs's qualityFilter): the tasks it skipped up to and including
   * training episode `index` (0 for index −1), for `rollout/filtered_tasks`. Absent: nothing is filtered.
   */
  trainTasksDropped?(runSeed: number, index: number): number;
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

/** The arithmetic skills a task config trains on (none for hidden-test-fs and long-stream). */
export function taskSkills(task: Pick<TaskConfig, 'env'>): readonly SkillTag[] {
  if (task.env === 'hidden-test-fs' || task.env === 'long-stream' || task.env === 'ui-dsl' || task.env === 'dialog-feedback') return [];
  return task.env === 'mix' ? SKILL_TAGS : [task.env];
}

export function taskLimits(task: TaskConfig): TaskLimits {
  if (task.env === 'hidden-test-fs') return hiddenTestFsLimits(hiddenTestFsConfig(task));
  if (task.env === 'long-stream') return longStreamLimits();
  if (task.env === 'ui-dsl') return uiDslLimits();
  if (task.env === 'dialog-feedback') return dialogFeedbackLimits(dialogFeedbackConfig(task));
  let maxPromptChars = 0;
  let maxResponseChars = 0;
  for (const skill of taskSkills(task)) {
    const c = skillConfig(task, skill);
    const longest = Math.max(c.maxDigits, c.oodMaxDigits);
    maxPromptChars = Math.max(maxPromptChars, 2 * longest + 2);
    // A sum may carry into one more digit; a difference a − b ≤ a never does.
    maxResponseChars = Math.max(maxResponseChars, skill === 'addition' ? longest + 1 : longest);
  }
  return { maxPromptChars, maxResponseChars };
}

const PROBLEM_COUNT: Record<SkillTag, (range: DigitRange) => number> = { addition: additionProblemCount, subtraction: subtractionProblemCount };

/** Cross-field checks that only the task can make (digit ranges, evaluation set sizes), for each skill it trains. */
export function taskChecks(task: TaskConfig, sizes: EvalSizes): TaskIssue[] {
  if (task.env === 'hidden-test-fs') return hiddenTestFsChecks(hiddenTestFsConfig(task), sizes);
  if (task.env === 'long-stream') return longStreamChecks(longStreamConfig(task), sizes);
  if (task.env === 'ui-dsl') return uiDslChecks(sizes);
  if (task.env === 'dialog-feedback') return dialogFeedbackChecks(dialogFeedbackConfig(task));
  const issues: TaskIssue[] = [];
  for (const skill of taskSkills(task)) {
    const c = skillConfig(task, skill);
    const at = `task.${skill}`;
    // Addition's messages read as they did when it was the only task.
    const problems = skill === 'addition' ? 'problems' : `${skill} problems`;
    const own: TaskIssue[] = [];
    if (c.minDigits > c.maxDigits) own.push({ path: `${at}.minDigits`, message: `must not exceed ${at}.maxDigits (${c.maxDigits}), got ${c.minDigits}` });
    if (c.oodMinDigits > c.oodMaxDigits)
      own.push({ path: `${at}.oodMinDigits`, message: `must not exceed ${at}.oodMaxDigits (${c.oodMaxDigits}), got ${c.oodMinDigits}` });
    if (c.oodMinDigits <= c.maxDigits)
      own.push({
        path: `${at}.oodMinDigits`,
        message: `must exceed ${at}.maxDigits (${c.maxDigits}) so OOD operands are longer than any trained, got ${c.oodMinDigits}`,
      });
    issues.push(...own);
    if (own.length > 0) continue;
    // At most half the training space is held out, so training keeps most problems and redraws stay rare.
    const trainSpace = PROBLEM_COUNT[skill](trainRange(c));
    if (sizes.heldOutSize > trainSpace / 2)
      issues.push({
        path: 'eval.heldOutSize',
        message: `must be at most half of the ${trainSpace} ${problems} with ${c.minDigits}–${c.maxDigits} digit operands, got ${sizes.heldOutSize}`,
      });
    const oodSpace = PROBLEM_COUNT[skill](oodRange(c));
    if (sizes.oodSize > oodSpace) issues.push({ path: 'eval.oodSize', message: `must be at most the ${oodSpace} OOD ${problems}, got ${sizes.oodSize}` });
  }
  return issues;
}

/** The skill a sample belongs to: its `meta.task` tag in a mix, else the task's one skill. */
export function sampleSkill(sample: Pick<Sample, 'meta'>, task: Pick<Task, 'tags'>): SkillTag {
  const tag = sample.meta.task;
  return typeof tag === 'string' && (task.tags as readonly string[]).includes(tag) ? (tag as SkillTag) : task.tags[0];
}

/** The vocabulary of a task config: addition alone keeps its own; any task with subtraction has '-'; hidden-test-fs and long-stream their own. */
export function taskVocabulary(task: Pick<TaskConfig, 'env'>): Vocabulary {
  if (task.env === 'hidden-test-fs') return HIDDEN_TEST_FS_VOCABULARY;
  if (task.env === 'long-stream') return LONG_STREAM_VOCABULARY;
  if (task.env === 'ui-dsl') return UI_DSL_VOCABULARY;
  if (task.env === 'dialog-feedback') return DIALOG_VOCABULARY;
  return task.env === 'addition' ? ADDITION_VOCABULARY : ARITHMETIC_VOCABULARY;
}

export function createTask(task: TaskConfig, sizes: EvalSizes): Task {
  if (!(TASK_ENVS as readonly string[]).includes(task.env)) throw new RangeError(`task.env: unknown environment "${task.env}"`);
  const issues = taskChecks(task, sizes);
  if (issues.length > 0) throw new RangeError(`${issues[0].path} ${issues[0].message}`);
  if (task.env === 'addition') return additionTask(task, sizes);
  if (task.env === 'hidden-test-fs') return hiddenTestFsTask(hiddenTestFsConfig(task), sizes);
  if (task.env === 'long-stream') return longStreamTask(longStreamConfig(task), sizes);
  if (task.env === 'ui-dsl') return uiDslTask(uiDslConfig(task), sizes);
  if (task.env === 'dialog-feedback') return dialogFeedbackTask(dialogFeedbackConfig(task), sizes);
  const subtraction = subtractionSkill(skillConfig(task, 'subtraction'), sizes);
  if (task.env === 'subtraction')
    return {
      name: 'subtraction',
      tags: ['subtraction'],
      vocabulary: ARITHMETIC_VOCABULARY,
      limits: taskLimits(task),
      createEnv: subtraction.createEnv,
      trainSeed: subtraction.trainSeed,
      evalSeeds: subtraction.evalSeeds,
      sftExample: subtraction.sftExample,
    };
  return mixTask(task, additionTask(task, sizes), subtraction);
}

/** Addition alone, exactly as before subtraction existed (its seeds, sets and vocabulary). */
function additionTask(task: TaskConfig, sizes: EvalSizes): Task {
  const c = task.addition;
  const train = trainRange(c);
  const ood = oodRange(c);
  const heldOut = distinctAdditionProblems(sizes.heldOutSize, train, (i) => episodeSeed(0, 'heldOut', i));
  const oodSet = distinctAdditionProblems(sizes.oodSize, ood, (i) => episodeSeed(0, 'ood', i));
  const excluded: ReadonlySet<string> = new Set(heldOut.problems.map((p: AdditionProblem) => `${p.a}+${p.b}`));
  return {
    name: 'addition',
    tags: ['addition'],
    vocabulary: ADDITION_VOCABULARY,
    limits: taskLimits(task),
    createEnv: (split) => new AdditionEnv(split === 'ood' ? ood : train, split === 'train' ? excluded : undefined),
    trainSeed: (runSeed, index) => episodeSeed(runSeed, 'train', index),
    evalSeeds: (split) => (split === 'heldOut' ? heldOut.seeds : oodSet.seeds),
    sftExample: (runSeed, index) => additionSftExample(additionProblem(episodeSeed(runSeed, 'sft', index), train, excluded)),
  };
}

/** Subtraction's episodes: addition's seed streams salted, so its problems are its own. */
function subtractionSkill(c: AdditionTaskConfig, sizes: EvalSizes): Pick<Task, 'createEnv' | 'trainSeed' | 'evalSeeds' | 'sftExample'> {
  const train = trainRange(c);
  const ood = oodRange(c);
  const salted = (seed: number) => mixSeed(seed, SUBTRACTION_SALT);
  const heldOut = distinctSubtractionProblems(sizes.heldOutSize, train, (i) => salted(episodeSeed(0, 'heldOut', i)));
  const oodSet = distinctSubtractionProblems(sizes.oodSize, ood, (i) => salted(episodeSeed(0, 'ood', i)));
  const excluded: ReadonlySet<string> = new Set(heldOut.problems.map((p) => `${p.a}-${p.b}`));
  return {
    createEnv: (split) => new SubtractionEnv(split === 'ood' ? ood : train, split === 'train' ? excluded : undefined),
    trainSeed: (runSeed, index) => salted(episodeSeed(runSeed, 'train', index)),
    evalSeeds: (split) => (split === 'heldOut' ? heldOut.seeds : oodSet.seeds),
    sftExample: (runSeed, index) => subtractionSftExample(subtractionProblem(salted(episodeSeed(runSeed, 'sft', index)), train, excluded)),
  };
}

/**
 * Addition and subtraction mixed: training episode `index` is subtraction with probability
 * `task.mix.subtractionShare` (from a hash of its seed, so a resume draws the same), else addition,
 * with that skill's own seed; evaluation sets are both skills' sets, each episode's skill known by its seed.
 */
function mixTask(task: TaskConfig, addition: Task, subtraction: ReturnType<typeof subtractionSkill>): Task {
  const share = task.mix?.subtractionShare ?? 0.5;
  // A training or SFT episode's seed s decides its skill; subtraction then salts s as it does alone.
  const skillOf = (seed: number): SkillTag => (mixSeed(seed, MIX_CHOICE_SALT) / 2 ** 32 < share ? 'subtraction' : 'addition');
  const ownSeed = (tag: SkillTag, seed: number) => (tag === 'subtraction' ? mixSeed(seed, SUBTRACTION_SALT) : seed);
  const trainRoute = (seed: number) => {
    const tag = skillOf(seed);
    return { tag, seed: ownSeed(tag, seed) };
  };
  // Evaluation seeds are each skill's own; a seed in both sets (p ≈ 2^-32 per pair) is dropped.
  const evalSkill: Record<EvalSplit, Map<number, SkillTag>> = { heldOut: new Map(), ood: new Map() };
  for (const split of ['heldOut', 'ood'] as const) {
    const add = addition.evalSeeds(split);
    const sub = subtraction.evalSeeds(split);
    const both = new Set(add.filter((seed) => sub.includes(seed)));
    for (const seed of add) if (!both.has(seed)) evalSkill[split].set(seed, 'addition');
    for (const seed of sub) if (!both.has(seed)) evalSkill[split].set(seed, 'subtraction');
  }
  const evalSeeds = { heldOut: [...evalSkill.heldOut.keys()], ood: [...evalSkill.ood.keys()] };
  const sft = { addition: addition.sftExample, subtraction: subtraction.sftExample };
  return {
    name: 'mix',
    tags: SKILL_TAGS,
    vocabulary: ARITHMETIC_VOCABULARY,
    limits: taskLimits(task),
    createEnv: (split) => {
      const envs = { addition: addition.createEnv(split), subtraction: subtraction.createEnv(split) };
      if (split === 'train') return new MixedEnv(envs, trainRoute);
      const of = evalSkill[split];
      return new MixedEnv(envs, (seed) => {
        const tag = of.get(seed);
        if (!tag) throw new RangeError(`seed ${seed} is not in the mix's ${split} set`);
        return { tag, seed };
      });
    },
    trainSeed: (runSeed, index) => episodeSeed(runSeed, 'train', index),
    evalSeeds: (split) => evalSeeds[split],
    sftExample: (runSeed, index) => sft[skillOf(episodeSeed(runSeed, 'sft', index))](runSeed, index),
  };
}
