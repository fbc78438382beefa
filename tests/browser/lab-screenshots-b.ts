// Screenshots of the anti-hack and compaction labs for docs/, each from a real run trained in the
// page's worker at the lab's default budget (docs/ui.md §25–26): `npx tsx tests/browser/lab-screenshots-b.ts`.
// 1440 px wide, full page. Prints each run's wall time and the longest main-thread task while it trained.

import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../support/chromium.ts';
import { LONG_TASK_PROBE, readProbe, resetProbe } from './support/probe.ts';
import { buildAndServe } from './support/web-app.ts';

export async function shootLabs(browser: Browser, url: string, docs: string): Promise<string[]> {
  const lines: string[] = [];
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  await page.addInitScript(LONG_TASK_PROBE);

  // Anti-hack: the guard arm at the lab's defaults, then one rollout's calls.
  await page.goto(`${url}#antihack-lab`);
  await page.getByTestId('antihack-badge-guard').waitFor();
  await resetProbe(page);
  let started = Date.now();
  await page.getByRole('button', { name: 'Train arm guard' }).click();
  await page.locator('[data-testid="antihack-badge-guard"][data-state="finished"]').waitFor({ timeout: 1_800_000 });
  let probe = await readProbe(page);
  lines.push(
    `anti-hack lab, guard arm at the defaults: ${((Date.now() - started) / 1000).toFixed(0)} s, longest main-thread task ${probe.longestTask.toFixed(0)} ms`,
  );
  await page.locator('[aria-label="rollouts of the iteration"] button[aria-pressed="true"]').waitFor();
  await page.screenshot({ path: join(docs, 'ui-antihack-lab.png'), fullPage: true });

  // Compaction: the lab's defaults, the cut moved off the run's own cut by keyboard.
  await page.goto(`${url}#compaction-lab`);
  await resetProbe(page);
  started = Date.now();
  await page.getByRole('button', { name: 'Train' }).click();
  await page.locator('[data-testid="compaction-lab-badge"][data-state="finished"]').waitFor({ timeout: 1_800_000 });
  probe = await readProbe(page);
  lines.push(`compaction lab at the defaults: ${((Date.now() - started) / 1000).toFixed(0)} s, longest main-thread task ${probe.longestTask.toFixed(0)} ms`);
  await page.locator('input[name="compaction-lab-cut"]').focus();
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
  await page.locator('[data-testid="compaction-lab-losses"]').waitFor();
  await page.waitForTimeout(1500);
  await page.screenshot({ path: join(docs, 'ui-compaction-lab.png'), fullPage: true });
  await page.close();
  return lines;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const app = await buildAndServe();
  const browser = await launchChromium();
  try {
    for (const line of await shootLabs(browser, app.url, join(import.meta.dirname, '..', '..', 'docs'))) console.log(line);
  } finally {
    await browser.close();
    await app.close();
  }
}
