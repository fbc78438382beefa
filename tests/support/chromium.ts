// Launching Debian's Chromium through playwright-core with WebGPU on SwiftShader. Never a downloaded
// browser: when Chromium is missing the tests fail with what to install, they never skip.

import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable'];

export class ChromiumMissingError extends Error {
  constructor() {
    super(
      'Chromium was not found (looked at $CHROMIUM_PATH and ' +
        `${CANDIDATES.join(', ')}). Install it: sudo apt-get install -y chromium (Debian) — or set CHROMIUM_PATH.`,
    );
  }
}

export function chromiumPath(): string {
  const override = process.env.CHROMIUM_PATH;
  if (override && existsSync(override)) return override;
  const found = CANDIDATES.find((p) => existsSync(p));
  if (!found) throw new ChromiumMissingError();
  return found;
}

/** Flags that give headless Chromium a WebGPU adapter on SwiftShader and keep it off the network. */
export const WEBGPU_FLAGS = [
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

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath(), args: WEBGPU_FLAGS, headless: true });
}
