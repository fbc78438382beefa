// The render-server contract: what running a UI-DSL program under an action sequence records, and
// the runtime rules both servers follow — the DOM-free simulator in core (simulator.ts) and the
// Playwright server in node-runner, which compiles the program to a real page. Both record the same
// observations (element states after the render and after each action, console lines, errors), so
// a judge reads either one; the conformance test holds them to it on every judge case.
//
// Runtime rules, the same in both (and the messages below are the only error texts either records):
// elements render in program order, a second element with an id already rendered stops the render;
// handlers bind in order after the render, on a button or a label to its click, on an input to
// Enter; a handler whose element is missing stops the binding. A handler finds the elements it
// reads and writes when it runs, so an unknown id there is an error of that handler alone, and
// the other handlers of the same activation still run (each is its own listener in the page).
// Pressing Enter on a button clicks it (the browser's default activation).

import type { ElementKind } from './syntax.ts';

export type Action = { type: 'click'; id: string } | { type: 'press'; id: string; key: 'Enter' } | { type: 'fill'; id: string; text: string };

export interface ElementState {
  id: string;
  kind: ElementKind;
  /** A button's or label's text content, an input's value. */
  text: string;
}

/** Where an error came from: the program's syntax, its render, a handler, or an action it could not take. */
export type ErrorPhase = 'parse' | 'render' | 'handler' | 'action';

export interface RecordedError {
  phase: ErrorPhase;
  message: string;
}

/** One element's text changed (from null: the element appeared). */
export interface StateChange {
  id: string;
  from: string | null;
  to: string;
}

export interface StepRecord {
  /** null for the render itself (step 0). */
  action: Action | null;
  /** Every rendered element after this step, in page order. */
  state: ElementState[];
  changes: StateChange[];
  console: string[];
  errors: RecordedError[];
}

export interface RenderTrace {
  /** Which server produced it ("simulator", "playwright"). */
  server: string;
  /** The program parsed, rendered at least one element and its render raised nothing. */
  rendered: boolean;
  /** The render (step 0), then one step per action. */
  steps: StepRecord[];
  /** Wall-clock milliseconds of the run, from its start (a fresh page, where the server makes one) to the last action. */
  ms: number;
  /** A PNG of the page after the last action, where the server has a screen. */
  screenshot?: Uint8Array;
}

/** The actions to run: fixed, or written once the render is seen (the interactive judge's planner). */
export type ActionPlan = readonly Action[] | ((rendered: readonly ElementState[]) => readonly Action[]);

export interface RenderServer {
  readonly name: string;
  /** Never rejects for a broken program: parse, render, handler and action failures are recorded errors. */
  run(program: string, plan: ActionPlan): Promise<RenderTrace>;
}

/** The error texts both servers record; each is one sentence naming the ids involved. */
export const RUNTIME_MESSAGES = {
  duplicateId: (id: string) => `two elements have the id "${id}".`,
  tooManyElements: (max: number) => `the program declares more than ${max} elements.`,
  noElements: () => 'the program renders no element.',
  handlerOnMissing: (id: string) => `a handler listens on "${id}", but no element has that id.`,
  missingInHandler: (on: string, id: string) => `the handler on "${on}" refers to "${id}", but no element has that id.`,
  notANumber: (id: string) => `"${id}" does not hold a whole number, so it cannot be counted up.`,
  noSuchElement: (verb: string, id: string) => `there is no element "${id}" to ${verb}.`,
  fillNotInput: (id: string, kind: ElementKind) => `"${id}" is a ${kind}, not an input, so it cannot be filled.`,
  pressOnLabel: (id: string) => `"${id}" is a label; keys are pressed only on buttons and inputs.`,
} as const;

/** A whole number the counter can add one to: optional minus, up to 15 digits (exact in a double). */
export const COUNTER_PATTERN = /^-?[0-9]{1,15}$/;

/** The text changes from one state to the next (elements never disappear once rendered). */
export function stateChanges(before: readonly ElementState[], after: readonly ElementState[]): StateChange[] {
  const old = new Map(before.map((e) => [e.id, e.text]));
  const changes: StateChange[] = [];
  for (const e of after) {
    const from = old.has(e.id) ? (old.get(e.id) as string) : null;
    if (from !== e.text) changes.push({ id: e.id, from, to: e.text });
  }
  return changes;
}

/** The action list of a plan, given what rendered. */
export function planActions(plan: ActionPlan, rendered: readonly ElementState[]): readonly Action[] {
  return typeof plan === 'function' ? plan(rendered) : plan;
}

/** "click #a", "press Enter on #n", "fill #n with "x"" — for logs and test names. */
export function describeAction(action: Action): string {
  if (action.type === 'click') return `click #${action.id}`;
  if (action.type === 'press') return `press ${action.key} on #${action.id}`;
  return `fill #${action.id} with ${JSON.stringify(action.text)}`;
}
