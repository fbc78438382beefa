// Screenshots of the live labs for docs/, each from a real run in the page's worker on WebGPU
// (SwiftShader here): `npx tsx tests/browser/lab-screenshots.ts` (both; `… opid` or `… genac` for one). The OPID lab after two RL
// iterations of its shrunk hidden-opid, with a rollout a skill scored picked and its Δ strip focused;
// the GenAC lab after four iterations of its shrunk add-genac (critic SFT, REINFORCE, then PPO) from
// seeds 1 and 2, for the seed-sensitivity table, with the probe at one answer token after the
// value head's training and one retrain of the generative critic.
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
    if (only !== 'genac') await shootOpid(page, app.url, docs);
    if (only !== 'opid') await shootGenac(page, app.url, docs);
  } finally {
    await browser.close();
    await app.close();
  }
}

const only = process.argv[2];

async function shootOpid(page: Page, url: string, docs: string): Promise<void> {
  await train(page, url, 'hidden-opid', ['rl.iterations=2'], 'opid-lab');
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
}

async function shootGenac(page: Page, url: string, docs: string): Promise<void> {
  // GenAC: seed 2 trained after seed 1, so the seed-sensitivity table has both; a well-formed critique of a prompt some rollouts solved picked.
  await train(page, url, 'add-genac', ['rl.iterations=4'], 'genac-lab');
  await page.locator('select[name="seed"]').selectOption('2');
  await page.getByTestId('lab-train').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="lab-status"]')?.getAttribute('data-state') === 'finished', null, {
    timeout: 900_000,
    polling: 1000,
  });
  await page.locator('[data-testid="genac-lab-table"] tbody tr').first().waitFor({ timeout: 60_000 });
  const solved = page.locator('[data-testid="genac-lab-table"] tbody tr:not([data-digit=""]):not([data-mc="0"])');
  const digit = (await solved.count()) > 0 ? solved.first() : page.locator('[data-testid="genac-lab-table"] tbody tr:not([data-digit=""])').first();
  if ((await digit.count()) > 0) await digit.getByRole('button').click();
  // The probe: one answer token read, the value head trained, the generative critic retrained once.
  const probed = (version: number) =>
    page.waitForFunction(
      (v) => {
        const got = JSON.parse(document.querySelector<HTMLElement>('.genac-probe')?.dataset.answerFor || '{}') as Record<string, unknown>;
        return got.cut === 1 && got.version === v;
      },
      version,
      { timeout: 600_000, polling: 500 },
    );
  await page.locator('input[name="cut"]').focus();
  await page.keyboard.press('ArrowRight');
  await probed(0);
  await page.getByTestId('train-value-head').click();
  await probed(1);
  await page.locator('input[name="retrain-iterations"]').fill('1');
  await page.getByTestId('retrain-generative').click();
  await probed(2);
  await page.screenshot({ path: join(docs, 'ui-genac-lab.png'), fullPage: true });
}

await main();
