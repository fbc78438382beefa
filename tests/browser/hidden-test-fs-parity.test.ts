// The same HiddenTestFS episodes on Node (Dawn), Deno (navigator.gpu) and the web UI's engine
// worker in headless Chromium (WebGPU on SwiftShader): core's runHiddenTestFsEpisodes, a seeded
// warm start then 8 sampled episodes through the real shell, virtual file system and QuickJS. The
// sampler's noise is keyed by (seed, rollout id, segment, position), so every runtime must produce
// the same tokens — and, since all three hand the same WGSL to SwiftShader, the same log-probs and
// SFT losses to the bit; nothing is compared within a tolerance. The episodes must really use their
// tools, so the test cannot pass on three runtimes that all did nothing.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type HiddenTestFsEpisodesRequest, type HiddenTestFsEpisodesResult, runHiddenTestFsEpisodes } from '@horizon/core';
import { testGpu } from '@horizon/kernels/testing';
import { build, preview } from 'vite';
import { describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.ts';
import { denoPath } from '../support/deno.ts';
import { PARITY_REQUEST } from './support/hidden-test-fs-request.ts';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');

interface CallRecord {
  line: string;
  exitCode: number;
}

let nodeRun: Promise<HiddenTestFsEpisodesResult> | undefined;
/** Node's episodes, the reference the other runtimes must match; run once, by whichever test asks first. */
function nodeEpisodes(): Promise<HiddenTestFsEpisodesResult> {
  nodeRun ??= testGpu().then((gpu) => runHiddenTestFsEpisodes(gpu, PARITY_REQUEST));
  return nodeRun;
}

/** Tokens episode by episode first (the clearest message when they part), then everything else. */
async function expectSameAsNode(runtime: string, result: HiddenTestFsEpisodesResult) {
  const node = await nodeEpisodes();
  expect(
    result.episodes.map((e) => e.tokens),
    `${runtime}: the sampled tokens differ from Node's`,
  ).toEqual(node.episodes.map((e) => e.tokens));
  expect(result.sftLosses, `${runtime}: the warm start's losses differ from Node's`).toEqual(node.sftLosses);
  expect(result, `${runtime}: statuses, rewards, log-probs or tool records differ from Node's`).toEqual(node);
}

describe('HiddenTestFS episodes on three runtimes', () => {
  it('Node + Dawn: the episodes run shell commands and QuickJS grades what they wrote', async () => {
    const { episodes } = await nodeEpisodes();
    expect(episodes).toHaveLength(PARITY_REQUEST.episodes);
    const calls = episodes.flatMap((e) => e.calls as unknown as CallRecord[]);
    // Shell commands that ran and succeeded, and at least one that wrote f.js.
    expect(calls.filter((c) => c.exitCode === 0).length).toBeGreaterThanOrEqual(PARITY_REQUEST.episodes);
    expect(calls.some((c) => c.exitCode === 0 && /> *f\.js$/.test(c.line))).toBe(true);
    // A reward of 1 needs QuickJS to have run f.js on all four cases and returned the expected numbers.
    expect(episodes.some((e) => e.correct && e.reward === 1)).toBe(true);
  });

  it('Deno + navigator.gpu: the same episodes', async () => {
    const run = spawnSync(denoPath(), ['run', '-A', join(here, 'support', 'hidden-test-fs-deno.ts')], {
      cwd: root,
      encoding: 'utf8',
      timeout: 170_000,
      env: { ...process.env, XDG_RUNTIME_DIR: process.env.XDG_RUNTIME_DIR ?? mkdtempSync(join(tmpdir(), 'xdg-')) },
    });
    const line = run.stdout?.split('\n').find((l) => l.startsWith('HORIZON_RESULT '));
    expect(line, `deno printed no result (exit ${run.status}):\n${run.stderr}`).toBeDefined();
    const { result } = JSON.parse(line!.slice('HORIZON_RESULT '.length)) as { result: HiddenTestFsEpisodesResult };
    await expectSameAsNode('deno', result);
  });

  it('Chromium, in the web UI engine worker (WebGPU on SwiftShader): the same episodes', async () => {
    // A blank page that starts the real engine worker; Vite bundles it (and QuickJS's WASM) as it does the app.
    const pageRoot = join(here, 'support', 'hidden-test-fs-page');
    const outDir = mkdtempSync(join(tmpdir(), 'horizon-episodes-page-'));
    const shared = { root: pageRoot, configFile: false as const, logLevel: 'warn' as const, base: './' };
    await build({ ...shared, build: { outDir, emptyOutDir: true, target: 'es2022' }, worker: { format: 'es' } });
    const server = await preview({ ...shared, build: { outDir }, preview: { host: '127.0.0.1', port: 0, strictPort: false, open: false } });
    const browser = await launchChromium();
    try {
      const url = server.resolvedUrls?.local[0];
      if (!url) throw new Error('vite preview did not report a local URL');
      const page = await browser.newPage();
      await page.goto(url);
      await page.waitForFunction(() => 'horizonEpisodes' in window);
      const answer = await page.evaluate(
        (request) =>
          (
            window as unknown as { horizonEpisodes(r: HiddenTestFsEpisodesRequest): Promise<{ deviceLine: string; result: HiddenTestFsEpisodesResult }> }
          ).horizonEpisodes(request),
        PARITY_REQUEST,
      );
      expect(answer.deviceLine).toMatch(/software device/);
      await expectSameAsNode('chromium worker', answer.result);
    } finally {
      await browser.close();
      await server.close();
      rmSync(outDir, { recursive: true, force: true });
    }
  });
});
