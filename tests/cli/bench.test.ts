// `horizon bench` through the real CLI: a quick matmul-only run writes JSON rows of the documented
// shape whose every figure is a positive finite number. No speed thresholds here: speed lives in the
// bench report itself. The PyTorch peer may be missing on a test machine; its rows then must say so.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const main = join(root, 'packages', 'node-runner', 'src', 'main.ts');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const scratch = mkdtempSync(join(tmpdir(), 'horizon-bench-test-'));

// The quick matmul run took 50 s on the 2-core machine with other tests running beside it.
const TIMEOUT_MS = 400_000;

function horizon(args: string[]) {
  const run = spawnSync(tsx, [main, ...args], { cwd: root, encoding: 'utf8', timeout: TIMEOUT_MS - 10_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

interface JsonRow {
  name: string;
  unit: string;
  ours: number | null;
  peer: number | null;
  peerName: string | null;
  ratio: number | null;
  ceiling?: number;
  fractionOfCeiling?: number;
  note?: string;
}

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('horizon bench', () => {
  it(
    '--quick --only matmul --json writes positive finite figures for every matmul row, beside tfjs and PyTorch',
    () => {
      const file = join(scratch, 'out.json');
      const r = horizon(['bench', '--quick', '--only', 'matmul', '--json', file]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.split('\n')[0]).toMatch(/ via .* on node 2\d\.\S+ — (software device|hardware GPU)/);
      expect(r.stdout).toMatch(/name\s+unit\s+ours\s+peer\s+peer name\s+ratio\s+ceiling\s+of ceiling/);

      const report = JSON.parse(readFileSync(file, 'utf8')) as { version: number; device: string; quick: boolean; rows: JsonRow[] };
      expect(report.version).toBe(1);
      expect(report.quick).toBe(true);
      expect(report.device).toBe(r.stdout.split('\n')[0]);
      const positive = (x: unknown) => typeof x === 'number' && Number.isFinite(x) && x > 0;
      for (const row of report.rows) {
        expect(row.name, 'only matmul rows were asked for').toMatch(/matmul/);
        expect(row.unit).toBe('GFLOP/s');
        expect(positive(row.ours), `${row.name}: ours ${row.ours}`).toBe(true);
        expect(positive(row.ceiling), `${row.name}: ceiling ${row.ceiling}`).toBe(true);
        expect(positive(row.fractionOfCeiling), `${row.name}: fraction ${row.fractionOfCeiling}`).toBe(true);
        if (row.peerName === null) {
          expect(row.name, 'only the best-of row stands without a peer').toMatch(/^matmul best of the above: /);
          expect(row.peer).toBeNull();
          expect(row.ratio).toBeNull();
        } else if (row.peer === null) {
          expect(row.ratio).toBeNull();
          expect(row.note, `${row.name}: a missing peer figure says why`).toMatch(/^unavailable: /);
        } else {
          expect(positive(row.peer), `${row.name}: peer ${row.peer}`).toBe(true);
          expect(row.ratio).toBeCloseTo((row.ours as number) / row.peer, 9);
        }
      }
      // The model's nine products beside tfjs (same device) and PyTorch; 512³ in three layouts beside jax-js (same device) too.
      const names = new Set(report.rows.map((row) => row.name));
      const peersOf = (name: string) => report.rows.filter((row) => row.name === name).map((row) => row.peerName?.split(' ')[0]);
      for (const name of ['matmul nt 768×32×128 (mlp.c_fc fwd)', 'matmul tn 13×768×32 (lm_head dW)']) {
        expect(names).toContain(name);
        expect(peersOf(name)).toEqual(['tfjs-webgpu', expect.stringMatching(/^pytorch/)]);
      }
      for (const name of ['matmul nn 512×512×512', 'matmul tn 512×512×512']) {
        expect(names).toContain(name);
        expect(peersOf(name)).toEqual(['tfjs-webgpu', 'jax-js-webgpu', expect.stringMatching(/^pytorch/)]);
      }
      expect(
        report.rows.filter((row) => row.peerName?.startsWith('tfjs')).every((row) => row.peer !== null),
        'tfjs runs in-process on every machine',
      ).toBe(true);
      // The spawn's own limit, not vitest's 180 s: with jax-js's jit compile the run took 195 s at load 22.
    },
    TIMEOUT_MS,
  );

  it('a --json path in a missing folder is a usage error before any work', () => {
    const r = horizon(['bench', '--json', join(scratch, 'missing', 'out.json')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--json: the folder');
  });
});
