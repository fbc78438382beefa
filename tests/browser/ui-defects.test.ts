// The web UI v2's defects that need no training (numbered as the issue lists them), each reproduced as a learner meets it (headless
// Chromium, the app as built): a bad preset in the URL, the dashboard during the warm start, a
// phone-width page, the Run N field, recipe errors, keyboard tabs, damaged or swapped replay files,
// and the GAE walkthrough's positions. Each test failed on the app before its fix.

import { formatHeaderLine, formatMetricsLine, resolveRecipe } from '@horizon/core';
import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { appInChromium } from './support/app-in-chromium.ts';
import { fixtureMetrics, fixtureSamples } from './support/replay-fixture.ts';

const served = appInChromium();

async function fresh(viewport = { width: 1280, height: 900 }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await served.browser.newContext({ viewport });
  return { context, page: await context.newPage() };
}

const text = (p: Page, selector: string) => p.locator(selector).first().textContent();
const jsonl = (name: string, body: string) => ({ name, mimeType: 'application/jsonl', buffer: Buffer.from(body) });

describe('web UI v2 defects', () => {
  it('1: an unknown preset in the URL is a message on the playground, not a blank page', async () => {
    const { context, page } = await fresh();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${served.app.url}?recipe=nope#playground`);
    await expect.poll(() => page.locator('[data-stray="preset"]').count(), { timeout: 20_000 }).toBe(1);
    expect(await text(page, '[data-stray="preset"]')).toContain(
      'There is no preset "nope"; pick one of add-ppo, add-ppo-fast, add-grpo, add-dr-grpo, add-rloo, add-kto, add-sao, add-vc-ppo, tiny',
    );
    expect(await page.getByRole('button', { name: 'Play' }).isDisabled()).toBe(true);
    expect(errors).toEqual([]);
    await page.getByRole('button', { name: 'use add-ppo-fast' }).click();
    await expect.poll(() => text(page, '.recipe-status')).toBe('✓ valid recipe');
    expect(new URL(page.url()).searchParams.get('recipe')).toBe('add-ppo-fast');
    await context.close();
  });

  it('3: the dashboard charts the SFT loss and evaluation success (held-out, OOD); reward and success are one line', async () => {
    const { context, page } = await fresh();
    await page.goto(served.app.url);
    const recipe = resolveRecipe({ preset: 'tiny' }).recipe;
    const rows = [
      ...Array.from({ length: 5 }, (_, i) => ({ phase: 'sft' as const, step: i + 1, time_s: i, metrics: { 'sft/loss': 2 - 0.1 * i } })),
      { phase: 'eval' as const, step: 0, time_s: 6, metrics: { 'eval/held_out_success': 0.25, 'eval/ood_success': 0.05 } },
    ];
    await page.setInputFiles('[data-testid=replay-input]', [jsonl('metrics.jsonl', formatHeaderLine(recipe) + rows.map(formatMetricsLine).join(''))]);
    await expect.poll(() => page.locator('.panel[data-metric="sft/loss"]').getAttribute('data-points')).toBe('5');
    expect(await page.locator('.panel[data-metric="eval/held_out_success"]').getAttribute('data-points')).toBe('1');
    expect(await page.locator('.panel[data-metric="eval/held_out_success"] .u-legend').textContent()).toMatch(/held-out.*OOD/);
    // A text alternative for the chart.
    expect(await page.locator('.panel[data-metric="sft/loss"] [role=img]').getAttribute('aria-label')).toContain(
      'SFT loss: 5 points from step 1 to 5, first 2.000, last 1.600',
    );
    // The fixture logs reward = success: one line, and the caption says why.
    await page.setInputFiles('[data-testid=replay-input]', [jsonl('metrics.jsonl', fixtureMetrics().text)]);
    await expect.poll(() => page.locator('.panel[data-metric="rollout/reward"]').getAttribute('data-points')).toBe('12');
    expect(await page.locator('.panel[data-metric="rollout/success"]').count()).toBe(0);
    expect(await text(page, '.panel[data-metric="rollout/reward"] .panel-meta')).toContain('success = reward here');
    await context.close();
  });

  it('4: at 390 px no view is wider than the screen, the tabs fit, and the playground is not a wall of fields', async () => {
    const { context, page } = await fresh({ width: 390, height: 844 });
    for (const view of ['dashboard', 'completions', 'playground', 'loop', 'compare', 'gae']) {
      await page.goto(`${served.app.url}?recipe=tiny#${view}`);
      if (view === 'gae') await page.waitForSelector('.lane-wrap', { timeout: 60_000 });
      else if (view === 'compare') await page.waitForSelector('.compare .dashboard', { timeout: 30_000 });
      else await page.waitForSelector('[role=tabpanel] > *', { timeout: 30_000 });
      await page.waitForTimeout(300);
      const width = await page.evaluate(() => document.scrollingElement!.scrollWidth);
      expect(width, `${view} is ${width} px wide`).toBeLessThanOrEqual(390);
    }
    const gaeTab = await page.getByRole('tab', { name: 'GAE walkthrough' }).boundingBox();
    expect(gaeTab!.x + gaeTab!.width).toBeLessThanOrEqual(390);
    await page.goto(`${served.app.url}?recipe=tiny#playground`);
    await page.waitForSelector('.recipe-panel');
    expect(await page.evaluate(() => document.scrollingElement!.scrollHeight)).toBeLessThan(3200);
    const field = await page.locator('[data-field="sft.steps"] .field-doc').boundingBox();
    expect(field!.width).toBeGreaterThan(250); // docs read as sentences, not a 5-character column
    await context.close();
  });

  it('5: the Run N field can be cleared and retyped', async () => {
    const { context, page } = await fresh();
    await page.goto(`${served.app.url}?recipe=tiny#playground`);
    const field = page.getByLabel('steps to run');
    await expect.poll(() => field.isEnabled(), { timeout: 60_000 }).toBe(true);
    await field.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Backspace');
    expect(await field.inputValue()).toBe('');
    expect(await page.getByRole('button', { name: 'Run N' }).isDisabled()).toBe(true);
    await page.keyboard.type('20');
    expect(await field.inputValue()).toBe('20');
    expect(await page.getByRole('button', { name: 'Run N' }).isEnabled()).toBe(true);
    await context.close();
  });

  it('6: every recipe problem shows at once, each marked where it is', async () => {
    const { context, page } = await fresh();
    await page.goto(`${served.app.url}?recipe=tiny&set=model.policy.dModel%3D33#playground`);
    await expect.poll(() => text(page, '.recipe-status')).toBe('✗ 1 field to fix');
    expect(await text(page, '[data-stray="model.policy.dModel"]')).toContain('no such recipe field');
    await page.goto(`${served.app.url}?recipe=tiny&set=rl.lambda%3D1.5&set=rl.minibatches%3D3#playground`);
    await expect.poll(() => text(page, '.recipe-status')).toBe('✗ 2 fields to fix');
    expect(await text(page, '[data-field="rl.lambda"] .field-error')).toContain('must be a number in [0, 1], got 1.5');
    expect(await text(page, '[data-field="rl.minibatches"] .field-error')).toContain('must divide');
    await context.close();
  });

  it('9: arrow keys move between tabs, each tab controls a tabpanel, one tab stop', async () => {
    const { context, page } = await fresh();
    await page.goto(served.app.url);
    const tab = (name: string) => page.getByRole('tab', { name });
    await tab('Dashboard').focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => tab('Completions').getAttribute('aria-selected')).toBe('true');
    await expect.poll(() => page.evaluate(() => document.activeElement?.textContent)).toBe('Completions');
    await page.keyboard.press('End');
    await expect.poll(() => tab('GAE walkthrough').getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowRight'); // wraps
    await expect.poll(() => tab('Dashboard').getAttribute('aria-selected')).toBe('true');
    expect(await page.locator('[role=tab][tabindex="0"]').count()).toBe(1);
    const panel = await tab('Dashboard').getAttribute('aria-controls');
    expect(await page.locator(`#${panel}[role=tabpanel]`).getAttribute('aria-labelledby')).toBe('tab-dashboard');
    // Enter opens the tab and moves focus into its panel, so Space no longer scrolls the page.
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.evaluate(() => document.activeElement?.getAttribute('role'))).toBe('tabpanel');
    await context.close();
  });

  it('10: one damaged line skips that line, not the run; swapped file contents still open', async () => {
    const { context, page } = await fresh();
    await page.goto(served.app.url);
    const lines = fixtureMetrics().text.split('\n');
    lines[8] = '{"kind":"metrics","phase":"rl","step":'; // line 9 of 15: damaged
    await page.setInputFiles('[data-testid=replay-input]', [jsonl('metrics.jsonl', lines.join('\n'))]);
    await expect.poll(() => text(page, '[data-testid=replay-note]')).toContain('1 damaged line was skipped (line 9 is not valid JSON)');
    expect(await page.locator('.panel[data-metric="rollout/reward"]').getAttribute('data-points')).toBe('11');
    await page.setInputFiles('[data-testid=replay-input]', [jsonl('metrics.jsonl', fixtureSamples().text), jsonl('samples.jsonl', fixtureMetrics().text)]);
    await expect
      .poll(() => text(page, '[data-testid=replay-note]'))
      .toContain('metrics.jsonl holds rollouts (samples.jsonl records), so it was read as the samples file');
    expect(await page.locator('.panel[data-metric="rollout/reward"]').getAttribute('data-points')).toBe('12');
    await context.close();
  });

  it('11: the GAE walkthrough shows the positions its text refers to', async () => {
    const { context, page } = await fresh();
    await page.goto(`${served.app.url}#gae`);
    await page.waitForSelector('.lane-wrap', { timeout: 60_000 });
    expect(await text(page, '.equations .note')).toContain('Token 8');
    expect(await text(page, '.equations .note')).toContain('next action token is 13');
    expect(await text(page, '.lane thead th[data-position="8"]')).toBe('8');
    expect(await text(page, '.lane thead th[data-position="13"]')).toBe('13');
    expect(await page.locator('.lane thead th[data-position="13"]').isVisible()).toBe(true);
    await context.close();
  });
});
