// Screenshots of the home page and the RL walkthroughs for docs/, each after a learner's action on
// the real kernels in the page's worker: `npx tsx tests/browser/walkthrough-screenshots.ts` takes
// them alone; take-screenshots.ts takes them with the rest. 1440 px wide (full page), and the home
// page at a phone's 390×844.

import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium.ts';
import { buildAndServe } from './support/web-app.ts';

const ready = (page: Page, root: string, field: string, value: string) =>
  page.waitForFunction(
    ([r, f, v]) => {
      const el = document.querySelector<HTMLElement>(r);
      return !!el?.dataset.answerFor && JSON.stringify(JSON.parse(el.dataset.answerFor)[f]) === v && !el.querySelector('.device-line.stale');
    },
    [root, field, value] as const,
    { timeout: 60_000 },
  );

export async function shootWalkthroughs(browser: Browser, url: string, docs: string): Promise<void> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1 });
  await page.goto(`${url}#home`);
  await page.getByTestId('home-device').filter({ hasText: 'WebGPU device' }).waitFor({ timeout: 60_000 });
  await page.locator('.home-card[data-view="ppo"]').focus();
  await page.screenshot({ path: join(docs, 'ui-home.png') });

  // PPO: negative advantages, the exploded ratio held by the dual clip, its equations worked.
  await page.goto(`${url}#ppo`);
  await page.getByRole('button', { name: 'A < 0 (bad tokens)' }).click();
  await ready(page, '.ppo', 'sign', '-1');
  await page.getByRole('button', { name: 'token 5: <eos>' }).click();
  await page.screenshot({ path: join(docs, 'ui-ppo-walkthrough.png'), fullPage: true });

  // Groups: partial credit, then one reward dragged up by keyboard.
  await page.goto(`${url}#groups`);
  await page.getByRole('button', { name: 'partial credit' }).click();
  await page.locator('input[name="reward-4"]').focus();
  for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowRight');
  await ready(page, '.groups', 'rewards', JSON.stringify([0.9, 0.2, 0.5, 0.75, 0.4, 0.55]));
  await page.screenshot({ path: join(docs, 'ui-groups-walkthrough.png'), fullPage: true });

  // KTO: the second completion relabelled undesirable; span-KTO as it starts.
  await page.goto(`${url}#kto`);
  await page.getByRole('button', { name: 'completion 2 desirable' }).click();
  await ready(page, '[data-part="kto"]', 'desirable', '[1,0,0,0]');
  await page.locator('[data-part="span-kto"] .device-line[data-computed-on="gpu"]').waitFor({ timeout: 60_000 });
  await page.screenshot({ path: join(docs, 'ui-kto-walkthrough.png'), fullPage: true });

  // Distillation: routed by skill, as mix-distill trains.
  await page.goto(`${url}#distill`);
  await ready(page, '.distill', 'route', '[0,1]');
  await page.screenshot({ path: join(docs, 'ui-distill-walkthrough.png'), fullPage: true });

  // Anti-hack monitor: the chained hack picked, answered from the decoy in guard mode; two flagged calls labelled.
  await page.goto(`${url}#monitor`);
  await page.getByRole('button', { name: 'chained hack: find . -name f.js | xargs cat' }).click();
  await ready(page, '.monitor', 'line', JSON.stringify('find . -name f.js | xargs cat'));
  await page.getByRole('group', { name: 'your label for cat .eval/f.js' }).getByRole('button', { name: '✗ hack' }).click();
  await ready(page, '.monitor-review', 'set', JSON.stringify({ line: 'cat .eval/f.js', label: 'hack' }));
  await page.getByRole('group', { name: 'your label for find .' }).getByRole('button', { name: '✓ legitimate' }).click();
  await ready(page, '.monitor-review', 'set', JSON.stringify({ line: 'find .', label: 'legitimate' }));
  await page.screenshot({ path: join(docs, 'ui-monitor-walkthrough.png'), fullPage: true });

  // Compaction: the cut moved by keyboard to after token 3; V = 0, so the segments stitch back exactly.
  await page.goto(`${url}#compaction`);
  await page.locator('input[name="cut"]').focus();
  for (let i = 0; i < 2; i++) await page.keyboard.press('ArrowLeft');
  await ready(page, '.compaction', 'cut', '3');
  await page.screenshot({ path: join(docs, 'ui-compaction-walkthrough.png'), fullPage: true });

  // OPID: routed skills (the default), the forward pass's per-token Δ strip and the advantage it adds.
  await page.goto(`${url}#opid`);
  await ready(page, '.opid', 'routing', '"route"');
  await page.screenshot({ path: join(docs, 'ui-opid-walkthrough.png'), fullPage: true });

  // Critic vs GenAC: the preset with a sign, a leading zero and a value above 10, each on its fallback.
  await page.goto(`${url}#genac`);
  await page.getByRole('button', { name: 'malformed: sign, leading zero, above 10' }).click();
  await ready(
    page,
    '.genac',
    'critiques',
    JSON.stringify([
      { text: 'c1=8', eos: true },
      { text: 'c1=-4', eos: true },
      { text: 'c0=09', eos: true },
      { text: 'c1=12', eos: true },
    ]),
  );
  await page.screenshot({ path: join(docs, 'ui-genac-walkthrough.png'), fullPage: true });
  await page.close();

  const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  await phone.goto(`${url}#home`);
  await phone.getByTestId('home-device').filter({ hasText: 'WebGPU device' }).waitFor({ timeout: 60_000 });
  await phone.screenshot({ path: join(docs, 'ui-phone-home.png') });
  await phone.close();
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const app = await buildAndServe();
  const browser = await launchChromium();
  try {
    await shootWalkthroughs(browser, app.url, join(import.meta.dirname, '..', '..', 'docs'));
  } finally {
    await browser.close();
    await app.close();
  }
}
