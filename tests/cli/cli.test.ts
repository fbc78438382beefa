// The `horizon` CLI as a user meets it: real processes, real exit codes, real output.

import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { denoPath } from '../support/deno.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const main = join(root, 'packages', 'node-runner', 'src', 'main.ts');
const tsx = join(root, 'node_modules', '.bin', 'tsx');

function horizon(args: string[], env: Record<string, string> = {}) {
  const run = spawnSync(tsx, [main, ...args], { cwd: root, encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...env } });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('horizon CLI', () => {
  it('an unknown command prints usage with a suggestion and exits 2', () => {
    const r = horizon(['doctr']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown command "doctr". Did you mean "doctor"?');
    expect(r.stderr).toContain('usage: horizon <command>');
  });

  it('an unknown flag prints the command usage with a suggestion and exits 2', () => {
    const r = horizon(['doctor', '--jsn']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown flag --jsn. Did you mean --json?');
    expect(r.stderr).toContain('usage: horizon doctor');
  });

  it('a bad flag value is one sentence and exit 2', () => {
    const r = horizon(['smoke', '--size', 'abc']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--size must be an integer');
  });

  it('doctor under Node names the software device and its limits', () => {
    const r = horizon(['doctor']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/software fallback\s+yes/);
    expect(r.stdout).toMatch(/runtime\s+node 2\d\./);
    expect(r.stdout).toMatch(/maxStorageBuffersPerShaderStage\s+\d+ \/ 8/);
    expect(r.stdout).toContain('verdict: ready');
  });

  it('doctor --json is machine-readable', () => {
    const r = horizon(['doctor', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { ok: boolean; runtime: string; isSoftware: boolean; limits: Record<string, number> };
    expect(report.ok).toBe(true);
    expect(report.runtime).toBe('node');
    expect(report.limits.maxComputeInvocationsPerWorkgroup).toBeGreaterThanOrEqual(256);
  });

  it('doctor with the Vulkan loader but no driver exits non-zero and asks for a driver, not the loader', () => {
    const r = horizon(['doctor'], { HORIZON_SWIFTSHADER_ICD: '/nonexistent/icd.json', HORIZON_DEVICE: 'swiftshader' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/No WebGPU adapter was found: the Vulkan loader is present .* no Vulkan driver Dawn can use/);
    expect(r.stderr).toMatch(/swiftshader driver +none/);
    expect(r.stderr).toMatch(/Install a driver: sudo apt-get install -y chromium .*mesa-vulkan-drivers/);
    expect(r.stderr).not.toMatch(/install -y libvulkan1/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('doctor under Deno names the software device', () => {
    const run = spawnSync(denoPath(), ['run', '-A', main, 'doctor'], { cwd: root, encoding: 'utf8', timeout: 120_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/runtime\s+deno 2\./);
    expect(run.stdout).toMatch(/software fallback\s+yes/);
  });

  it('smoke checks the kernel against the reference', () => {
    const r = horizon(['smoke', '--size', '64']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('smoke: ok');
  });
});
