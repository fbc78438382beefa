// Builds the web UI with Vite into a temp directory and serves it on 127.0.0.1 (a secure context,
// which WebGPU and crypto.randomUUID need). One build per test file: about 2 s here.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, preview } from 'vite';

// HORIZON_WEB_UI builds another copy of the app (e.g. the last commit's, to see a new test fail before its fix).
const webUi = process.env.HORIZON_WEB_UI ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'packages', 'web-ui');

export interface BuiltApp {
  /** The build output; tests may add files (e.g. a replay under replay/) before loading the page. */
  dir: string;
  url: string;
  close(): Promise<void>;
}

/**
 * `shippedReplay: false` removes the replay the app ships (public/replay/) from the build, so a test
 * starts from a truly empty app and can add its own; the default keeps it, as users get it.
 */
export async function buildAndServe(options: { shippedReplay?: boolean } = {}): Promise<BuiltApp> {
  const dir = mkdtempSync(join(tmpdir(), 'horizon-web-'));
  const configFile = join(webUi, 'vite.config.ts');
  await build({ root: webUi, configFile, logLevel: 'warn', build: { outDir: dir, emptyOutDir: true } });
  if (options.shippedReplay === false) rmSync(join(dir, 'replay'), { recursive: true, force: true });
  const server = await preview({
    root: webUi,
    configFile,
    logLevel: 'warn',
    build: { outDir: dir },
    preview: { host: '127.0.0.1', port: 0, strictPort: false, open: false },
  });
  const url = server.resolvedUrls?.local[0];
  if (!url) throw new Error('vite preview did not report a local URL');
  return {
    dir,
    url,
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
