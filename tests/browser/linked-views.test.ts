// Linked views (issue 17, docs/ui.md §14): a point on a dashboard chart opens that iteration's
// rollouts in the completions table, and a metric's tooltip says what a healthy value looks like.

import { METRICS } from '@horizon/core';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, WEBGPU_FLAGS } from '../support/chromium.ts';
import { fixtureMetrics, fixtureSamples } from './support/replay-fixture.ts';
import { type BuiltApp, buildAndServe } from './support/web-app.ts';

let app: BuiltApp;
let browser: Browser;

beforeAll(async () => {
  app = await buildAndServe({ shippedReplay: false });
  browser = await chromium.launch({ executablePath: chromiumPath(), args: WEBGPU_FLAGS, headless: true });
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe('linked views', () => {
  it('a click on a reward point opens that iteration’s rollouts; the tooltip says what healthy looks like', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(app.url);
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
});
