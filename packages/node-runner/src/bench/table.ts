// The printed bench report: an aligned table with the direction of every unit stated, and what a
// ratio means. The JSON report holds the same rows unformatted.

import { type BenchRow, HIGHER_IS_BETTER } from './row.ts';

export const TABLE_LEGEND = [
  'ratio: how many times better ours is than the peer (ours/peer for ↑ units, peer/ours for ↓ units); above 1 we are ahead.',
  'ceiling: the device limit measured in this run (for a matmul, the roofline of the FMA and copy ceilings); "of ceiling" is our share of it.',
];

export function formatTable(rows: readonly BenchRow[]): string[] {
  const header = ['name', 'unit', 'ours', 'peer', 'peer name', 'ratio', 'ceiling', 'of ceiling', 'note'];
  const cells = rows.map((r) => [
    r.name,
    `${r.unit} ${HIGHER_IS_BETTER[r.unit] ? '↑' : '↓'}`,
    formatNumber(r.ours),
    formatNumber(r.peer),
    r.peerName ?? '—',
    r.ratio === null ? '—' : `${formatNumber(r.ratio)}×`,
    formatNumber(r.ceiling ?? null),
    r.fractionOfCeiling === undefined ? '—' : formatPercent(r.fractionOfCeiling),
    r.note ?? '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const numeric = new Set([2, 3, 5, 6, 7]);
  const line = (c: string[]) =>
    c
      .map((text, i) => (i === c.length - 1 ? text : numeric.has(i) ? text.padStart(widths[i]) : text.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w, i) => (i === widths.length - 1 ? '-'.repeat(4) : '-'.repeat(w)))), ...cells.map(line), '', ...TABLE_LEGEND];
}

/** Three significant figures; thousands and up with an SI suffix (elements/s run to billions). */
export function formatNumber(x: number | null): string {
  if (x === null || !Number.isFinite(x)) return '—';
  if (x === 0) return '0';
  const a = Math.abs(x);
  for (const [from, unit, suffix] of [
    [1e9, 1e9, 'G'],
    [1e6, 1e6, 'M'],
    [1e4, 1e3, 'k'],
  ] as const) {
    if (a >= from) return `${formatNumber(x / unit)}${suffix}`;
  }
  if (a >= 100) return x.toFixed(0);
  if (a >= 10) return x.toFixed(1);
  if (a >= 1) return x.toFixed(2);
  if (a >= 0.001) return x.toPrecision(3);
  return x.toExponential(2);
}

function formatPercent(f: number): string {
  const p = f * 100;
  return `${p >= 10 ? p.toFixed(0) : p.toFixed(1)}%`;
}
