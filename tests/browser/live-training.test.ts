// Live training in headless Chromium on WebGPU (SwiftShader): the tiny recipe, cut to a few steps
// through the URL's --set fields, trained by core's Trainer in the engine worker. Step advances the
// counter one SFT step at a time, Play runs to the end while the reward chart gains a point per
// RL iteration, and a reload restores every row from IndexedDB. Also measures the longest
// main-thread task while the worker trains.

import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.ts';
import { LONG_TASK_PROBE, readProbe, resetProbe } from './support/probe.ts';
import { type BuiltApp, buildAndServe } from './support/web-app.ts';

const SFT_STEPS = 3;
const ITERATIONS = 3;
const SETS = [`sft.steps=${SFT_STEPS}`, `rl.iterations=${ITERATIONS}`, 'eval.interval=3', 'checkpoint.interval=3'];

let app: BuiltApp;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  app = await buildAndServe();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.addInitScript(LONG_TASK_PROBE);
  const query = new URLSearchParams([['recipe', 'tiny'], ...SETS.map((s) => ['set', s])]);
  await page.goto(`${app.url}?${query}#playground`);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const counter = () => page.getByTestId('step-counter').textContent();
const rewardPoints = () => page.locator('.playground .panel[data-metric="rollout/reward"]').getAttribute('data-points');

describe('live training in Chromium', () => {
  it('steps the tiny recipe one SFT step at a time', async () => {
    const step = page.getByRole('button', { name: 'Step' });
    await expect.poll(() => step.isEnabled(), { timeout: 60_000 }).toBe(true);
    expect(await page.getByTestId('cli-command').textContent()).toBe(`horizon train --recipe tiny ${SETS.map((s) => `--set ${s}`).join(' ')}`);
    await step.click();
    await expect.poll(counter, { timeout: 60_000 }).toBe(`SFT step 1 of ${SFT_STEPS}`);
    await expect.poll(() => page.getByTestId('live-badge').getAttribute('data-state')).toBe('paused');
    // → steps too, when focus is on the page rather than in a field or on a button.
    // (Blur rather than click the header: its title is a link to the home page.)
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await expect.poll(() => step.isEnabled()).toBe(true);
    await page.keyboard.press('ArrowRight');
    await expect.poll(counter, { timeout: 60_000 }).toBe(`SFT step 2 of ${SFT_STEPS}`);
  });

  it('plays to the end: the reward chart gains points and the step counter advances', async () => {
    await resetProbe(page);
    expect(await counter()).toBe(`SFT step 2 of ${SFT_STEPS}`);
    expect(await rewardPoints()).toBe('0'); // no RL iteration yet
    await page.getByRole('button', { name: 'Resume' }).click();
    await expect.poll(() => page.getByTestId('live-badge').getAttribute('data-state'), { timeout: 120_000 }).toBe('finished');
    expect(await rewardPoints()).toBe(String(ITERATIONS));
    expect(await page.locator('.playground .panel[data-metric="critic/value_loss"]').getAttribute('data-points')).toBe(String(ITERATIONS));
    // tiny has no critic warm-up: every iteration updates the policy too.
    expect(await page.locator('.playground .panel[data-metric="policy/clip_frac"]').getAttribute('data-points')).toBe(String(ITERATIONS));
    expect(await counter()).toBe(`evaluated after iteration ${ITERATIONS}`);
    const probe = await readProbe(page);
    console.log(
      `[perf] live training (tiny, ${SFT_STEPS} SFT steps + ${ITERATIONS} iterations): longest main-thread task ${probe.longestTask.toFixed(0)} ms, longest frame gap ${probe.longestGap.toFixed(0)} ms`,
    );
  });

  it('shows the live rollouts as token strips', async () => {
    await page.getByRole('tab', { name: 'Completions' }).click();
    await expect.poll(() => page.locator('table.samples tbody tr').count()).toBeGreaterThan(0);
    // The prompt of every rollout is "a+b=": grey prompt chips, then the policy's action tokens.
    const first = page.locator('table.samples tbody tr').first();
    expect(await first.locator('.tok-prompt').last().textContent()).toBe('=');
    // Training rollouts come first and carry the trainer's advantages on their action tokens.
    expect(await page.locator('select[name=rollouts]').inputValue()).toBe('rl');
    expect(await first.locator('.tok-action[data-value]').count()).toBeGreaterThan(0);
    expect(await page.getByLabel('advantage Aₜ').isEnabled()).toBe(true);
  });

  it('restores the trained run from IndexedDB after a reload', async () => {
    await page.reload();
    await page.getByRole('tab', { name: 'Dashboard' }).click();
    await expect.poll(() => page.locator('.panel[data-metric="rollout/reward"]').getAttribute('data-points')).toBe(String(ITERATIONS));
    expect(await page.getByTestId('run-origin').textContent()).toContain('trained in this browser: horizon train --recipe tiny');
  });
});
