// The same CLI under Deno and Node trains the tiny recipe to the same metrics on the same kind of
// device (both pick SwiftShader on a machine without a GPU). Tolerance: 1e-6 relative (floor 1e-3
// absolute scale) on every non-timing metric — measured difference so far: exactly 0, since both
// runtimes hand the same WGSL to the same SwiftShader driver and everything random is seeded.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { denoPath } from '../support/deno.ts';
import { SHORT_TINY_FLAGS } from '../support/recipes.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const main = join(root, 'packages', 'node-runner', 'src', 'main.ts');
const scratch = mkdtempSync(join(tmpdir(), 'horizon-parity-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const TOLERANCE = 1e-6;

type Record = { phase: string; step: number; metrics: { [name: string]: number | string } };

function train(runtime: 'node' | 'deno', out: string): Record[] {
  const [command, args] = runtime === 'node' ? [join(root, 'node_modules', '.bin', 'tsx'), [main]] : [denoPath(), ['run', '-A', main]];
  const run = spawnSync(command, [...args, 'train', '--recipe', 'tiny', ...SHORT_TINY_FLAGS, '--quiet', '--out', out], {
    cwd: root,
    encoding: 'utf8',
    timeout: 170_000,
  });
  expect(run.status, `${runtime}: ${run.stderr}`).toBe(0);
  return readFileSync(join(out, 'metrics.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line) as Record);
}

describe('Node and Deno train the tiny recipe alike', () => {
  it(`every non-timing metric agrees within ${TOLERANCE} relative`, () => {
    const node = train('node', join(scratch, 'node'));
    const deno = train('deno', join(scratch, 'deno'));
    expect(deno.map((r) => `${r.phase}:${r.step}`)).toEqual(node.map((r) => `${r.phase}:${r.step}`));
    let compared = 0;
    node.forEach((n, i) => {
      for (const [name, value] of Object.entries(n.metrics)) {
        if (name.startsWith('perf/')) continue;
        const other = deno[i].metrics[name];
        if (typeof value === 'string' || typeof other === 'string') {
          expect(other, `${n.phase} ${n.step} ${name}`).toBe(value);
          continue;
        }
        expect(Math.abs(other - value), `${n.phase} ${n.step} ${name}: node ${value}, deno ${other}`).toBeLessThanOrEqual(
          TOLERANCE * Math.max(Math.abs(value), 1e-3),
        );
        compared++;
      }
    });
    expect(compared).toBeGreaterThan(50);
  });
});
