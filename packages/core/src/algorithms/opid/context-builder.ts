// The context builder (docs/algorithms/opid.md §3): puts skill text into a context, for the scoring
// pass (token ids of a rollout) and for the skill-carrying SFT demonstrations (turns), at the same
// places and in the same characters, so the text RL scores with is text SFT trained the policy to read.
//
// Where, and why:
//   after the prompt (the global skill): the workflow is about the whole episode, so it goes where a
//     task statement's addendum goes, before the first action; every action reads it;
//   right before a step's action (a step skill): the hint is about that one decision, so it is the
//     last thing in context when the decision is made — after the observation that made the step
//     critical (the README's text, run_tests's `fail`), never between an observation and its tags.
// Every token before an insertion keeps its context exactly (attention is causal), so its
// log-prob cannot change: the scoring pass reads only tokens after their view's insertion.
// A skill is written as `# TEXT\n` (a shell comment, environment text: specials off, never trained);
// an empty skill writes nothing, so a view with it is the rollout itself.

import type { SftTurn } from '../../envs/environment.ts';
import type { Injection } from './routing.ts';

/** The characters a skill puts into a context. */
export function skillBlock(text: string): string {
  return text === '' ? '' : `# ${text}\n`;
}

/** A rollout's tokens with an injection, and where each original token went. */
export interface InjectedContext {
  tokens: number[];
  /** position[p]: the index in `tokens` of the original token p. */
  position: Int32Array;
  /** Every original token at or after this index has a skill before it. */
  firstAffected: number;
}

/**
 * Inserts the injection's skills into `tokens`: the global skill at `responseStart` (just after the
 * prompt), a step skill at `stepStarts[step]` (the first token of that step's action).
 */
export function injectTokens(
  tokens: readonly number[],
  responseStart: number,
  stepStarts: readonly number[],
  injection: Injection,
  encode: (text: string) => number[],
): InjectedContext {
  const inserts = new Map<number, number[]>();
  const add = (at: number, text: string) => inserts.set(at, [...(inserts.get(at) ?? []), ...encode(skillBlock(text))]);
  if (injection.afterPrompt !== undefined) add(responseStart, injection.afterPrompt);
  for (const { step, text } of injection.beforeSteps ?? []) {
    const at = stepStarts[step];
    if (at === undefined) throw new RangeError(`a skill is routed to step ${step}, but the rollout has ${stepStarts.length} steps`);
    add(at, text);
  }
  const out: number[] = [];
  const position = new Int32Array(tokens.length);
  for (let p = 0; p < tokens.length; p++) {
    for (const id of inserts.get(p) ?? []) out.push(id);
    position[p] = out.length;
    out.push(tokens[p]);
  }
  const firstAffected = inserts.size > 0 ? Math.min(...inserts.keys()) : tokens.length;
  return { tokens: out, position, firstAffected };
}

/** A demonstration's turns with the injection's skills as observation turns: after the prompt, before an action. */
export function injectTurns(turns: readonly SftTurn[], injection: Injection): SftTurn[] {
  const before = new Map((injection.beforeSteps ?? []).map(({ step, text }) => [step, text]));
  const out: SftTurn[] = [];
  let step = 0;
  for (const [i, turn] of turns.entries()) {
    if (turn.kind === 'action') {
      const text = before.get(step++);
      if (text !== undefined && text !== '') out.push({ kind: 'observation', text: skillBlock(text) });
    }
    out.push(turn);
    if (i === 0 && injection.afterPrompt !== undefined && injection.afterPrompt !== '')
      out.push({ kind: 'observation', text: skillBlock(injection.afterPrompt) });
  }
  return out;
}

/** The index of the first token of each maximal run of action tokens: where each step's action starts. */
export function stepStartsOf(actionMask: ArrayLike<number>): number[] {
  const starts: number[] = [];
  for (let p = 0; p < actionMask.length; p++) if (actionMask[p] && (p === 0 || !actionMask[p - 1])) starts.push(p);
  return starts;
}
