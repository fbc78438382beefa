// The DOM-free render server: runs a UI-DSL program and an action sequence on a plain model of the
// page — an ordered list of elements with their texts, and each element's handlers — following the
// runtime rules in render.ts exactly as the compiled page does in Chromium. Platform-free, so it runs
// in Node, Deno and the browser's engine worker alike, in well under a millisecond per program; the
// conformance test against the Playwright server is what licenses judging with it. Nothing a program
// does can throw out of `run`: every failure becomes a recorded error of its step.

import { formatSyntaxError, parseProgram } from './parse.ts';
import {
  type Action,
  type ActionPlan,
  COUNTER_PATTERN,
  type ElementState,
  planActions,
  type RecordedError,
  type RenderServer,
  type RenderTrace,
  RUNTIME_MESSAGES,
  type StepRecord,
  stateChanges,
} from './render.ts';
import { type Effect, elementDecls, handlerDecls, MAX_ELEMENTS, type Program } from './syntax.ts';

/** An error a handler or action raises; caught by the step that ran it. */
class PageError extends Error {}

interface Page {
  elements: ElementState[];
  handlers: Map<string, Effect[]>;
  console: string[];
  errors: RecordedError[];
}

export class SimulatorRenderServer implements RenderServer {
  readonly name = 'simulator';

  async run(program: string, plan: ActionPlan): Promise<RenderTrace> {
    return simulate(program, plan);
  }
}

/** The simulator's run, synchronous (the server wraps it in a promise for the interface). */
export function simulate(program: string, plan: ActionPlan): RenderTrace {
  const started = performance.now();
  const page: Page = { elements: [], handlers: new Map(), console: [], errors: [] };
  const steps: StepRecord[] = [];
  const parsed = parseProgram(program);
  if (!parsed.ok) page.errors.push({ phase: 'parse', message: formatSyntaxError(parsed.error) });
  else render(page, parsed.program);
  const rendered = parsed.ok && page.errors.length === 0 && page.elements.length > 0;
  steps.push(record(page, null, []));
  for (const action of planActions(plan, snapshot(page))) {
    const before = snapshot(page);
    act(page, action);
    steps.push(record(page, action, before));
  }
  return { server: 'simulator', rendered, steps, ms: performance.now() - started };
}

function render(page: Page, program: Program): void {
  const declared = elementDecls(program);
  for (const [index, e] of declared.entries()) {
    if (index === MAX_ELEMENTS) return void page.errors.push({ phase: 'render', message: RUNTIME_MESSAGES.tooManyElements(MAX_ELEMENTS) });
    if (find(page, e.id)) return void page.errors.push({ phase: 'render', message: RUNTIME_MESSAGES.duplicateId(e.id) });
    page.elements.push({ id: e.id, kind: e.kind, text: e.text });
  }
  if (page.elements.length === 0) return void page.errors.push({ phase: 'render', message: RUNTIME_MESSAGES.noElements() });
  for (const h of handlerDecls(program)) {
    if (!find(page, h.on)) return void page.errors.push({ phase: 'render', message: RUNTIME_MESSAGES.handlerOnMissing(h.on) });
    const list = page.handlers.get(h.on) ?? [];
    list.push(h.effect);
    page.handlers.set(h.on, list);
  }
}

function act(page: Page, action: Action): void {
  const element = find(page, action.id);
  const verb = action.type === 'click' ? 'click' : action.type === 'press' ? 'press keys on' : 'fill';
  if (!element) return void page.errors.push({ phase: 'action', message: RUNTIME_MESSAGES.noSuchElement(verb, action.id) });
  if (action.type === 'fill') {
    if (element.kind !== 'input') return void page.errors.push({ phase: 'action', message: RUNTIME_MESSAGES.fillNotInput(action.id, element.kind) });
    element.text = action.text;
    return;
  }
  if (action.type === 'press' && element.kind === 'label') return void page.errors.push({ phase: 'action', message: RUNTIME_MESSAGES.pressOnLabel(action.id) });
  // A click activates buttons and labels; Enter activates inputs and (by default activation) buttons.
  const activates = action.type === 'click' ? element.kind !== 'input' : true;
  if (activates) fire(page, action.id);
}

/** Runs each handler of `on` as its own listener: one that throws does not stop the next. */
function fire(page: Page, on: string): void {
  for (const effect of page.handlers.get(on) ?? []) {
    try {
      apply(page, on, effect);
    } catch (e) {
      if (!(e instanceof PageError)) throw e;
      page.errors.push({ phase: 'handler', message: e.message });
    }
  }
}

function apply(page: Page, on: string, effect: Effect): void {
  const lookup = (id: string): ElementState => {
    const found = find(page, id);
    if (!found) throw new PageError(RUNTIME_MESSAGES.missingInHandler(on, id));
    return found;
  };
  if (effect.type === 'log-text') page.console.push(effect.text);
  else if (effect.type === 'log-element') page.console.push(lookup(effect.source).text);
  else if (effect.type === 'set') lookup(effect.target).text = effect.text;
  else if (effect.type === 'copy') {
    // Target first, then source: the compiled page resolves them in this order too.
    const target = lookup(effect.target);
    target.text = lookup(effect.source).text;
  } else {
    const target = lookup(effect.target);
    const text = target.text === '' ? '0' : target.text;
    if (!COUNTER_PATTERN.test(text)) throw new PageError(RUNTIME_MESSAGES.notANumber(effect.target));
    target.text = String(Number(text) + 1);
  }
}

function find(page: Page, id: string): ElementState | undefined {
  return page.elements.find((e) => e.id === id);
}

function snapshot(page: Page): ElementState[] {
  return page.elements.map((e) => ({ ...e }));
}

/** The step's record; the console lines and errors gathered since the last step move into it. */
function record(page: Page, action: Action | null, before: readonly ElementState[]): StepRecord {
  const state = snapshot(page);
  const step: StepRecord = { action, state, changes: stateChanges(before, state), console: page.console, errors: page.errors };
  page.console = [];
  page.errors = [];
  return step;
}
