// Where the Playwright render server finds Chromium: $CHROMIUM_PATH, else Debian's and Google's usual
// paths — the system browser playwright-core drives, never one Playwright downloads (as the browser
// tests do, tests/support/chromium.ts; front-end code cannot import from tests/, hence this copy).

import { existsSync } from 'node:fs';

export const CHROMIUM_CANDIDATES: readonly string[] = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
];

export class ChromiumNotFoundError extends Error {
  constructor() {
    super(
      'The Playwright render server needs Chromium, which is not installed: install the Debian package chromium (apt-get install chromium) or set CHROMIUM_PATH; the simulator render server works without it.',
    );
  }
}

/** The Chromium executable to launch; throws ChromiumNotFoundError when there is none. */
export function findChromium(env: Readonly<Record<string, string | undefined>> = process.env, candidates = CHROMIUM_CANDIDATES): string {
  const override = env.CHROMIUM_PATH;
  if (override && existsSync(override)) return override;
  const found = candidates.find((path) => existsSync(path));
  if (!found) throw new ChromiumNotFoundError();
  return found;
}
