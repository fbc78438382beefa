// Locating the Deno binary installed by `pnpm install` (the `deno-cli` alias of npm's `deno`).

import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function denoPath(): string {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const local = join(root, 'node_modules', '.bin', 'deno');
  if (existsSync(local)) return local;
  throw new Error(`Deno was not found at ${local}. Run \`pnpm install\` in the Horizon checkout (it installs deno-cli).`);
}
