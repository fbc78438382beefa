// Compare runs (docs/ui.md §14): the shipped PPO, GRPO and RLOO replays (docs/data/, same seed and
// budget) overlaid on one set of charts with the recipe fields that differ; a run opened from
// files joins the overlay, and the choice lives in the URL.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appInChromium } from './support/app-in-chromium.ts';
import { fixtureMetrics } from './support/replay-fixture.ts';

const served = appInChromium();

const evalRows = (file: string) =>
  readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'data', file, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .filter((l) => l.includes('"phase":"eval"')).length;

describe('compare runs', () => {
  it('overlays PPO, GRPO and RLOO with a recipe diff, and takes a saved run too', async () => {
    const page = await served.browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${served.app.url}#compare`);
    const diff = page.getByTestId('recipe-diff');
    await expect.poll(() => diff.locator('tr[data-path="rl.algorithm"] td').allTextContents(), { timeout: 30_000 }).toEqual(['"ppo"', '"grpo"', '"rloo"']);
    expect(await diff.locator('tr[data-path="rl.groupSize"] td').allTextContents()).toEqual(['1', '4', '4']);
    expect(await diff.locator('tr[data-path="seed"]').count()).toBe(0); // same seed: not a difference
    const legend = await page.locator('.panel[data-metric="eval/held_out_success"] .u-legend').textContent();
    expect(legend).toMatch(/add-ppo.*add-grpo.*add-rloo/);
    expect(await page.locator('.panel[data-metric="eval/held_out_success"]').getAttribute('data-points')).toBe(String(evalRows('add-ppo')));
    // Two runs only: GRPO off; the URL keeps the choice.
    await page.locator('.compare-picker label', { hasText: 'add-grpo' }).locator('input').uncheck();
    await expect.poll(() => diff.locator('tr[data-path="rl.algorithm"] td').allTextContents()).toEqual(['"ppo"', '"rloo"']);
    expect(new URL(page.url()).searchParams.getAll('cmp')).toEqual(['bundled', 'bundled:add-rloo.metrics.jsonl']);
    // A run opened from files can join the overlay.
    await page.getByRole('tab', { name: 'Dashboard' }).click();
    await page.setInputFiles('[data-testid=replay-input]', [
      { name: 'metrics.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(fixtureMetrics().text) },
    ]);
    await expect.poll(() => page.locator('select[name=run] option').count()).toBe(2);
    await page.getByRole('tab', { name: 'Compare' }).click();
    await page.locator('.compare-picker label', { hasText: 'opened replay' }).locator('input').check();
    await expect
      .poll(() => diff.locator('thead th').allTextContents())
      .toEqual(['field', 'add-ppo (default recipe)', 'add-rloo (RLOO, same seed and budget)', 'tiny']);
    await page.close();
  });
});
