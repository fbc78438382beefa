// A multi-turn trace in the completions table, in headless Chromium: a replay whose samples.jsonl
// (written from hand-built Samples with core's sampleRecord) holds a tool-using trajectory compacted
// into two segments. The page must show one row for it with `segment k/n` headers, the tool calls as
// chips, the observation greyed and folded behind a button, the summary and the carried context
// labelled, the status in words — and fit a 390 px phone without sideways scrolling.

import { formatSampleLine, type Sample, SampleBuilder, sampleRecord } from '@horizon/core';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, WEBGPU_FLAGS } from '../support/chromium.ts';
import { fixtureMetrics } from './support/replay-fixture.ts';
import { type BuiltApp, buildAndServe } from './support/web-app.ts';

let app: BuiltApp;
let browser: Browser;
let page: Page;

const chars = (text: string) => [...text].map((c) => c.charCodeAt(0));
function act(b: SampleBuilder, text: string, ending: 'stop' | 'eos', kind: 'action' | 'summary' = 'action') {
  b.addAction(
    chars(text),
    chars(text).map(() => -1),
    text,
    ending,
    kind,
  );
}
const LISTING = 'x'.repeat(200);

function trajectory(): Sample[] {
  const ids = { seed: 5, rolloutId: 0, groupId: 0 };
  const first = new SampleBuilder(ids, 'fix f', chars('fix f'));
  act(first, '<tool_call>sh cat f.js</tool_call>', 'stop');
  first.addObservation(chars(LISTING), LISTING);
  act(first, 'f returns 1', 'eos', 'summary');
  const second = new SampleBuilder(ids, 'fix f', chars('fix f'), { carried: chars('f returns 1'), segmentIndex: 1 });
  act(second, '<tool_call>write f.js 2</tool_call>', 'stop');
  second.addObservation(chars('ok'), 'ok', 'fabricated');
  act(second, 'done', 'eos');
  second.addReward(1);
  return [first.finish({ status: 'truncated' }), second.finish({ status: 'completed' })];
}

const samplesText = trajectory()
  .map((s) =>
    formatSampleLine(
      sampleRecord(
        s,
        { phase: 'rl', step: 0 },
        { pieces: s.tokens.map((id) => String.fromCharCode(id)), channels: { advantage: Float32Array.from(s.actionMask, (m) => m * 0.5) } },
      ),
    ),
  )
  .join('');

beforeAll(async () => {
  app = await buildAndServe({ shippedReplay: false });
  browser = await chromium.launch({ executablePath: chromiumPath(), args: WEBGPU_FLAGS, headless: true });
  page = await browser.newPage({ viewport: { width: 390, height: 844 } });
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

describe('a multi-turn trace in the completions table', () => {
  it('shows segments, tool calls, greyed and folded observations, summary and carried context, and fits a phone', async () => {
    await page.goto(app.url);
    await page.setInputFiles('[data-testid=replay-input]', [
      { name: 'metrics.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(fixtureMetrics().text) },
      { name: 'samples.jsonl', mimeType: 'application/jsonl', buffer: Buffer.from(samplesText) },
    ]);
    await page.getByRole('tab', { name: 'Completions' }).click();
    const rows = page.locator('table.samples tbody tr');
    await expect.poll(() => rows.count()).toBe(1); // two records, one rollout
    const row = rows.first();
    expect(await row.locator('.segment-head').allTextContents()).toEqual(['segment 1/2 · 250 tokens · truncated', 'segment 2/2 · 57 tokens · completed']);
    expect(await row.locator('td').last().textContent()).toBe('completed');
    expect(await row.locator('.tool-call').allTextContents()).toEqual(['sh cat f.js', 'write f.js 2']);
    expect(await row.locator('.span-label').allTextContents()).toEqual([
      'prompt',
      'turn 1 sh cat f.js',
      'turn 1 · observation',
      'turn 2 · summary → segment 2 continues from it',
      'prompt',
      'carried from segment 1',
      'turn 3 write f.js 2',
      'turn 3 · fabricated',
      'turn 4',
    ]);
    // The observation's tokens are greyed chips, folded after 120 of 200.
    const observation = row.locator('.span-observation');
    expect(await observation.locator('.tok-observation').count()).toBe(120);
    await observation.getByRole('button', { name: '… 80 more tokens' }).click();
    await expect.poll(() => observation.locator('.tok-observation').count()).toBe(200);
    // Action and summary tokens carry the channel; the carried context does not.
    expect(await row.locator('.span-summary .tok-action').count()).toBe(11);
    expect(await row.locator('.span-context .tok-action').count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  });
});
