// The report's plot as a standalone SVG, written from TypeScript (no plotting runtime needed to
// regenerate a report): held-out success against RL iterations (left) and against sampled tokens
// (right), one thin line per seed and a thick line for each arm's mean over seeds. SFT-only arms
// sample no tokens, so they appear on the left panel only (their extra SFT steps spread over the
// same axis, see run-arm.ts).

import type { CurvePoint, RunResult } from './results.ts';

export interface PlotArm {
  name: string;
  runs: readonly RunResult[];
}

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'];
const PANEL = { width: 440, height: 300, left: 56, right: 16, top: 40, bottom: 48 };

/** Round tick values covering [0, max]. */
export function ticks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0];
  const raw = max / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let v = 0; v <= max + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

const compact = (v: number) => (v >= 1e6 ? `${+(v / 1e6).toFixed(2)}M` : v >= 1e3 ? `${+(v / 1e3).toFixed(1)}k` : `${+v.toFixed(2)}`);
const xmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Mean over seeds at each evaluation index (the seeds of one arm evaluate at the same points). */
function meanCurve(runs: readonly RunResult[], x: (p: CurvePoint) => number): [number, number][] {
  const n = Math.min(...runs.map((r) => r.curve.length));
  const out: [number, number][] = [];
  for (let i = 0; i < n; i++) {
    const xs = runs.map((r) => x(r.curve[i]));
    const ys = runs.map((r) => r.curve[i].heldOut);
    out.push([xs.reduce((a, b) => a + b, 0) / xs.length, ys.reduce((a, b) => a + b, 0) / ys.length]);
  }
  return out;
}

function panel(
  arms: readonly PlotArm[],
  offsetX: number,
  title: string,
  xLabel: string,
  x: (p: CurvePoint) => number,
  include: (arm: PlotArm) => boolean,
): string {
  const plotW = PANEL.width - PANEL.left - PANEL.right;
  const plotH = PANEL.height - PANEL.top - PANEL.bottom;
  const shown = arms.filter((a) => include(a) && a.runs.length > 0);
  const xMax = Math.max(1, ...shown.flatMap((a) => a.runs.flatMap((r) => r.curve.map(x))));
  const sx = (v: number) => offsetX + PANEL.left + (v / xMax) * plotW;
  const sy = (v: number) => PANEL.top + (1 - v) * plotH;
  const parts: string[] = [];
  parts.push(`<text x="${offsetX + PANEL.left + plotW / 2}" y="22" text-anchor="middle" font-size="14" font-weight="bold">${xmlText(title)}</text>`);
  for (const t of ticks(1)) {
    parts.push(`<line x1="${sx(0)}" x2="${sx(xMax)}" y1="${sy(t)}" y2="${sy(t)}" stroke="#ddd"/>`);
    parts.push(`<text x="${sx(0) - 6}" y="${sy(t) + 4}" text-anchor="end" font-size="11">${Math.round(t * 100)}%</text>`);
  }
  for (const t of ticks(xMax)) {
    parts.push(`<line x1="${sx(t)}" x2="${sx(t)}" y1="${sy(0)}" y2="${sy(0) + 4}" stroke="#333"/>`);
    parts.push(`<text x="${sx(t)}" y="${sy(0) + 16}" text-anchor="middle" font-size="11">${compact(t)}</text>`);
  }
  parts.push(`<line x1="${sx(0)}" x2="${sx(xMax)}" y1="${sy(0)}" y2="${sy(0)}" stroke="#333"/>`);
  parts.push(`<line x1="${sx(0)}" x2="${sx(0)}" y1="${sy(0)}" y2="${sy(1)}" stroke="#333"/>`);
  parts.push(`<text x="${sx(xMax / 2)}" y="${PANEL.height - 10}" text-anchor="middle" font-size="12">${xmlText(xLabel)}</text>`);
  parts.push(
    `<text x="${offsetX + 14}" y="${sy(0.5)}" text-anchor="middle" font-size="12" transform="rotate(-90 ${offsetX + 14} ${sy(0.5)})">held-out success</text>`,
  );
  for (const [i, arm] of arms.entries()) {
    if (!shown.includes(arm)) continue;
    const color = PALETTE[i % PALETTE.length];
    for (const run of arm.runs) {
      const points = run.curve.map((p) => `${sx(x(p)).toFixed(1)},${sy(p.heldOut).toFixed(1)}`).join(' ');
      parts.push(
        `<polyline points="${points}" fill="none" stroke="${color}" stroke-width="1" stroke-opacity="0.45"><title>${xmlText(arm.name)} seed ${run.seed}</title></polyline>`,
      );
    }
    const mean = meanCurve(arm.runs, x)
      .map(([a, b]) => `${sx(a).toFixed(1)},${sy(b).toFixed(1)}`)
      .join(' ');
    parts.push(`<polyline points="${mean}" fill="none" stroke="${color}" stroke-width="2.5"><title>${xmlText(arm.name)} mean</title></polyline>`);
  }
  return parts.join('\n');
}

/** The whole figure: two panels and a legend naming each arm and its seed count. */
export function plotSvg(title: string, arms: readonly PlotArm[]): string {
  const width = PANEL.width * 2;
  const legendRows = Math.ceil(arms.length / 4);
  const height = PANEL.height + 28 + (legendRows + 1) * 18;
  const legend = arms.map((arm, i) => {
    const x = 20 + (i % 4) * 215;
    const y = PANEL.height + 24 + Math.floor(i / 4) * 18;
    const color = PALETTE[i % PALETTE.length];
    return `<line x1="${x}" x2="${x + 24}" y1="${y - 4}" y2="${y - 4}" stroke="${color}" stroke-width="2.5"/><text x="${x + 30}" y="${y}" font-size="12">${xmlText(arm.name)} (${arm.runs.length} ${arm.runs.length === 1 ? 'seed' : 'seeds'})</text>`;
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif">`,
    `<title>${xmlText(title)}</title>`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    panel(
      arms,
      0,
      'held-out success vs RL iteration',
      'RL iteration (SFT-only: extra steps on the same axis)',
      (p) => p.iteration,
      () => true,
    ),
    panel(
      arms,
      PANEL.width,
      'held-out success vs sampled tokens',
      'action tokens sampled by rollouts',
      (p) => p.sampledTokens,
      (a) => a.runs.some((r) => r.sampledTokens > 0),
    ),
    ...legend,
    `<text x="20" y="${PANEL.height + 24 + legendRows * 18}" font-size="11" fill="#555">thin: one seed each · thick: mean over seeds</text>`,
    '</svg>',
    '',
  ].join('\n');
}
