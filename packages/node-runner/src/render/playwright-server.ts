// The Playwright render server: compiles a UI-DSL program to a page (compile-page.ts), loads it in
// headless Debian Chromium through playwright-core, and drives it with real input — page.click,
// page.press, page.fill — recording what core's contract asks (envs/ui-dsl/render.ts): the
// elements' texts read back from the DOM after the render and after each action, console lines
// (the console event) and uncaught errors (the pageerror event), plus a screenshot at the end.
// Each run gets a fresh browser context; the browser is launched once per server. An action on an
// element that is not there, or one the element cannot take (filling a button, pressing keys on
// a label), is recorded with the contract's message instead of waiting for Playwright's timeout.

import {
  type Action,
  type ActionPlan,
  type ElementKind,
  type ElementState,
  formatSyntaxError,
  parseProgram,
  planActions,
  type RecordedError,
  type RenderServer,
  type RenderTrace,
  RUNTIME_MESSAGES,
  type StepRecord,
  stateChanges,
} from '@horizon/core';
import { type Browser, chromium, type Page } from 'playwright-core';
import { compilePage } from './compile-page.ts';
import { findChromium } from './find-chromium.ts';

/** Longest a single Playwright action may wait; every element is visible at once, so this is only a guard. */
const ACTION_TIMEOUT_MS = 5_000;

export class PlaywrightRenderServer implements RenderServer {
  readonly name = 'playwright';

  private constructor(private readonly browser: Browser) {}

  /** Launches Chromium; throws ChromiumNotFoundError (one sentence naming the Debian package) without it. */
  static async launch(): Promise<PlaywrightRenderServer> {
    const browser = await chromium.launch({ executablePath: findChromium(), headless: true, args: ['--no-sandbox', '--disable-background-networking'] });
    return new PlaywrightRenderServer(browser);
  }

  async run(program: string, plan: ActionPlan): Promise<RenderTrace> {
    const started = performance.now();
    const context = await this.browser.newContext({ viewport: { width: 320, height: 480 } });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(ACTION_TIMEOUT_MS);
      let pending = { console: [] as string[], errors: [] as RecordedError[] };
      let phase: 'render' | 'handler' = 'render';
      page.on('console', (message) => pending.console.push(message.text()));
      page.on('pageerror', (error) => pending.errors.push({ phase, message: error.message }));
      const parsed = parseProgram(program);
      if (!parsed.ok) pending.errors.push({ phase: 'parse', message: formatSyntaxError(parsed.error) });
      await page.setContent(compilePage(parsed.ok ? parsed.program : undefined));
      const steps: StepRecord[] = [];
      const takeStep = async (action: Action | null, before: readonly ElementState[]) => {
        const state = await readState(page);
        steps.push({ action, state, changes: stateChanges(before, state), console: pending.console, errors: pending.errors });
        pending = { console: [], errors: [] };
        return state;
      };
      let state = await takeStep(null, []);
      const rendered = parsed.ok && steps[0].errors.length === 0 && state.length > 0;
      phase = 'handler';
      for (const action of planActions(plan, state)) {
        const failure = await act(page, action);
        if (failure) pending.errors.push({ phase: 'action', message: failure });
        state = await takeStep(action, state);
      }
      const ms = performance.now() - started;
      const screenshot = new Uint8Array(await page.screenshot());
      return { server: this.name, rendered, steps, ms, screenshot };
    } finally {
      await context.close();
    }
  }

  close(): Promise<void> {
    return this.browser.close();
  }
}

/**
 * The page's elements in order, read from the DOM. The round trip also flushes events: Chromium
 * sends an action's console and error events before it answers this later evaluate, and
 * playwright-core delivers them in order, so they belong to the step just taken.
 */
function readState(page: Page): Promise<ElementState[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('[data-kind]')].map((e) => ({
      id: e.id,
      kind: e.dataset.kind as ElementKind,
      text: e instanceof HTMLInputElement ? e.value : (e.textContent ?? ''),
    })),
  );
}

/** Takes one action with Playwright's real input; returns the contract's message when it cannot be taken. */
async function act(page: Page, action: Action): Promise<string | undefined> {
  const kind = await page.evaluate((id) => document.getElementById(id)?.dataset.kind ?? null, action.id);
  const selector = `#${action.id}`;
  if (action.type === 'click') {
    if (!kind) return RUNTIME_MESSAGES.noSuchElement('click', action.id);
    await page.click(selector);
  } else if (action.type === 'press') {
    if (!kind) return RUNTIME_MESSAGES.noSuchElement('press keys on', action.id);
    if (kind === 'label') return RUNTIME_MESSAGES.pressOnLabel(action.id);
    await page.press(selector, action.key);
  } else {
    if (!kind) return RUNTIME_MESSAGES.noSuchElement('fill', action.id);
    if (kind !== 'input') return RUNTIME_MESSAGES.fillNotInput(action.id, kind as ElementKind);
    await page.fill(selector, action.text);
  }
  return undefined;
}
