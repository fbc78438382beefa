// The same matmul conformance code on Node (Dawn), Deno and headless Chromium, each against the
// float64 reference. A runtime that produces no result fails the test: none is skipped.

import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testGpu } from '@horizon/kernels/testing';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.ts';
import { denoPath } from '../support/deno.ts';
import { serveFiles } from '../support/static-server.ts';
import { type CaseResult, runMatmulConformance } from './matmul.case.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const TOLERANCE = 1e-5;

function expectAllAccurate(runtime: string, results: CaseResult[] | undefined) {
  expect(results, `${runtime} produced no result`).toBeDefined();
  expect(results!.length).toBeGreaterThanOrEqual(7);
  for (const r of results!) expect(r.relativeError, `${runtime}: ${r.detail}`).toBeLessThan(TOLERANCE);
}

describe('matmul conformance on three runtimes', () => {
  it('Node + Dawn', async () => {
    const gpu = await testGpu();
    expectAllAccurate(`node (${gpu.report.description || gpu.report.architecture})`, await runMatmulConformance(gpu));
  });

  it('Deno + navigator.gpu', () => {
    const run = spawnSync(denoPath(), ['run', '-A', join(here, 'deno-entry.ts')], {
      cwd: root,
      encoding: 'utf8',
      timeout: 170_000,
      env: { ...process.env, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR ?? mkdtempSync(join(tmpdir(), 'xdg-')) },
    });
    const line = run.stdout?.split('\n').find((l) => l.startsWith('HORIZON_RESULT '));
    expect(line, `deno printed no result (exit ${run.status}):\n${run.stderr}`).toBeDefined();
    const parsed = JSON.parse(line!.slice('HORIZON_RESULT '.length)) as { results: CaseResult[]; device: { description: string } };
    expectAllAccurate(`deno (${parsed.device.description})`, parsed.results);
  });

  it('Chromium (Playwright, WebGPU on SwiftShader)', async () => {
    const bundle = await build({
      entryPoints: [join(here, 'browser-entry.ts')],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'es2022',
      write: false,
      absWorkingDir: join(root, 'tests'),
    });
    const server = await serveFiles({
      'index.html': '<!doctype html><title>matmul conformance</title><script type="module" src="main.js"></script>',
      'main.js': bundle.outputFiles[0].text,
    });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(server.url);
      await page.waitForFunction(() => 'horizonResult' in window || 'horizonError' in window, null, { timeout: 150_000 });
      const outcome = await page.evaluate(() => {
        const w = window as unknown as { horizonResult?: { results: unknown }; horizonError?: string };
        return { results: w.horizonResult?.results as CaseResult[] | undefined, error: w.horizonError };
      });
      expect(outcome.error, 'the page reported an error').toBeUndefined();
      expectAllAccurate('chromium', outcome.results);
    } finally {
      await browser.close();
      await server.close();
    }
  });
});
