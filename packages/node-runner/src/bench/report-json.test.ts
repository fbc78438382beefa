// The bench report's JSON comes out as biome prints it, so a report written to docs/ passes
// `biome check .` in CI without a hand-run formatter.

import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatReportJson } from './report-json.ts';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');

function biomeFormat(text: string): string {
  const r = spawnSync(join(repoRoot, 'node_modules', '.bin', 'biome'), ['format', '--stdin-file-path=report.json'], { input: text, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`biome format failed: ${r.stderr}`);
  return r.stdout;
}

describe('bench report JSON', () => {
  const report = {
    version: 1,
    host: { cpu: 'Intel(R) Xeon(R) "quoted" CPU', cores: 2, loadAverage: [2.28, 1.8, 1.96] },
    tags: ['a', 'b, c', 'd"e'],
    empty: [],
    long: Array.from({ length: 60 }, (_, i) => i * 1.5e-7),
    names: Array.from({ length: 12 }, (_, i) => `a row name of some length, number ${i}`),
    rows: [{ name: 'matmul nn 512×512×512', ours: 12.5, peer: null, ratio: null, list: [true, false, null] }],
  };

  it('is exactly what biome would print, short arrays on one line and long ones expanded', () => {
    const text = formatReportJson(report);
    expect(text).toBe(biomeFormat(text));
    expect(text).toContain('"loadAverage": [2.28, 1.8, 1.96]');
    expect(text).toContain('"long": [\n');
  });

  it('parses back to the same value', () => {
    expect(JSON.parse(formatReportJson(report))).toEqual(report);
  });
});
