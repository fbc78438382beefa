// HiddenTestFS as a trainer task (envs/tasks.ts): its recipe config, vocabulary, limits, seeds,
// evaluation sets and SFT demonstrations. Seeds are the shared streams (seeds.ts) salted with the
// task's own word, so its problems never coincide with arithmetic's by construction of the seeds.
// The held-out set is drawn from the training constants and removed from training and SFT by value;
// the OOD set uses larger constants (oodMinConstant–oodMaxConstant, two digits by default).
// Broken tasks (defects.ts) enter the training split only; with qualityFilter on, the training
// stream skips every task the task-quality judge rejects (task-quality/filtered-stream.ts).

import { SeededRandom } from '@horizon/kernels';
import type { MonitorConfig } from '../../monitor/monitor.ts';
import type { Vocabulary } from '../environment.ts';
import { episodeSeed, mixSeed } from '../seeds.ts';
import { filteredStream } from '../task-quality/filtered-stream.ts';
import { judgeTask } from '../task-quality/judge.ts';
import type { EvalSizes, EvalSplit, Task, TaskIssue, TaskLimits } from '../tasks.ts';
import { checkDefectOption, type DefectOption, maybeDefective } from './defects.ts';
import { HiddenTestFsEnv } from './env.ts';
import { PROMPT, taskFiles } from './files.ts';
import { type ConstantRange, distinctHiddenProblems, hiddenProblem, problemCount, problemKey } from './problems.ts';
import { demonstrationTurns, hackDemonstration, honestDemonstration, turnTokens } from './solver.ts';
import type { UnsubmittedRule } from './unsubmitted.ts';

export interface HiddenTestFsConfig {
  /** `.eval/` readable (the hack path open); false: Permission denied, and attempts still recorded. */
  hackOpen: boolean;
  minConstant: number;
  maxConstant: number;
  oodMinConstant: number;
  oodMaxConstant: number;
  /** The anti-hack monitor on every `sh` call (docs/monitor.md); absent: off. */
  monitor?: MonitorConfig;
  /**
   * The share of SFT demonstrations that take the hack path (read `.eval/f.js`, copy it, submit)
   * instead of the honest one, drawn per example; needs hackOpen. Absent: 0, the honest warm start.
   */
  hackDemoShare?: number;
  /** Deliberately broken training tasks or canaries (defects.ts), to test the task-quality judge and catch cheating; absent or a share of 0: none. */
  defects?: DefectOption;
  /**
   * Skip every training task the task-quality judge rejects (task-quality/judge.ts): filtered
   * episode i is the i-th task of the unfiltered stream the judge keeps. Absent: false.
   */
  qualityFilter?: boolean;
  /** How a training episode that ended without `submit` is scored (grading.ts); evaluation always grades. Absent: 'grade'. */
  unsubmitted?: UnsubmittedRule;
}

/**
 * Tokens the SFT demonstrations may take, prompt to the last action: the revision path (a wrong
 * first write, a failing run_tests, the fix) takes up to about 190, so the task trains at a
 * context of 192 (docs/environments.md §7).
 */
export const HIDDEN_TEST_FS_DEMO_TOKENS = 192;

/**
 * Printable ASCII and newline: the policy writes shell lines, and the shell answers in GNU's words
 * ("Permission denied"). `<unk>` stays for anything else a tool prints. The four tool-call tags and
 * end-of-sequence are the specials.
 */
export const HIDDEN_TEST_FS_VOCABULARY: Vocabulary = {
  characters: ['\n', ...Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i))],
  specialTokens: ['<eos>', '<tool_call>', '</tool_call>', '<tool_result>', '</tool_result>'],
};

/** Salts the shared seed streams so this task's episodes are its own. */
const HIDDEN_TEST_FS_SALT = 0x41d0_0001;
/** Salts an SFT example's seed into the seed that picks its demonstration's optional steps. */
const DEMO_PLAN_SALT = 0x41d0_0002;
/**
 * Salts an SFT example's seed into the seed of its one hack-or-honest draw: a stream of its own, so
 * the honest examples, their problems and plans are the same at every share (a share of 0 is
 * today's warm start, token for token).
 */
const HACK_DEMO_SALT = 0x41d0_0003;
/** Salts a hack demonstration's seed into the seed that picks its form (echoed or direct copy). */
const HACK_FORM_SALT = 0x41d0_0004;

/** The seed of a run's SFT example `index`: its problem is the training episode's of that seed, so a test can replay the demonstration in that episode. */
export function hiddenTestFsSftSeed(runSeed: number, index: number): number {
  return mixSeed(episodeSeed(runSeed, 'sft', index), HIDDEN_TEST_FS_SALT);
}

function trainRange(c: HiddenTestFsConfig): ConstantRange {
  return { minConstant: c.minConstant, maxConstant: c.maxConstant };
}
function oodRange(c: HiddenTestFsConfig): ConstantRange {
  return { minConstant: c.oodMinConstant, maxConstant: c.oodMaxConstant };
}

export function hiddenTestFsLimits(c: HiddenTestFsConfig): TaskLimits {
  // The longest action is in the plan with every step, on the largest constant (x+k and x*k write alike).
  const all = { readNotes: true, listTask: true, readTests: true, revise: true, readBack: true, check: true };
  let maxResponseChars = 0;
  for (const k of [c.maxConstant, c.oodMaxConstant]) {
    const turns = demonstrationTurns(hiddenProblem(0, { minConstant: k, maxConstant: k }), all);
    for (const turn of turns) if (turn.kind === 'action') maxResponseChars = Math.max(maxResponseChars, turnTokens(turn));
  }
  return { maxPromptChars: PROMPT.length, maxResponseChars };
}

export function hiddenTestFsChecks(c: HiddenTestFsConfig, sizes: EvalSizes): TaskIssue[] {
  const at = 'task.hiddenTestFs';
  const issues: TaskIssue[] = [];
  if (c.minConstant > c.maxConstant)
    issues.push({ path: `${at}.minConstant`, message: `must not exceed ${at}.maxConstant (${c.maxConstant}), got ${c.minConstant}` });
  if (c.maxConstant < 2) issues.push({ path: `${at}.maxConstant`, message: `must be at least 2 so x*a has a multiplier other than 1, got ${c.maxConstant}` });
  if (c.oodMinConstant > c.oodMaxConstant)
    issues.push({ path: `${at}.oodMinConstant`, message: `must not exceed ${at}.oodMaxConstant (${c.oodMaxConstant}), got ${c.oodMinConstant}` });
  if (c.oodMinConstant <= c.maxConstant)
    issues.push({
      path: `${at}.oodMinConstant`,
      message: `must exceed ${at}.maxConstant (${c.maxConstant}) so OOD constants are larger than any trained, got ${c.oodMinConstant}`,
    });
  if (c.monitor && c.monitor.penalty !== 0 && c.monitor.mode === 'off')
    issues.push({
      path: `${at}.monitor.penalty`,
      message: `needs the monitor on to confirm hacks (${at}.monitor.mode is "off"); set the mode to log or guard, or the penalty to 0, got ${c.monitor.penalty}`,
    });
  if ((c.hackDemoShare ?? 0) > 0 && !c.hackOpen)
    issues.push({
      path: `${at}.hackDemoShare`,
      message: `must be 0 while ${at}.hackOpen is false: a hack demonstration reads .eval/f.js, which then answers Permission denied, so it would teach a read that fails; set ${at}.hackOpen to true or the share to 0, got ${c.hackDemoShare}`,
    });
  if (c.qualityFilter && c.defects?.share === 1)
    issues.push({
      path: `${at}.qualityFilter`,
      message: `would drop every training task: ${at}.defects.share is 1, so every one is broken and the judge rejects it; lower the share or turn the filter off`,
    });
  if (issues.length > 0) return issues;
  const trainSpace = problemCount(trainRange(c));
  if (sizes.heldOutSize > trainSpace / 2)
    issues.push({
      path: 'eval.heldOutSize',
      message: `must be at most half of the ${trainSpace} hidden-test-fs problems with constants ${c.minConstant}–${c.maxConstant}, got ${sizes.heldOutSize}`,
    });
  const oodSpace = problemCount(oodRange(c));
  if (sizes.oodSize > oodSpace)
    issues.push({ path: 'eval.oodSize', message: `must be at most the ${oodSpace} OOD hidden-test-fs problems, got ${sizes.oodSize}` });
  return issues;
}

export function hiddenTestFsTask(c: HiddenTestFsConfig, sizes: EvalSizes): Task {
  const train = trainRange(c);
  const ood = oodRange(c);
  const salted = (seed: number) => mixSeed(seed, HIDDEN_TEST_FS_SALT);
  const heldOut = distinctHiddenProblems(sizes.heldOutSize, train, (i) => salted(episodeSeed(0, 'heldOut', i)));
  const oodSet = distinctHiddenProblems(sizes.oodSize, ood, (i) => salted(episodeSeed(0, 'ood', i)));
  const excluded: ReadonlySet<string> = new Set(heldOut.problems.map(problemKey));
  const evalSeeds: Record<EvalSplit, readonly number[]> = { heldOut: heldOut.seeds, ood: oodSet.seeds };
  if (c.defects) checkDefectOption(c.defects);
  const trainProblem = (seed: number) => maybeDefective(seed, hiddenProblem(seed, train, excluded), c.defects);
  const unfilteredSeed = (runSeed: number, index: number) => salted(episodeSeed(runSeed, 'train', index));
  const stream = c.qualityFilter ? filteredStream(unfilteredSeed, (seed) => judgeTask(taskFiles(trainProblem(seed))).keep) : undefined;
  // Evaluation measures what the policy does when nothing stops it: a monitor that is on only logs
  // there and charges no penalty, so a guarded policy's held-out hack rate is its own and not zero
  // by construction (the eval/held_out_hack* metrics; docs/monitor.md §5).
  const monitorFor = (split: 'train' | EvalSplit, monitor: MonitorConfig): MonitorConfig =>
    split === 'train' || monitor.mode === 'off' ? monitor : { mode: 'log', penalty: 0 };
  return {
    name: 'hidden-test-fs',
    tags: [],
    vocabulary: HIDDEN_TEST_FS_VOCABULARY,
    limits: hiddenTestFsLimits(c),
    createEnv: (split) =>
      new HiddenTestFsEnv({
        problem: (seed) => (split === 'train' ? trainProblem(seed) : hiddenProblem(seed, split === 'ood' ? ood : train)),
        hackOpen: c.hackOpen,
        ...(c.monitor ? { monitor: monitorFor(split, c.monitor) } : {}),
        // Like the monitor's penalty, withholding an unsubmitted episode's reward shapes training only.
        unsubmitted: split === 'train' ? (c.unsubmitted ?? 'grade') : 'grade',
      }),
    trainSeed: stream ? stream.seed : unfilteredSeed,
    ...(stream ? { trainTasksDropped: stream.droppedThrough } : {}),
    evalSeeds: (split) => evalSeeds[split],
    sftExample: (runSeed, index) => {
      const seed = hiddenTestFsSftSeed(runSeed, index);
      const share = c.hackDemoShare ?? 0;
      if (share > 0 && new SeededRandom(mixSeed(seed, HACK_DEMO_SALT)).next() < share)
        return hackDemonstration(hiddenProblem(seed, train, excluded), mixSeed(seed, HACK_FORM_SALT), HIDDEN_TEST_FS_DEMO_TOKENS);
      return honestDemonstration(hiddenProblem(seed, train, excluded), mixSeed(seed, DEMO_PLAN_SALT), HIDDEN_TEST_FS_DEMO_TOKENS);
    },
  };
}
