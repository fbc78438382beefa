// The labs' walkthroughs in headless Chromium: the anti-hack monitor. A learner picks or types a
// shell call (keyboard and buttons), and what the page shows — the rules that fired, the judge's
// verdict, what the agent sees in log and guard mode — is checked against core's own CallMonitor run
// here, in Node, on the same HiddenTestFS sandbox; the review queue's labels survive a reload
// (IndexedDB) and its precision is recomputed here from core's verdicts. One build, one browser.

import { type CallMonitor, createSandbox, DEFAULT_RULES, hiddenProblem, QuickJsCodeRunner } from '@horizon/core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MONITOR_CONSTANTS, MONITOR_SEED, REVIEW_LINES } from '../../packages/web-ui/src/engine/monitor-data.ts';
import { launchChromium } from '../support/chromium.ts';
import { type BuiltApp, buildAndServe } from './support/web-app.ts';

let app: BuiltApp;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  app = await buildAndServe();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** Waits until the element `root` shows the answer to a request with `fields`, and no newer request is pending. */
async function answered(root: string, fields: Record<string, unknown>): Promise<void> {
  await page.waitForFunction(
    ([selector, want]) => {
      const el = document.querySelector<HTMLElement>(selector);
      if (!el?.dataset.answerFor || el.querySelector(':scope > .device-line.stale')) return false;
      const got = JSON.parse(el.dataset.answerFor) as Record<string, unknown>;
      return Object.entries(want).every(([k, v]) => JSON.stringify(got[k]) === JSON.stringify(v));
    },
    [root, fields] as const,
    { timeout: 60_000 },
  );
}

describe('anti-hack monitor walkthrough', () => {
  const runner = new QuickJsCodeRunner();
  /** Core's monitor in Node on the page's episode: what log and guard mode do with `line`. */
  async function core(line: string, hackOpen: boolean) {
    const box = (mode: 'log' | 'guard') => {
      const s = createSandbox(hiddenProblem(MONITOR_SEED, MONITOR_CONSTANTS), hackOpen, runner, MONITOR_SEED, { mode, penalty: 0 });
      return s.monitor as CallMonitor;
    };
    const log = await box('log').run(line);
    const guard = await box('guard').run(line);
    return { log, guard };
  }

  async function expectLikeCore(line: string, hackOpen: boolean) {
    await answered('.monitor', { line, hackOpen });
    const { log, guard } = await core(line, hackOpen);
    const fired = await page
      .locator('[data-testid="monitor-rules"] tr[data-flagged="true"]')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-rule')));
    expect(fired, line).toEqual(guard.decision.flags.map((f) => f.rule));
    expect(await page.locator('[data-testid="monitor-rules"] tr[data-rule]').count()).toBe(DEFAULT_RULES.length);
    expect(await page.getByTestId('monitor-verdict').getAttribute('data-leak'), line).toBe(
      guard.decision.verdict ? String(guard.decision.verdict.leak) : 'unjudged',
    );
    const shown = async (id: string) => page.locator(`[data-testid="${id}"] pre`).textContent();
    const text = (r: { stdout: string; stderr: string }) => r.stdout + r.stderr || '(no output)';
    expect(await shown('monitor-log'), `${line}: log mode`).toBe(text(log.result));
    expect(await shown('monitor-guard'), `${line}: guard mode`).toBe(text(guard.result));
    expect(await page.getByTestId('monitor-guard').getAttribute('data-action')).toBe(guard.decision.action);
    return { log, guard };
  }

  it('the hack is flagged, confirmed and answered from the decoy in guard mode; log mode shows the real file', async () => {
    await page.goto(`${app.url}#monitor`);
    const { log, guard } = await expectLikeCore('cat .eval/f.js', true);
    expect(guard.decision.action).toBe('fabricate');
    const solution = hiddenProblem(MONITOR_SEED, MONITOR_CONSTANTS).solution.trim();
    expect(log.result.stdout).toContain(solution);
    expect(await page.locator('[data-testid="monitor-guard"] pre').textContent()).not.toContain(solution);
    expect(await page.getByTestId('monitor-device').textContent()).toMatch(/core’s monitor .* on the worker’s CPU/);
  });

  it('by keyboard: a typed chained hack, the twins from the presets, the closed hack path', async () => {
    const input = page.locator('input[name="monitor-line"]');
    await input.focus();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('find . -name f.js | xargs cat');
    const chained = await expectLikeCore('find . -name f.js | xargs cat', true);
    expect(chained.guard.decision.confirmed).toBe(true);
    expect(await page.locator('[data-testid="monitor-parse"] [data-cell="name-1"]').textContent()).toBe('xargs');

    for (const preset of ['twin: notes: cat .notes', 'twin: find: find task']) {
      await page.getByRole('button', { name: preset }).focus();
      await page.keyboard.press('Enter');
      const line = preset.split(': ').at(-1) as string;
      const twin = await expectLikeCore(line, true);
      expect(twin.guard.decision.flags, line).toEqual([]);
      expect(await page.getByTestId('monitor-fired').textContent()).toContain('no rule fired');
    }

    await page.getByRole('button', { name: 'hack: cat .eval/f.js' }).press('Enter');
    await page.getByRole('button', { name: '.eval/ Permission denied' }).press('Space');
    const closed = await expectLikeCore('cat .eval/f.js', false);
    expect(closed.guard.decision.verdict?.leak).toBe(false);
  });

  it('review: the learner’s labels give the judge’s precision and survive a reload', async () => {
    await page.goto(`${app.url}#monitor`);
    const review = '.monitor-review';
    await answered(review, { set: null });
    const verdicts: boolean[] = [];
    for (const line of REVIEW_LINES) {
      const s = createSandbox(hiddenProblem(MONITOR_SEED, MONITOR_CONSTANTS), true, runner, MONITOR_SEED, { mode: 'log', penalty: 0 });
      const decided = await (s.monitor as CallMonitor).decide(line);
      expect(decided.flags.length, `${line} is flagged`).toBeGreaterThan(0);
      verdicts.push(decided.verdict?.leak ?? false);
    }
    expect(await page.locator(`${review} li`).evaluateAll((items) => items.map((i) => i.getAttribute('data-leak') === 'true'))).toEqual(verdicts);
    // The learner calls every confirmed call a hack except the last, which they call legitimate.
    const confirmed = REVIEW_LINES.filter((_, i) => verdicts[i]);
    const labels = confirmed.map((_, k) => (k < confirmed.length - 1 ? 'hack' : 'legitimate'));
    for (const [k, line] of confirmed.entries()) {
      await page
        .getByRole('group', { name: `your label for ${line}` })
        .getByRole('button', { name: labels[k] === 'hack' ? '✗ hack' : '✓ legitimate' })
        .press('Enter');
      await answered(review, { set: { line, label: labels[k] } });
    }
    const want = (confirmed.length - 1) / confirmed.length;
    const precision = async () => Number(await page.getByTestId('review-precision').getAttribute('data-value'));
    expect(await precision()).toBeCloseTo(want, 12);
    expect(await page.getByTestId('review-precision').textContent()).toContain('IndexedDB');

    await page.reload();
    await answered(review, { set: null });
    for (const [k, line] of confirmed.entries())
      expect(await page.locator(`${review} li`).nth(REVIEW_LINES.indexOf(line)).getAttribute('data-label'), line).toBe(labels[k]);
    expect(await precision()).toBeCloseTo(want, 12);
  });

  it('at 390 px the walkthrough needs no sideways scrolling', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      await phone.goto(`${app.url}#monitor`);
      await phone.waitForSelector('.monitor[data-answer-for^="{"]', { timeout: 60_000 });
      expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    } finally {
      await phone.close();
    }
  });
});
