// Screenshots of the live labs for docs/, each from a real run in the page's worker on WebGPU
// (SwiftShader here): `npx tsx tests/browser/lab-screenshots.ts`. The OPID lab after two RL
// iterations of its shrunk hidden-opid, with a rollout a skill scored picked and its Δ strip focused;
// the GenAC lab after four iterations of its shrunk add-genac (critic SFT, REINFORCE, then PPO).
// 1440 px wide, full page.

import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium } from '../support/chromium.ts';
import { buildAndServe } from './support/web-app.ts';

async function train(page: Page, url: string, preset: string, sets: string[], hash: string): Promise<void> {
  const query = new URLSearchParams([['recipe', preset], ...sets.map((s) => ['set', s])]);
  await page.goto(`${url}?${query}#${hash}`);
  const train = page.getByTestId('lab-train');
  await train.waitFor({ timeout: 60_000 });
  await page.waitForFunction(() => !(document.querySelector('[data-testid="lab-train"]') as HTMLButtonElement | null)?.disabled, null, { timeout: 60_000 });
  await train.click();
  await page.waitForFunction(() => document.querySelector('[data-testid="lab-status"]')?.getAttribute('data-state') === 'finished', null, {
    timeout: 900_000,
    polling: 1000,
  });
}

async function main(): Promise<void> {
  const docs = join(import.meta.dirname, '..', '..', 'docs');
  const app = await buildAndServe();
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
    await train(page, app.url, 'hidden-opid', ['rl.iterations=2'], 'opid-lab');
    await page.getByTestId('opid-skills').waitFor({ timeout: 60_000 });
    // The first rollout whose steps the trainer scored with a skill.
    const options = await page.locator('select[name="rollout"] option').count();
    for (let r = 0; r < options; r++) {
      await page.locator('select[name="rollout"]').selectOption(String(r));
      await page.waitForFunction((k) => JSON.parse(document.querySelector<HTMLElement>('.opid-lab')?.dataset.answerFor || '{}').rollout === k, r, {
        timeout: 60_000,
      });
      const steps = await page.locator('[data-testid="opid-steps"] li').allTextContents();
      if (steps.some((t) => !t.includes('scored it with: no skill'))) break;
    }
    await page.locator('[data-testid="opid-lab-strip"] [tabindex="0"]').focus();
    await page.screenshot({ path: join(docs, 'ui-opid-lab.png'), fullPage: true });

    await train(page, app.url, 'add-genac', ['rl.iterations=4'], 'genac-lab');
    await page.locator('[data-testid="genac-lab-table"] tbody tr').first().waitFor({ timeout: 60_000 });
    const digit = page.locator('[data-testid="genac-lab-table"] tbody tr:not([data-digit=""])').first();
    if ((await digit.count()) > 0) await digit.getByRole('button').click();
    await page.screenshot({ path: join(docs, 'ui-genac-lab.png'), fullPage: true });
  } finally {
    await browser.close();
    await app.close();
  }
}

await main();
