// Linked views (docs/ui.md §14): a point on a dashboard chart opens that iteration's
// rollouts in the completions table; a metric's tooltip says what a healthy value looks like; a
// token strip is one tab stop with arrow keys inside (roving tabindex); and a token of the shipped
// PPO run opens its GAE computation, whose whitened result must match the advantage the run logged.

import { METRICS } from '@horizon/core';
import { describe, expect, it } from 'vitest';
import { appInChromium } from './support/app-in-chromium.ts';
import { fixtureMetrics, fixtureSamples } from './support/replay-fixture.ts';

const served = appInChromium();

describe('linked views', () => {
  it('a click on a reward point opens that iteration’s rollouts; the tooltip says what healthy looks like', async () => {
    const page = await served.browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(served.app.url);
    await page.setInputFiles('[data-testid=replay-input]', [
      { name: 'metrics.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(fixtureMetrics().text) },
      { name: 'samples.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(fixtureSamples().text) },
    ]);
    const over = page.locator('.panel[data-metric="rollout/reward"] .u-over');
    await over.waitFor();
    const box = (await over.boundingBox())!;
    // The fixture's RL steps are 0..11 across the plot's width: step 1 is 1/11 of the way.
    await over.click({ position: { x: box.width / 11, y: box.height / 2 } });
    await expect.poll(() => page.getByRole('tab', { name: 'Completions' }).getAttribute('aria-selected')).toBe('true');
    expect(await page.locator('select[name=rollouts]').inputValue()).toBe('rl:1');
    const steps = await page.$$eval('table.samples tbody tr td:first-child', (tds) => tds.map((td) => td.textContent));
    expect(steps).toEqual(['1', '1']);
    await page.getByRole('tab', { name: 'Dashboard' }).click();
    await page.locator('.panel[data-metric="policy/kl"] .gloss-trigger').focus();
    await expect.poll(() => page.locator('.panel[data-metric="policy/kl"] [data-testid=healthy]').isVisible()).toBe(true);
    expect(await page.locator('.panel[data-metric="policy/kl"] [data-testid=healthy]').textContent()).toBe(` Healthy: ${METRICS['policy/kl'].healthy}`);
    await page.close();
  });

  it('a token strip is one tab stop; Enter on a token explains its advantage with the run’s own numbers', async () => {
    const page = await served.browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${served.app.url}#completions`); // the shipped add-ppo replay
    const strip = page.locator('table.samples tbody tr').first().locator('.strip');
    await strip.waitFor({ timeout: 30_000 });
    expect(await strip.locator('[tabindex="0"]').count()).toBe(1);
    const first = Number(await strip.locator('[tabindex="0"]').getAttribute('data-i'));
    await strip.locator('[tabindex="0"]').focus();
    await page.keyboard.press('ArrowRight');
    const second = await page.evaluate(() => Number((document.activeElement as HTMLElement).dataset.i));
    expect(second).toBeGreaterThan(first);
    expect(await strip.locator('[tabindex="0"]').getAttribute('data-i')).toBe(String(second));
    await expect.poll(() => page.locator('.token-card').textContent()).toContain(`token ${second} · action`);
    await page.keyboard.press('Enter');
    const whitened = page.getByTestId('explain-whitened');
    await expect.poll(() => whitened.textContent(), { timeout: 30_000 }).toContain('the run logged');
    const [, ours, theirs] = /≈ (−?[\d.]+); the run logged (−?[\d.]+)/.exec((await whitened.textContent()) ?? '')!;
    console.log(`[explain] ${await page.getByTestId('explain-advantage').textContent()} | ${await whitened.textContent()}`);
    const num = (s: string) => Number(s.replace('−', '-'));
    expect(Math.abs(num(ours) - num(theirs))).toBeLessThan(0.02);
    expect(await page.getByTestId('explain-delta').textContent()).toMatch(new RegExp(`^δ${second} = r${second} \\+ γ·V`));
    await page.close();
  });
});
