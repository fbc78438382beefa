// One screen for the RL loop (docs/ui.md §13): the shipped PPO run's stages with the numbers of
// one iteration (its metrics row and logged rollouts), an iteration slider, and each stage's link
// to its detail view. The live run's loop follows its newest iteration (run-state.test.ts trains).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fmt } from '../../packages/web-ui/src/views/format.ts';
import { appInChromium } from './support/app-in-chromium.ts';

const served = appInChromium();

const shipped = readFileSync(join(import.meta.dirname, '..', '..', 'packages', 'web-ui', 'public', 'replay', 'metrics.jsonl'), 'utf8')
  .trim()
  .split('\n')
  .slice(1)
  .map((l) => JSON.parse(l) as { phase: string; step: number; metrics: Record<string, number> });

describe('the RL loop on one screen', () => {
  it('shows prompt → rollouts → reward → advantages → update for an iteration, each linking to its detail', async () => {
    const page = await served.browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${served.app.url}#loop`);
    const stages = page.locator('.loop-stage');
    await expect.poll(() => stages.count(), { timeout: 30_000 }).toBe(5);
    expect(await stages.locator('h3').allTextContents()).toEqual(['1Prompt', '2Rollouts', '3Reward', '4Advantages', '5Update']);
    const last = shipped.filter((r) => r.phase === 'rl').at(-1)!;
    expect(await page.getByTestId('loop-step').textContent()).toBe(` ${last.step} of ${last.step}`);
    expect(await page.locator('[data-stage=reward] dd[data-name="mean reward"]').textContent()).toBe(fmt(last.metrics['rollout/reward']));
    expect(await page.locator('[data-stage=update] dd[data-name="KL"]').textContent()).toBe(fmt(last.metrics['policy/kl'], 4));
    // The slider picks another iteration; its numbers follow.
    const slider = page.getByLabel('iteration');
    await slider.focus();
    await page.keyboard.press('ArrowLeft');
    const previous = shipped.filter((r) => r.phase === 'rl').at(-2)!;
    await expect.poll(() => page.getByTestId('loop-step').textContent()).toBe(` ${previous.step} of ${last.step}`);
    expect(await page.locator('[data-stage=reward] dd[data-name="mean reward"]').textContent()).toBe(fmt(previous.metrics['rollout/reward']));
    // Rollouts → that iteration's token strips; Advantages → the GAE walkthrough.
    await page.locator('[data-stage=rollouts] .loop-link').click();
    await expect.poll(() => page.getByRole('tab', { name: 'Completions' }).getAttribute('aria-selected')).toBe('true');
    expect(await page.locator('select[name=rollouts]').inputValue()).toBe(`rl:${previous.step}`); // the iteration on screen
    await page.goBack();
    await page.locator('[data-stage=advantages] .loop-link').click();
    await expect.poll(() => page.getByRole('tab', { name: 'GAE walkthrough' }).getAttribute('aria-selected')).toBe('true');
    await page.close();
  });
});
