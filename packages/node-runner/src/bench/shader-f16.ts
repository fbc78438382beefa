// Whether the bench's devices offer `shader-f16` (f16 arithmetic in WGSL, what a half-precision
// kernel would need): Dawn's adapter in this process (ours, and the one tfjs and jax-js get through
// the navigator.gpu shim), and headless Chromium's WebGPU adapter, launched as
// tests/support/chromium.ts launches it (Debian's Chromium, never a downloaded browser, on
// SwiftShader when there is no GPU). One row each: 1 offered, 0 not; the note says which adapter.

import { existsSync } from 'node:fs';
import { type BenchRow, makeRow } from './row.ts';
import type { BenchSection } from './section.ts';

const FEATURE = 'shader-f16';
const CHROMIUM_PATHS = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];
/** tests/support/chromium.ts's WEBGPU_FLAGS: a WebGPU adapter on SwiftShader, no network. */
const CHROMIUM_FLAGS = [
  '--headless=new',
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--use-webgpu-adapter=swiftshader',
  '--enable-features=Vulkan',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
/** navigator.gpu exists only in a secure context; the page is served by the route, not a server. */
const PROBE_URL = 'http://localhost/';

interface Probe {
  adapter: string;
  features: string[];
}

export const DAWN_ROW = `${FEATURE} offered: Dawn in this process (ours, tfjs, jax-js)`;
export const CHROMIUM_ROW = `${FEATURE} offered: headless Chromium's WebGPU`;

/** The adapter Chromium's navigator.gpu gives a page, or why there is none. */
async function probeChromium(): Promise<Probe | string> {
  const path = process.env.CHROMIUM_PATH && existsSync(process.env.CHROMIUM_PATH) ? process.env.CHROMIUM_PATH : CHROMIUM_PATHS.find((p) => existsSync(p));
  if (!path) return 'unavailable: no Chromium (sudo apt-get install -y chromium, or set CHROMIUM_PATH)';
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: path, args: CHROMIUM_FLAGS, headless: true });
  try {
    const page = await browser.newPage();
    await page.route(`${PROBE_URL}**`, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>probe</title>' }));
    await page.goto(PROBE_URL);
    const found = await page.evaluate(async () => {
      const gpu = (navigator as Navigator & { gpu?: GPU }).gpu;
      const adapter = gpu ? await gpu.requestAdapter() : null;
      if (!adapter) return null;
      return { adapter: `${adapter.info.vendor}/${adapter.info.architecture}`, features: [...adapter.features].map(String) };
    });
    return found
      ? { ...found, adapter: `Chromium ${browser.version()}, ${found.adapter}` }
      : `unavailable: Chromium ${browser.version()} gave the page no WebGPU adapter`;
  } finally {
    await browser.close();
  }
}

function featureRow(name: string, probe: Probe): BenchRow {
  const offered = probe.features.includes(FEATURE);
  return { ...makeRow(name, 'count', offered ? 1 : 0), note: `${offered ? 'yes' : 'no'}: ${probe.adapter}, ${probe.features.length} features` };
}

export const shaderF16Section: BenchSection = {
  name: 'shader-f16',
  async run(ctx) {
    const rows: BenchRow[] = [];
    const { report } = ctx.gpu;
    if (ctx.wants(DAWN_ROW)) rows.push(featureRow(DAWN_ROW, { adapter: `${report.vendor}/${report.architecture}`, features: report.features }));
    if (ctx.wants(CHROMIUM_ROW)) {
      ctx.progress('shader-f16: asking headless Chromium for its WebGPU adapter');
      const probe = await probeChromium().catch((error: unknown) => `unavailable: Chromium failed to start (${(error as Error).message.split('\n')[0]})`);
      rows.push(typeof probe === 'string' ? { ...makeRow(CHROMIUM_ROW, 'count', null), note: probe } : featureRow(CHROMIUM_ROW, probe));
    }
    return rows;
  },
};
