// A machine without the system Vulkan loader (Debian's libvulkan1), made by hiding it in a private
// mount namespace (tools/fresh-machine/without-vulkan-loader.sh): setup stops within seconds naming
// the package, and doctor names the loader (cli.test.ts has the "loader but no driver" case). A fresh machine once passed
// setup and then failed 184 GPU tests this way.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const root = new URL('../..', import.meta.url).pathname;
const hide = (args: string[], env: Record<string, string> = {}) =>
  spawnSync('bash', ['tools/fresh-machine/without-vulkan-loader.sh', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: 120_000,
  });
const isRoot = process.getuid?.() === 0;

describe.runIf(process.platform === 'linux' && isRoot)('without the Vulkan loader (needs root: a private mount namespace)', () => {
  it('setup.sh fails within seconds with one sentence naming libvulkan1', () => {
    const started = performance.now();
    const run = hide(['bash', 'scripts/setup.sh']);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/Vulkan loader libvulkan\.so\.1 is missing.*apt-get install -y libvulkan1/);
    expect(performance.now() - started).toBeLessThan(30_000);
  });

  it('doctor names the loader, not chromium, as what to install', () => {
    const run = hide(['./node_modules/.bin/tsx', 'packages/node-runner/src/main.ts', 'doctor']);
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/vulkan loader +none/);
    expect(run.stderr).toMatch(/Dawn needs the system Vulkan loader.*Install the loader: sudo apt-get install -y libvulkan1/);
  });
});
