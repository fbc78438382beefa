// The two UI-DSL render servers agree: on every case of the interactive judge's test set (honest,
// padded, wrong and broken programs) under each of its action sequences (the planner's, and one
// that clicks, presses Enter on and fills every element and acts on a missing id), the DOM-free
// simulator in core and the Playwright server driving Debian Chromium record the same steps —
// element states, changes, console lines and errors, step by step — and so the interactive judge
// gives every case the same score on either. Nothing is compared within a tolerance. Without
// Chromium the suite fails naming the package to install; it never skips.

import { casePlans, JUDGE_CASES, judgeInteractively, type RenderTrace, SimulatorRenderServer } from '@horizon/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlaywrightRenderServer } from '../../packages/node-runner/src/render/playwright-server.ts';

let browser: PlaywrightRenderServer;
const simulator = new SimulatorRenderServer();

/** What both servers must record alike (which server, its timing and the screenshot aside). */
const observed = (trace: RenderTrace) => ({ rendered: trace.rendered, steps: trace.steps });

beforeAll(async () => {
  browser = await PlaywrightRenderServer.launch();
});
afterAll(async () => {
  await browser?.close();
});

describe('the simulator and the Playwright render server', () => {
  for (const c of JUDGE_CASES)
    for (const { name, plan } of casePlans(c))
      it(`record the same trace: ${c.name} × ${name}`, async () => {
        const real = await browser.run(c.program, plan);
        const simulated = await simulator.run(c.program, plan);
        expect(real.server).toBe('playwright');
        expect(observed(real)).toEqual(observed(simulated));
      });

  it('give the interactive judge the same score on every case', async () => {
    for (const c of JUDGE_CASES) {
      const real = await judgeInteractively(c.spec, c.program, browser);
      const simulated = await judgeInteractively(c.spec, c.program, simulator);
      expect(real.judging, c.name).toEqual(simulated.judging);
      expect(real.score, c.name).toBe(simulated.score);
    }
  });

  it('take a PNG screenshot of the page after the last action', async () => {
    const trace = await browser.run(JUDGE_CASES[0].program, [{ type: 'click', id: 'a' }]);
    expect(trace.screenshot?.length).toBeGreaterThan(100);
    expect([...(trace.screenshot as Uint8Array).subarray(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
  });
});
