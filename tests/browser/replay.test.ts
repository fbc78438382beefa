// Replays in headless Chromium: open a run's metrics.jsonl and samples.jsonl like a user (file
// picker, drag and drop), browse the dashboard and the token strips, reload and find the run
// restored from IndexedDB, and see storage failures (quota, another tab's upgrade) as banners.

import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { METRICS } from '@horizon/core';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, WEBGPU_FLAGS } from '../support/chromium.ts';
import { FIXTURE_STEPS, fixtureMetrics, fixtureSamples } from './support/replay-fixture.ts';
import { type BuiltApp, buildAndServe } from './support/web-app.ts';

let app: BuiltApp;
let profile: string;
let context: BrowserContext;
let page: Page;

const metrics = fixtureMetrics();
const samples = fixtureSamples();
const files = [
  { name: 'metrics.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(metrics.text) },
  { name: 'samples.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(samples.text) },
];

beforeAll(async () => {
  app = await buildAndServe({ shippedReplay: false });
  // A persistent profile, so IndexedDB survives a reload exactly as in a user's browser.
  profile = mkdtempSync(join(tmpdir(), 'horizon-profile-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath(),
    args: WEBGPU_FLAGS,
    headless: true,
    viewport: { width: 1280, height: 900 },
  });
  page = context.pages()[0] ?? (await context.newPage());
});

afterAll(async () => {
  await context?.close();
  await app?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

const points = (p: Page, metric: string) => p.locator(`.panel[data-metric="${metric}"]`).getAttribute('data-points');
const text = (p: Page, selector: string) => p.locator(selector).first().textContent();

describe('replay in Chromium', () => {
  it('shows an honest empty state while no replay ships with the app', async () => {
    await page.goto(app.url);
    await expect.poll(() => text(page, '[data-testid=empty-state]')).toContain('it is not there yet');
    expect(await page.getByTestId('live-badge').getAttribute('data-state')).toBe('idle');
  });

  it('opens a replay: the dashboard shows its points', async () => {
    await page.setInputFiles('[data-testid=replay-input]', files);
    await expect.poll(() => points(page, 'rollout/reward')).toBe(String(FIXTURE_STEPS));
    expect(await points(page, 'policy/kl')).toBe(String(FIXTURE_STEPS - 1)); // step 3 logged no KL: no invented point
    expect(await text(page, '.panel[data-metric="rollout/reward"] .panel-meta')).toBe(
      `${FIXTURE_STEPS} points · last 0.650 at iteration 11 · success = reward here`,
    );
    expect(await page.locator('.panel canvas').count()).toBeGreaterThanOrEqual(8);
    expect(await text(page, '[data-testid=run-name]')).toBe('tiny');
    expect(await page.getByTestId('run-badge').getAttribute('data-state')).toBe('finished');
    expect(await page.getByTestId('live-badge').getAttribute('data-state')).toBe('idle'); // a replay is not the live run
    expect(page.url()).toMatch(/[?&]run=[0-9a-f-]{36}/);
    // The glossary definition appears on hover, from core's glossary.
    await page.locator('.panel[data-metric="critic/explained_var"] .gloss-trigger').hover();
    await expect.poll(() => page.locator('.panel[data-metric="critic/explained_var"] .gloss-tip').isVisible()).toBe(true);
    expect(await text(page, '.panel[data-metric="critic/explained_var"] .gloss-tip')).toContain(METRICS['critic/explained_var'].doc);
  });

  it('the token strips show its tokens, coloured by the chosen channel, numbers on hover', async () => {
    await page.getByRole('tab', { name: 'Completions' }).click();
    const rows = page.locator('table.samples tbody tr');
    await expect.poll(() => rows.count()).toBe(samples.samples.length);
    for (const [i, s] of samples.samples.entries()) expect(await rows.nth(i).locator('.strip').textContent()).toBe(s.pieces!.join(''));
    const first = rows.nth(0);
    expect(await first.locator('.tok-prompt').count()).toBe(5); // "10+5=" is prompt: not coloured, not trained on
    const action = first.locator('.tok-action').first();
    expect(await action.getAttribute('data-value')).toBe('0.2');
    expect(await action.getAttribute('class')).toContain('sign-pos');
    expect(await rows.nth(1).locator('.tok-action').first().getAttribute('class')).toContain('sign-neg');
    await action.hover();
    await expect.poll(() => text(page, '.token-card')).toContain('"1" token 5 · action');
    expect(await text(page, '.token-card')).toMatch(/advantage Aₜ\+0\.2000.*value Vₜ\+0\.5500.*ratio π\/π_old\+1\.0500/);
    const colour = await action.evaluate((el) => getComputedStyle(el).backgroundColor);
    await page.getByLabel('ratio π/π_old').check();
    await expect.poll(() => action.getAttribute('data-value')).toBe('1.05');
    expect(await action.evaluate((el) => getComputedStyle(el).backgroundColor)).not.toBe(colour);
    expect(await page.getByLabel('log-prob').isDisabled()).toBe(true); // not logged in this run
  });

  it('restores the run from IndexedDB after a reload', async () => {
    await page.reload();
    await expect.poll(() => text(page, '[data-testid=run-name]')).toBe('tiny');
    await expect.poll(() => page.locator('table.samples tbody tr').count()).toBe(samples.samples.length);
    // A new tab without ?run= opens the newest saved run, from storage alone.
    const tab = await context.newPage();
    await tab.goto(app.url);
    await expect.poll(() => points(tab, 'rollout/reward')).toBe(String(FIXTURE_STEPS));
    await tab.close();
  });

  it('opens a dropped run and flags the divergence', async () => {
    await page.getByRole('tab', { name: 'Dashboard' }).click();
    const nan = fixtureMetrics({ nanAt: 5 }).text;
    const transfer = await page.evaluateHandle((t) => {
      const dt = new DataTransfer();
      dt.items.add(new File([t], 'metrics.jsonl', { type: 'application/jsonl' }));
      return dt;
    }, nan);
    await page.dispatchEvent('[data-testid=drop-zone]', 'drop', { dataTransfer: transfer });
    await expect.poll(() => page.getByTestId('run-badge').getAttribute('data-state')).toBe('diverged');
    expect(await page.getByTestId('run-badge').getAttribute('title')).toBe('Diverged: policy/kl = NaN at rl step 5.');
    expect(await text(page, '[data-testid=replay-note]')).toContain('No samples.jsonl was opened');
    expect(await page.locator('select[name=run] option').count()).toBe(2);
  });

  it('says why a damaged file cannot be opened', async () => {
    await page.setInputFiles('[data-testid=replay-input]', [
      { name: 'metrics.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from('{"kind":"recipe"}\n') },
    ]);
    await expect.poll(() => text(page, '[data-testid=replay-note]')).toMatch(/metrics.jsonl line 1 is not a horizon.metrics\/1 recipe header/);
  });

  it('deletes a saved run', async () => {
    await page.getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => page.locator('select[name=run] option').count()).toBe(1);
    expect(await text(page, '[data-testid=run-name]')).toBe('tiny');
  });

  it('shows a banner when another tab upgrades the storage, and on reload names the newer version', async () => {
    const other = await context.newPage();
    await other.goto(`${app.url}#playground`);
    await other.evaluate(
      () =>
        new Promise<void>((resolve, reject) => {
          const open = indexedDB.open('horizon', 99); // what a future Horizon with a newer schema does
          open.onsuccess = () => {
            open.result.close();
            resolve();
          };
          open.onerror = () => reject(open.error);
        }),
    );
    await other.close();
    await expect.poll(() => text(page, '[data-banner=storage]')).toContain('A newer version of Horizon was opened in another tab');
    await page.reload();
    await expect.poll(() => text(page, '[data-banner=storage]')).toContain('written by a newer version of Horizon');
  });
});

describe('storage failures', () => {
  it('shows a banner when the browser storage is full, and still shows the run', async () => {
    // A fresh profile: Chromium re-checks quota per write, but a bucket that already wrote keeps a
    // cached allowance for a while, so the override must precede the first write.
    const full = await chromium.launchPersistentContext('', { executablePath: chromiumPath(), args: WEBGPU_FLAGS, headless: true });
    try {
      const tab = await full.newPage();
      await tab.goto(app.url);
      const cdp = await full.newCDPSession(tab);
      await cdp.send('Storage.overrideQuotaForOrigin', { origin: new URL(app.url).origin, quotaSize: 1 });
      await tab.setInputFiles('[data-testid=replay-input]', files);
      await expect.poll(() => text(tab, '[data-banner=storage]')).toContain("this site's browser storage is full");
      expect(await text(tab, '[data-banner=storage]')).toContain('The run is shown but will be gone after a reload.');
      await expect.poll(() => points(tab, 'rollout/reward')).toBe(String(FIXTURE_STEPS));
      await tab.reload();
      await expect.poll(() => text(tab, '[data-testid=empty-state]')).toContain('No run to show yet'); // nothing half-saved
    } finally {
      await full.close();
    }
  });
});

describe('the replay shipped with the app', () => {
  it('loads from replay/manifest.json when one ships', async () => {
    const dir = join(app.dir, 'replay');
    mkdirSync(dir);
    writeFileSync(join(dir, 'metrics.jsonl'), metrics.text);
    writeFileSync(join(dir, 'samples.jsonl'), samples.text);
    writeFileSync(
      join(dir, 'manifest.json'),
      JSON.stringify({ format: 'horizon.replay/1', name: 'test fixture', origin: 'tests/browser fixture', metrics: 'metrics.jsonl', samples: 'samples.jsonl' }),
    );
    const clean = await chromium.launchPersistentContext('', { executablePath: chromiumPath(), args: WEBGPU_FLAGS, headless: true }); // no saved runs
    try {
      const tab = await clean.newPage();
      await tab.goto(app.url);
      await expect.poll(() => text(tab, '[data-testid=run-name]')).toBe('test fixture');
      expect(await text(tab, '[data-testid=run-origin]')).toBe('tests/browser fixture');
      expect(await points(tab, 'rollout/reward')).toBe(String(FIXTURE_STEPS));
    } finally {
      await clean.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the replay that ships in packages/web-ui/public/replay', () => {
  it('is a real horizon train run and opens on first paint', async () => {
    const shipped = await buildAndServe();
    const clean = await chromium.launchPersistentContext('', { executablePath: chromiumPath(), args: WEBGPU_FLAGS, headless: true });
    try {
      const manifest = JSON.parse(readFileSync(join(shipped.dir, 'replay', 'manifest.json'), 'utf8')) as { name: string; origin: string; metrics: string };
      const log = readFileSync(join(shipped.dir, 'replay', manifest.metrics), 'utf8')
        .trim()
        .split('\n');
      const iterations = log.slice(1).filter((line) => JSON.parse(line).phase === 'rl').length;
      const tab = await clean.newPage();
      await tab.goto(shipped.url);
      await expect.poll(() => text(tab, '[data-testid=run-name]')).toBe(manifest.name);
      expect(await text(tab, '[data-testid=run-origin]')).toBe(manifest.origin);
      expect(await points(tab, 'rollout/reward')).toBe(String(iterations));
    } finally {
      await clean.close();
      await shipped.close();
    }
  });
});
