// The usual fixture of a browser test file: the app built and served once (buildAndServe) and one
// headless Chromium with WebGPU on SwiftShader, opened before the file's tests and closed after.

import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { chromiumPath, WEBGPU_FLAGS } from '../../support/chromium.ts';
import { type BuiltApp, buildAndServe } from './web-app.ts';

export interface AppInChromium {
  /** Set once the file's beforeAll has run. */
  app: BuiltApp;
  browser: Browser;
}

export function appInChromium(options: Parameters<typeof buildAndServe>[0] = {}): AppInChromium {
  const served = {} as AppInChromium;
  beforeAll(async () => {
    served.app = await buildAndServe(options);
    served.browser = await chromium.launch({ executablePath: chromiumPath(), args: WEBGPU_FLAGS, headless: true });
  });
  afterAll(async () => {
    await served.browser?.close();
    await served.app?.close();
  });
  return served;
}
