// The GAE walkthrough in headless Chromium on WebGPU (SwiftShader): a learner moves λ and γ and the
// advantages on screen become the kernel's answer, checked against the float64 reference computed
// here. Also measures the longest main-thread task while the learner drags the slider.

import { gaeRef } from '@horizon/kernels';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WALKTHROUGH_T, WALKTHROUGH_TOKENS, walkthroughInputs } from '../../packages/web-ui/src/engine/trajectory.ts';
import { launchChromium } from '../support/chromium.ts';
import { LONG_TASK_PROBE, readProbe, resetProbe } from './support/probe.ts';
import { type BuiltApp, buildAndServe } from './support/web-app.ts';

let app: BuiltApp;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  app = await buildAndServe();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.addInitScript(LONG_TASK_PROBE);
  await page.goto(`${app.url}#gae`);
  await page.waitForSelector('.lane-wrap', { timeout: 60_000 });
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** Waits until the lane shows the answer to (γ, λ), then reads the advantage row. */
async function shownAdvantages(gamma: number, lambda: number): Promise<{ text: string; value: string | undefined }[]> {
  await page.waitForFunction(
    ([g, l]) => {
      const lane = document.querySelector<HTMLElement>('.lane-wrap');
      return lane?.dataset.gamma === String(g) && lane.dataset.lambda === String(l) && !document.querySelector('.device-line.stale');
    },
    [gamma, lambda],
    { timeout: 30_000 },
  );
  return page.$$eval('.lane tr[data-row="A"] td', (cells) => cells.map((td) => ({ text: td.textContent ?? '', value: (td as HTMLElement).dataset.value })));
}

function expectKernelValues(shown: { text: string; value: string | undefined }[], gamma: number, lambda: number) {
  const ref = gaeRef(walkthroughInputs(1), { B: 1, T: WALKTHROUGH_T, gamma, lambda: [lambda] });
  expect(shown).toHaveLength(WALKTHROUGH_T);
  WALKTHROUGH_TOKENS.forEach((tok, t) => {
    if (tok.role !== 'action') {
      expect(shown[t].text, `token ${t} (${tok.role}) must be skipped`).toBe('·');
      return;
    }
    // The f32 kernel value behind the cell, and the 3-decimal text a learner reads.
    expect(Math.abs(Number(shown[t].value) - ref.advantages[t]), `A[${t}] at γ=${gamma}, λ=${lambda}`).toBeLessThan(1e-5);
    expect(Math.abs(Number(shown[t].text.replace('−', '-')) - ref.advantages[t])).toBeLessThanOrEqual(0.0005 + 1e-6);
  });
}

describe('GAE walkthrough in Chromium', () => {
  it('computes on the WebGPU kernel in the worker and says which device', async () => {
    const line = page.getByTestId('gae-device');
    await expect.poll(() => line.getAttribute('data-computed-on')).toBe('gpu');
    expect((await line.textContent())?.toLowerCase()).toMatch(/computed by the gae kernel \(wgsl\) on .*swiftshader/);
    expectKernelValues(await shownAdvantages(1, 0.95), 1, 0.95);
  });

  it('moving λ changes the shown advantages to the kernel’s values', async () => {
    await resetProbe(page);
    const before = await shownAdvantages(1, 0.95);
    const slider = page.locator('input[name="lambda"]');
    await slider.focus();
    for (let i = 0; i < 25; i++) await page.keyboard.press('ArrowLeft'); // a learner dragging λ down: 0.95 → 0.70
    await expect.poll(() => page.getByTestId('lambda-value').textContent()).toBe('0.70');
    const after = await shownAdvantages(1, 0.7);
    expect(after.map((c) => c.text)).not.toEqual(before.map((c) => c.text));
    expectKernelValues(after, 1, 0.7);

    await page.getByRole('button', { name: 'λ = 0 (TD)' }).click();
    const td = await shownAdvantages(1, 0);
    expectKernelValues(td, 1, 0);
    // At λ = 0 the advantage is the TD error itself: the A row equals the δ row.
    const deltas = await page.$$eval('.lane tr[data-row="delta"] td', (cells) => cells.map((td) => td.textContent));
    expect(td.map((c) => c.text)).toEqual(deltas);

    await page.getByRole('button', { name: 'λ = 1 (Monte Carlo)' }).click();
    expectKernelValues(await shownAdvantages(1, 1), 1, 1);
    // Monte Carlo with γ = 1 and reward 1 at the end: every action token's return is exactly 1.
    const returns = await page.$$eval('.lane tr[data-row="R"] td', (cells) => cells.map((td) => td.textContent));
    for (const [t, tok] of WALKTHROUGH_TOKENS.entries()) expect(returns[t]).toBe(tok.role === 'action' ? '1.000' : '·');

    await page.locator('input[name="gamma"]').fill('0.8');
    await expect.poll(() => page.getByTestId('gamma-value').textContent()).toBe('0.80');
    expectKernelValues(await shownAdvantages(0.8, 1), 0.8, 1);

    const probe = await readProbe(page);
    console.log(`[perf] λ/γ interaction: longest main-thread task ${probe.longestTask.toFixed(0)} ms, longest frame gap ${probe.longestGap.toFixed(0)} ms`);
  });

  it('links each number in the worked equations to its cell', async () => {
    await page.getByRole('button', { name: 'λ = 0.95' }).click();
    await shownAdvantages(0.8, 0.95);
    await page.locator('.lane thead button', { hasText: '</tool_call>' }).click();
    await expect
      .poll(() => page.locator('.equations .note').textContent())
      .toContain('Its next action token is 13: the observation tokens in between are skipped.');
    // Hovering V_{t'} in the δ equation lights up the value of token 13, the next action token.
    await page.locator('.equations .worked [data-cell="V-13"]').first().hover();
    await expect.poll(() => page.locator('.lane td[data-cell="V-13"]').getAttribute('class')).toMatch(/linked/);
    const shownDelta = await page.locator('.lane td[data-cell="delta-8"]').textContent();
    await expect.poll(() => page.locator('.equations .worked [data-cell="delta-8"]').first().textContent()).toBe(shownDelta ?? '');
  });

  it('the outcome toggle recomputes with reward 0', async () => {
    await page.getByRole('button', { name: 'answer wrong (r = 0)' }).click();
    await page.waitForFunction(() => document.querySelector<HTMLElement>('.lane-wrap')?.dataset.outcome === '0');
    const rewards = await page.$$eval('.lane tr[data-row="r"] td', (cells) => cells.map((td) => td.textContent));
    expect(rewards.every((r) => r === '0.000')).toBe(true);
  });
});
