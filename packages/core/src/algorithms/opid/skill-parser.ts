// The skill parser (docs/algorithms/opid.md §2): an execution log in, short skill text out — the
// global trajectory skill (the workflow the episode followed) and step-level skills keyed by the
// critical point they are for. Rule-based, OPID in miniature: OPID has a model summarise successful
// trajectories into skills; a character-level policy on a task this small is served by rules that
// keep what the honest workflow is made of and drop the rest.
//
// Global skill: the calls that succeeded, each mapped to its workflow step and kept once —
// the first listing, the README read, the last write of f.js (its expression abstracted to `expr`:
// the concrete answer is the step skill's job, at the step that writes it), the last passing
// run_tests, submit — joined by ";" in the order they ran:
//   "ls -a;cat task/README;echo expr>f.js;run_tests;submit"
// Exploration (cat .notes, ls task, cat f.js, find …) and superseded attempts are left out: the
// skill is the path, and every character of it is a token of a 256-token context.
// Step skills: after-readme, the arithmetic the README's first example gives ("7-2=5 so x+5",
// "8/2=4 so x*4"), when its examples fit x+b or x*a; after-fail, "revise the constant", when the
// log fails run_tests and then writes f.js again.

import { inferSolution } from '../../envs/hidden-test-fs/solver.ts';
import { type CriticalPoint, README_LINE } from './critical-points.ts';
import { endsWithRunTests, type LogStep } from './execution-log.ts';

export interface Skills {
  /** The global trajectory skill; undefined when none was extracted. '' is an empty skill (injects nothing). */
  global?: string;
  /** Step-level skills by critical point. */
  steps: Partial<Record<CriticalPoint, string>>;
}

export const REVISE_SKILL = 'revise the constant';

const WRITE = /^echo\s+(\S+)\s*>\s*f\.js$/;

type Workflow = 'list' | 'readme' | 'write' | 'test' | 'submit';

/** The workflow step of one command, and the text the skill writes for it. */
function workflowStep(command: string): { kind: Workflow; text: string } | undefined {
  if (/^ls(\s+-a)?$/.test(command)) return { kind: 'list', text: command };
  if (command === README_LINE) return { kind: 'readme', text: README_LINE };
  if (WRITE.test(command)) return { kind: 'write', text: 'echo expr>f.js' };
  if (command === 'run_tests') return { kind: 'test', text: 'run_tests' };
  if (command === 'submit') return { kind: 'submit', text: 'submit' };
  return undefined;
}

/** Which occurrence of each workflow step the skill keeps: the first listing, the last write and test. */
const KEEP: Record<Workflow, 'first' | 'last'> = { list: 'first', readme: 'first', write: 'last', test: 'last', submit: 'first' };

/** The global skill of a log; undefined when no call of the workflow succeeded. */
export function globalSkill(log: readonly LogStep[]): string | undefined {
  const kept = new Map<Workflow, { order: number; text: string }>();
  let order = 0;
  for (const { call } of log) {
    if (call?.exitCode !== 0) continue;
    for (const command of call.line.split('&&').map((c) => c.trim())) {
      const step = workflowStep(command);
      order++;
      if (!step || (KEEP[step.kind] === 'first' && kept.has(step.kind))) continue;
      kept.set(step.kind, { order, text: step.text });
    }
  }
  if (kept.size === 0) return undefined;
  return [...kept.values()]
    .sort((a, b) => a.order - b.order)
    .map((s) => s.text)
    .join(';');
}

/** "7-2=5 so x+5" or "8/2=4 so x*4" from a README's text; undefined when its examples fit neither family. */
export function readmeSkill(readme: string): string | undefined {
  let solution: ReturnType<typeof inferSolution>;
  try {
    solution = inferSolution(readme);
  } catch {
    return undefined;
  }
  const first = /^f\((-?\d+)\)=(-?\d+)/.exec(readme);
  if (!first) return undefined;
  const [x, y] = [first[1], first[2]];
  const { family, constant } = solution;
  return family === 'add' ? `${y}-${x}=${constant} so x+${constant}` : `${y}/${x}=${constant} so x*${constant}`;
}

/** Whether the log fails run_tests and writes f.js again after it: a revision. */
function revises(log: readonly LogStep[]): boolean {
  const failed = log.findIndex(({ call }) => call !== undefined && endsWithRunTests(call.line) && call.exitCode !== 0);
  return failed >= 0 && log.slice(failed + 1).some(({ call }) => call?.line.split('&&').some((c) => WRITE.test(c.trim())));
}

/** The skills one execution log gives. */
export function parseSkills(log: readonly LogStep[]): Skills {
  const steps: Skills['steps'] = {};
  const readme = log.find(({ call }) => call?.line.trim() === README_LINE && call.exitCode === 0)?.call;
  const arithmetic = readme ? readmeSkill(readme.output) : undefined;
  if (arithmetic) steps['after-readme'] = arithmetic;
  if (revises(log)) steps['after-fail'] = REVISE_SKILL;
  const global = globalSkill(log);
  return { ...(global !== undefined ? { global } : {}), steps };
}
