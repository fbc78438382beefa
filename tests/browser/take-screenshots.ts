// Screenshots of the UI for docs/: `npx tsx tests/browser/take-screenshots.ts`. The dashboard,
// playground and completions shots show a real run: the tiny recipe (12 RL iterations) trained in
// the page's worker on this machine's WebGPU device. Also prints the longest main-thread task and
// frame gap of each step (PerformanceObserver 'longtask' and a requestAnimationFrame probe).

import { join } from 'node:path';
import { launchChromium } from '../support/chromium.ts';
import { LONG_TASK_PROBE, readProbe, resetProbe } from './support/probe.ts';
import { buildAndServe } from './support/web-app.ts';

const docs = join(import.meta.dirname, '..', '..', 'docs');
const SETS = ['rl.iterations=12', 'eval.interval=4', 'checkpoint.interval=4'];

const app = await buildAndServe();
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 820 }, deviceScaleFactor: 1 });
  await page.addInitScript(LONG_TASK_PROBE);
  const query = new URLSearchParams([['recipe', 'tiny'], ...SETS.map((s) => ['set', s])]);
  await page.goto(`${app.url}?${query}#playground`);
  await page.getByRole('button', { name: 'Play' }).and(page.locator(':not([disabled])')).waitFor({ timeout: 60_000 });
  const phases: string[] = [];
  const phase = async (name: string) => {
    const p = await readProbe(page);
    phases.push(`${name}: longest task ${p.longestTask.toFixed(0)} ms, longest frame gap ${p.longestGap.toFixed(0)} ms`);
    await resetProbe(page);
  };
  await phase('page load');
  const started = Date.now();
  await page.getByRole('button', { name: 'Play' }).click();
  // The shipped replay already shows a finished run: wait for ours to start, then to finish.
  await page.locator('.badge[data-state="running"]').waitFor({ timeout: 60_000 });
  await page.locator('.badge[data-state="finished"]').waitFor({ timeout: 600_000 });
  await phase(`live training, tiny with ${SETS.join(' ')} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  // The shared cursor: hovering one chart marks the same step on all of them.
  await page.locator('.panel[data-metric="rollout/reward"] .u-over').hover({ position: { x: 150, y: 60 } });
  await page.screenshot({ path: join(docs, 'ui-playground.png'), clip: { x: 0, y: 0, width: 1280, height: 760 } });

  await page.getByRole('tab', { name: 'Dashboard' }).click();
  await page.locator('.panel[data-metric="critic/value_loss"] .u-over').hover({ position: { x: 150, y: 60 } });
  await phase('dashboard');
  await page.screenshot({ path: join(docs, 'ui-dashboard.png') });

  await page.getByRole('tab', { name: 'Completions' }).click();
  await page.locator('table.samples tbody tr').nth(0).locator('.tok-action').nth(1).hover();
  await phase('completions + hover');
  await page.screenshot({ path: join(docs, 'ui-completions.png'), clip: { x: 0, y: 0, width: 1280, height: 560 } });

  await page.getByRole('tab', { name: 'GAE walkthrough' }).click();
  await page.waitForSelector('.lane-wrap[data-lambda]', { timeout: 60_000 });
  await phase('open GAE walkthrough (loads KaTeX, first kernel call)');
  const slider = page.locator('input[name="lambda"]');
  await slider.focus();
  for (let i = 0; i < 20; i++) await page.keyboard.press('ArrowLeft');
  await page.waitForSelector('.lane-wrap[data-lambda="0.75"]');
  await page.locator('.equations .worked [data-cell="V-13"]').first().hover();
  await phase('drag λ 20 steps');
  await page.screenshot({ path: join(docs, 'ui-gae-walkthrough.png'), fullPage: true });
  console.log(phases.join('\n'));
} finally {
  await browser.close();
  await app.close();
}
