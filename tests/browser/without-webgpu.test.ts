// The page in a browser without WebGPU: Chromium launched without the WebGPU flags (navigator.gpu
// exists, no adapter) and with WebGPU switched off (no navigator.gpu at all). The banner says what
// live training needs, the GAE walkthrough falls back to the float64 reference and says so, and the
// playground (recipe, URL, CLI command) works as everywhere.

import { gaeRef } from '@horizon/kernels';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WALKTHROUGH_T, walkthroughInputs } from '../../packages/web-ui/src/engine/trajectory.ts';
import { chromiumPath } from '../support/chromium.ts';
import { type BuiltApp, buildAndServe } from './support/web-app.ts';

const PLAIN_FLAGS = ['--headless=new', '--no-sandbox', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let app: BuiltApp;
let browser: Browser;

beforeAll(async () => {
  app = await buildAndServe();
  browser = await chromium.launch({ executablePath: chromiumPath(), args: PLAIN_FLAGS, headless: true });
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const text = (p: Page, selector: string) => p.locator(selector).first().textContent();

describe('without WebGPU', () => {
  it('no adapter: the banner says what live training needs; the walkthrough uses the float64 reference', async () => {
    const page = await browser.newPage();
    await page.goto(`${app.url}#gae`);
    await expect.poll(() => text(page, '[data-banner=no-webgpu]')).toContain('Live training runs the kernels on WebGPU');
    expect(await text(page, '[data-banner=no-webgpu]')).toMatch(/found no WebGPU adapter/);
    await expect.poll(() => page.getByTestId('gae-device').getAttribute('data-computed-on')).toBe('cpu');
    expect(await text(page, '[data-testid=gae-device]')).toMatch(/float64 reference on the CPU — no WebGPU device/);
    const shown = await page.$$eval('.lane tr[data-row="A"] td', (cells) => cells.map((td) => Number((td as HTMLElement).dataset.value ?? Number.NaN)));
    const ref = gaeRef(walkthroughInputs(1), { B: 1, T: WALKTHROUGH_T, gamma: 1, lambda: [0.95] });
    for (const [t, a] of ref.advantages.entries()) if (a !== 0) expect(shown[t]).toBeCloseTo(a, 12);
    await page.close();
  });

  it('navigator.gpu absent: the banner says so, and the playground still works', async () => {
    // No Chromium switch removes navigator.gpu (checked: --disable-features=WebGPU, --disable-webgpu,
    // --disable-gpu all leave it), so the page's attribute is deleted before its scripts run, as in
    // a browser that never shipped WebGPU; the worker, launched without the flags, finds no adapter.
    const off = await browser.newContext();
    try {
      const page = await off.newPage();
      await page.addInitScript('delete Navigator.prototype.gpu');
      await page.goto(`${app.url}?recipe=tiny&seed=7&set=rl.lambda%3D0.9#playground`);
      expect(await page.evaluate(() => 'gpu' in navigator)).toBe(false);
      await expect.poll(() => text(page, '[data-banner=no-webgpu]')).toContain('this browser exposes no navigator.gpu');
      // The recipe and seed came from the URL and reach the CLI line.
      expect(await text(page, '[data-testid=cli-command]')).toBe('horizon train --recipe tiny --set seed=7 --set rl.lambda=0.9');
      expect(await page.locator('select[name=preset]').inputValue()).toBe('tiny');
      expect(await page.locator('input[name="rl.lambda"]').inputValue()).toBe('0.9');
      // Transport controls stay disabled, with the reason.
      expect(await page.getByRole('button', { name: 'Play' }).isDisabled()).toBe(true);
      await expect.poll(() => text(page, '#transport-why')).toContain('Live training needs WebGPU, and this browser has no device');
    } finally {
      await off.close();
    }
  });
});

describe('playground recipe panel', () => {
  it('edits a documented field, validates it on the field, and keeps URL and CLI line in step', async () => {
    const page = await browser.newPage();
    await page.goto(`${app.url}?recipe=tiny#playground`);
    // The key knobs come first; every other field is behind the toggle, by section.
    await page.getByText('Every field').click();
    await page.locator('details.recipe-section:has(> summary > code:text-is("rl")) > summary').click();
    const clip = page.locator('input[name="rl.clipLow"]');
    await clip.fill('1.5');
    await clip.press('Enter');
    const field = page.locator('[data-field="rl.clipLow"]');
    await expect.poll(() => field.locator('.field-error').textContent()).toBe('must be a number in [0, 1], got 1.5');
    expect(await text(page, '.recipe-status')).toBe('✗ 1 field to fix');
    expect(await field.locator('.field-doc').textContent()).toContain('PPO ratio clip below: 1 − ε_low');
    await clip.fill('0.1');
    await clip.press('Enter');
    await expect.poll(() => text(page, '.recipe-status')).toBe('✓ valid recipe');
    expect(await text(page, '[data-testid=cli-command]')).toBe('horizon train --recipe tiny --set rl.clipLow=0.1');
    expect(new URL(page.url()).searchParams.getAll('set')).toEqual(['rl.clipLow=0.1']);
    // A cross-field rule from core lands on its field: 8 rollouts per iteration cannot split into 3.
    const mb = page.locator('input[name="rl.minibatches"]');
    await mb.fill('3');
    await mb.press('Enter');
    await expect.poll(() => page.locator('[data-field="rl.minibatches"] .field-error').textContent()).toContain('must divide the 128 rollouts per iteration');
    // Edits live in the URL: a reload keeps them.
    await page.reload();
    expect(await page.locator('input[name="rl.minibatches"]').inputValue()).toBe('3');
    expect(await page.locator('input[name="rl.clipLow"]').inputValue()).toBe('0.1');
    await page.close();
  });
});
