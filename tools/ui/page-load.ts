// Page-load figures of the web UI, for the notes and docs/ui.md: the production build's asset sizes
// (raw and gzip), then, per route, a fresh headless Chromium page (WebGPU on SwiftShader, as the
// browser tests run it) loading it cold: first contentful paint, DOMContentLoaded, the load event,
// and the longest main-thread task (Long Tasks API) until the network is idle (the route's lazy chunks
// loaded and run). Not a
// test: the figures depend on the machine and its load, so they are printed, never asserted.
//
//   node --import tsx tools/ui/page-load.ts [route …]     (default: home playground opid-lab)

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildAndServe } from '../../tests/browser/support/web-app.ts';
import { launchChromium } from '../../tests/support/chromium.ts';

const routes = process.argv.slice(2).length > 0 ? process.argv.slice(2) : ['home', 'playground', 'opid-lab'];
const app = await buildAndServe();
const browser = await launchChromium();
try {
  const assets = join(app.dir, 'assets');
  console.log('| asset | kB | gzip kB |\n|---|---|---|');
  for (const name of readdirSync(assets).sort()) {
    const file = join(assets, name);
    if (!/\.(js|css)$/.test(name)) continue;
    const raw = statSync(file).size / 1000;
    const gzip = gzipSync(readFileSync(file)).length / 1000;
    console.log(`| ${name} | ${raw.toFixed(1)} | ${gzip.toFixed(1)} |`);
  }
  console.log('\n| route | first contentful paint ms | DOMContentLoaded ms | load ms | longest task until network idle, ms |\n|---|---|---|---|---|');
  for (const route of routes) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.addInitScript(() => {
      const w = window as unknown as { __longest: number };
      w.__longest = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) w.__longest = Math.max(w.__longest, entry.duration);
      }).observe({ type: 'longtask', buffered: true });
    });
    // networkidle: the route's lazy chunks (KaTeX, a lab's view) have arrived and run.
    await page.goto(`${app.url}#${route}`, { waitUntil: 'networkidle' });
    const figures = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      const fcp = performance.getEntriesByType('paint').find((e) => e.name === 'first-contentful-paint')?.startTime ?? Number.NaN;
      return { fcp, dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd, longest: (window as unknown as { __longest: number }).__longest };
    });
    console.log(`| #${route} | ${figures.fcp.toFixed(0)} | ${figures.dcl.toFixed(0)} | ${figures.load.toFixed(0)} | ${figures.longest.toFixed(0)} |`);
    await context.close();
  }
} finally {
  await browser.close();
  await app.close();
}
