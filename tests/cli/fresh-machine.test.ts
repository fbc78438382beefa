// A machine without the system Vulkan loader (Debian's libvulkan1), made by hiding it in a private
// mount namespace (tools/fresh-machine/without-vulkan-loader.sh): setup stops within seconds naming
// the package, and doctor names the loader (cli.test.ts has the "loader but no driver" case). A fresh machine once passed
// setup and then failed 184 GPU tests this way.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

// The loader check reads a linker cache. A CI machine with CUDA, Java and more has a cache of over
// 64 KiB, where `ldconfig -p | grep -q` under pipefail reported the loader missing although it was
// there (SIGPIPE, exit 141). A fake ldconfig first on PATH prints such a cache.
describe.runIf(process.platform === 'linux')('the Vulkan loader check in setup.sh', () => {
  const check = (cache: string) => {
    const bin = mkdtempSync(join(tmpdir(), 'fake-ldconfig-'));
    try {
      writeFileSync(join(bin, 'cache.txt'), cache);
      writeFileSync(join(bin, 'ldconfig'), `#!/bin/sh\ncat "${join(bin, 'cache.txt')}"\n`);
      chmodSync(join(bin, 'ldconfig'), 0o755);
      return spawnSync('bash', ['scripts/has-vulkan-loader.sh'], {
        cwd: root,
        encoding: 'utf8',
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
      }).status;
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  };
  const line = (name: string) => `\t${name} (libc6,x86-64) => /lib/x86_64-linux-gnu/${name}\n`;
  const filler = Array.from({ length: 4000 }, (_, i) => line(`libfiller${i}.so.1`)).join('');

  it('finds the loader at the top of a cache bigger than a pipe buffer', () => {
    expect(filler.length).toBeGreaterThan(128 * 1024);
    expect(check(line('libvulkan.so.1') + filler)).toBe(0);
  });

  it('says missing when a big cache lacks it, and found in a small one that has it', () => {
    expect(check(filler)).toBe(1);
    expect(check(line('libc.so.6') + line('libvulkan.so.1'))).toBe(0);
  });
});
