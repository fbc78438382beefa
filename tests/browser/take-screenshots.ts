// Screenshots of the UI for docs/: `npx tsx tests/browser/take-screenshots.ts`, at a laptop's
// 1440×900 and a phone's 390×844. The playground shot shows a real run: the tiny recipe trained in
// the page's worker on this machine's WebGPU device; the dashboard, RL loop, compare and
// completions shots show the shipped replays (the default recipe's real run, and GRPO and RLOO on
// the same seed and budget). Also prints the time from Play to the first charted point and the
// longest main-thread task and frame gap of each step (PerformanceObserver 'longtask' and a
// requestAnimationFrame probe).

import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium } from '../support/chromium.ts';
import { LONG_TASK_PROBE, readProbe, resetProbe } from './support/probe.ts';
import { buildAndServe } from './support/web-app.ts';
import { shootWalkthroughs } from './walkthrough-screenshots.ts';

const docs = join(import.meta.dirname, '..', '..', 'docs');
const SETS = ['sft.steps=150', 'rl.iterations=6', 'eval.interval=2', 'eval.heldOutSize=50', 'eval.oodSize=20', 'checkpoint.interval=3'];

const app = await buildAndServe();
const browser = await launchChromium();
const lines: string[] = [];
const phase = async (page: Page, name: string) => {
  const p = await readProbe(page);
  lines.push(`${name}: longest task ${p.longestTask.toFixed(0)} ms, longest frame gap ${p.longestGap.toFixed(0)} ms`);
  await resetProbe(page);
};
const tab = (page: Page, name: string) => page.getByRole('tab', { name }).click();

try {
  // ---- laptop, 1440×900 -------------------------------------------------------------------
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  await page.addInitScript(LONG_TASK_PROBE);
  const query = new URLSearchParams([['recipe', 'tiny'], ...SETS.map((s) => ['set', s])]);
  await page.goto(`${app.url}?${query}#playground`);
  await page.locator('#transport-why[data-warm="true"]').waitFor({ timeout: 120_000 });
  await phase(page, 'page load and kernel warm-up');
  // A string, not a function: tsx would wrap named arrows in a __name helper the page lacks.
  const first = page.evaluate<number>(`new Promise((resolve) => {
    const start = performance.now();
    const check = () => Number(document.querySelector('.panel[data-metric="sft/loss"]')?.getAttribute('data-points') ?? 0) > 0 ? resolve(performance.now() - start) : requestAnimationFrame(check);
    check();
  })`);
  await page.getByRole('button', { name: 'Play' }).click();
  lines.push(`Play → first charted point: ${(await first).toFixed(0)} ms`);
  await page.locator('[data-testid=live-badge][data-state="running"]').waitFor({ timeout: 60_000 });
  const started = Date.now();
  await page
    .getByTestId('step-counter')
    .filter({ hasText: /RL iteration [3-9]/ })
    .waitFor({ timeout: 600_000 });
  await phase(page, `live training to RL iteration 3 (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  await page.locator('.panel[data-metric="sft/loss"] .u-over').hover({ position: { x: 200, y: 60 }, force: true });
  await page.screenshot({ path: join(docs, 'ui-playground.png') });
  await tab(page, 'RL loop');
  await page.waitForTimeout(1500); // let the pulse settle
  await page.screenshot({ path: join(docs, 'ui-loop-live.png') });
  await page.locator('[data-testid=live-badge][data-state="finished"]').waitFor({ timeout: 600_000 });
  await phase(page, 'live training to the end');

  // The shipped replays, in a fresh page (no live run).
  const replay = await browser.newPage({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  await replay.addInitScript(LONG_TASK_PROBE);
  await replay.goto(`${app.url}?run=bundled#dashboard`);
  await replay.locator('.panel[data-metric="eval/held_out_success"] canvas').waitFor({ timeout: 60_000 });
  await replay.locator('.panel[data-metric="policy/kl"] .u-over').hover({ position: { x: 150, y: 60 }, force: true });
  await replay.locator('.panel[data-metric="policy/kl"] .gloss-trigger').focus();
  await phase(replay, 'dashboard');
  await replay.screenshot({ path: join(docs, 'ui-dashboard.png') });
  await tab(replay, 'RL loop');
  await replay.waitForTimeout(1500);
  await replay.screenshot({ path: join(docs, 'ui-loop.png') });
  await tab(replay, 'Compare');
  await replay.getByTestId('recipe-diff').waitFor({ timeout: 60_000 });
  await replay.locator('.panel[data-metric="eval/held_out_success"] .u-over').hover({ position: { x: 250, y: 60 }, force: true });
  await phase(replay, 'compare (three 200-iteration runs)');
  await replay.screenshot({ path: join(docs, 'ui-compare.png') });
  await tab(replay, 'Completions');
  const strip = replay.locator('table.samples tbody tr').first().locator('.strip');
  await strip.locator('[tabindex="0"]').focus();
  await replay.keyboard.press('ArrowRight');
  await replay.keyboard.press('Enter');
  await replay.getByTestId('explain-whitened').waitFor({ timeout: 60_000 });
  await strip.locator('[tabindex="0"]').focus();
  await phase(replay, 'completions + explain a token');
  await replay.screenshot({ path: join(docs, 'ui-completions.png'), fullPage: false });
  await tab(replay, 'GAE walkthrough');
  await replay.waitForSelector('.lane-wrap[data-lambda]', { timeout: 60_000 });
  const slider = replay.locator('input[name="lambda"]');
  await slider.focus();
  for (let i = 0; i < 20; i++) await replay.keyboard.press('ArrowLeft');
  await replay.waitForSelector('.lane-wrap[data-lambda="0.75"]');
  await replay.locator('.equations .worked [data-cell="V-13"]').first().hover();
  await phase(replay, 'GAE walkthrough, drag λ 20 steps');
  await replay.screenshot({ path: join(docs, 'ui-gae-walkthrough.png'), fullPage: true });
  // The home page and the RL walkthroughs (walkthrough-screenshots.ts).
  await shootWalkthroughs(browser, app.url, docs);

  // ---- phone, 390×844 -------------------------------------------------------------------
  const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  await phone.goto(`${app.url}?run=bundled#dashboard`);
  await phone.locator('.panel[data-metric="sft/loss"] canvas').waitFor({ timeout: 60_000 });
  await phone.screenshot({ path: join(docs, 'ui-phone-dashboard.png') });
  await phone.goto(`${app.url}?recipe=tiny#playground`);
  await phone.locator('.recipe-panel').waitFor();
  await phone.waitForTimeout(500);
  await phone.screenshot({ path: join(docs, 'ui-phone-playground.png'), fullPage: true });
  await phone.goto(`${app.url}?run=bundled#loop`);
  await phone.locator('.loop-stage').first().waitFor();
  await phone.waitForTimeout(1500);
  await phone.screenshot({ path: join(docs, 'ui-phone-loop.png') });
  const widths = await phone.evaluate(() => document.scrollingElement!.scrollWidth);
  lines.push(`phone scrollWidth on the loop view: ${widths} px`);
  console.log(lines.join('\n'));
} finally {
  await browser.close();
  await app.close();
}
