// A small SVG line chart for the walkthroughs: one curve, dashed vertical markers, and labelled
// points, with the text alternative the quality bar asks for (docs/ui.md, quality bar): the chart is
// role="img" with an aria-label that says what it shows, and the same sentence is printed under it.
// SVG rather than uPlot: a few dozen points, redrawn per answer, no cursor or zoom needed.

import { h } from 'preact';

export interface ChartPoint {
  x: number;
  y: number;
  label: string;
  selected?: boolean;
}

const W = 520;
const H = 220;
const PAD = { left: 44, right: 12, top: 12, bottom: 30 };

export function LineChart(props: {
  curve: { x: number[]; y: number[] };
  markers: { x: number; label: string }[];
  points: ChartPoint[];
  xLabel: string;
  yLabel: string;
  description: string;
  testId: string;
}) {
  const xs = props.curve.x;
  const ys = [...props.curve.y, ...props.points.map((p) => p.y), 0];
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  const [yLo, yHi] = [Math.min(...ys), Math.max(...ys)];
  const span = Math.max(1e-6, yHi - yLo);
  const [y0, y1] = [yLo - 0.05 * span, yHi + 0.05 * span];
  const sx = (x: number) => PAD.left + ((x - x0) / (x1 - x0)) * (W - PAD.left - PAD.right);
  const sy = (y: number) => H - PAD.bottom - ((y - y0) / (y1 - y0)) * (H - PAD.top - PAD.bottom);
  const path = xs.map((x, i) => `${i === 0 ? 'M' : 'L'}${sx(x).toFixed(1)},${sy(props.curve.y[i]).toFixed(1)}`).join(' ');
  const inRange = (x: number) => x >= x0 && x <= x1;
  return h(
    'figure',
    { class: 'walk-chart', 'data-testid': props.testId },
    h(
      'svg',
      { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': props.description },
      h('line', { x1: PAD.left, x2: W - PAD.right, y1: sy(0), y2: sy(0), class: 'axis' }),
      h('line', { x1: PAD.left, x2: PAD.left, y1: PAD.top, y2: H - PAD.bottom, class: 'axis' }),
      h('text', { x: PAD.left - 6, y: sy(y1) + 10, 'text-anchor': 'end', class: 'tick' }, y1.toFixed(1)),
      h('text', { x: PAD.left - 6, y: sy(y0), 'text-anchor': 'end', class: 'tick' }, y0.toFixed(1)),
      h('text', { x: PAD.left, y: H - 8, class: 'tick' }, x0.toFixed(2)),
      h('text', { x: W - PAD.right, y: H - 8, 'text-anchor': 'end', class: 'tick' }, x1.toFixed(2)),
      h('text', { x: (W + PAD.left) / 2, y: H - 8, 'text-anchor': 'middle', class: 'axis-label' }, props.xLabel),
      h('text', { x: PAD.left + 6, y: PAD.top + 10, class: 'axis-label' }, props.yLabel),
      props.markers
        .filter((m) => inRange(m.x))
        .map((m) =>
          h(
            'g',
            { key: m.label },
            h('line', { x1: sx(m.x), x2: sx(m.x), y1: PAD.top, y2: H - PAD.bottom, class: 'marker' }),
            h('text', { x: sx(m.x) + 3, y: H - PAD.bottom - 4, class: 'tick' }, m.label),
          ),
        ),
      h('path', { d: path, class: 'curve' }),
      props.points
        .filter((p) => inRange(p.x))
        .map((p) =>
          h(
            'g',
            { key: p.label, class: p.selected ? 'point selected' : 'point' },
            h('circle', { cx: sx(p.x), cy: sy(p.y), r: p.selected ? 6 : 4 }),
            h('text', { x: sx(p.x) + 6, y: sy(p.y) - 6, class: 'tick' }, p.label),
          ),
        ),
    ),
    h('figcaption', { class: 'note' }, props.description),
  );
}
