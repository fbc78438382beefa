// One small-multiple line chart on uPlot (canvas). New data is applied at most once per animation
// frame, however often it arrives, and not at all while the tab is hidden (oobabooga #2114: the
// status UI itself can hog the GPU): live rows from the trainer will stream into the same `data`.
// Charts with the same `syncKey` share the x cursor.

import { h } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { fmt } from './format.ts';

/**
 * Tick labels with as many decimals as the tick spacing needs ("1.268 1.270 1.272", not "1.27"
 * three times) and exponent form when tiny or huge (uPlot's default prints 4e-4 as "-0").
 */
export function axisLabels(splits: readonly number[]): string[] {
  const finite = splits.filter(Number.isFinite);
  const step = finite.length > 1 ? Math.abs(finite[1] - finite[0]) : Math.abs(finite[0] ?? 1) || 1;
  const big = Math.max(...finite.map(Math.abs), 0);
  if (big >= 1e5 || (big > 0 && big < 1e-2))
    return splits.map((v) => (v === 0 ? '0' : v.toExponential(Math.max(0, Math.ceil(Math.log10(big / step)) - 1)).replace('+', '')));
  // Enough decimals for the step itself: ticks 0.25 apart read "0.25 0.50", not "0.3 0.5".
  let decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  while (decimals < 6 && Math.abs(Math.round(step * 10 ** decimals) - step * 10 ** decimals) > 1e-6 * 10 ** decimals) decimals++;
  return splits.map((v) => v.toFixed(decimals));
}

/** y range with room around the data; a flat series gets ±1 (or ±10%) instead of uPlot's 0–100. */
export function yRange(min: number, max: number): [number, number] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [0, 1];
  if (min === max) {
    const pad = min === 0 ? 1 : Math.abs(min) * 0.1;
    return [min - pad, max + pad];
  }
  const pad = (max - min) * 0.08;
  return [min - pad, max + pad];
}

export interface ChartSeries {
  label: string;
  color: string;
  /** Dashed (a second series on one chart reads without colour). */
  dash?: boolean;
}

export interface ChartProps {
  /** [steps, values…]; values may hold NaN or null (drawn as a gap). */
  data: (number | null)[][];
  syncKey: string;
  series: readonly ChartSeries[];
  height?: number;
  /** A click on the plot picks the step under the cursor (the linked views open it). */
  onPick?: (step: number) => void;
}

export function Chart({ data, syncKey, series, height = 150, onPick }: ChartProps) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const pending = useRef<(number | null)[][] | null>(null);
  const pick = useRef(onPick);
  pick.current = onPick;
  const seriesKey = series.map((s) => `${s.label}:${s.color}:${s.dash ? 1 : 0}`).join('|');
  const frame = useRef(0);

  useEffect(() => {
    const el = host.current!;
    const options: uPlot.Options = {
      width: Math.max(200, el.clientWidth),
      height,
      // Only the x (step) cursor is shared: a y line at the same height means nothing across metrics.
      cursor: { y: false, sync: { key: syncKey, setSeries: false }, drag: { x: false, y: false } },
      legend: { show: true, live: true },
      scales: { x: { time: false }, y: { range: (_u, min, max) => yRange(min, max) } },
      axes: [
        // Steps are integers: no 2.5 ticks.
        { size: 28, font: '11px system-ui', ticks: { size: 4 }, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000, 100_000, 1_000_000] },
        { size: 48, font: '11px system-ui', ticks: { size: 4 }, values: (_u, splits) => axisLabels(splits) },
      ],
      series: [
        { label: 'step' },
        ...series.map((s) => ({
          label: s.label,
          stroke: s.color,
          width: 1.5,
          ...(s.dash ? { dash: [6, 4] } : {}),
          points: { show: data[0].length < 60, size: 4 },
          spanGaps: false,
          value: (_u: uPlot, v: number | null) => (v == null ? '–' : fmt(v)),
        })),
      ],
    };
    plot.current = new uPlot(options, data as uPlot.AlignedData, el);
    const over = plot.current.over;
    const click = () => {
      const u = plot.current;
      const idx = u?.cursor.idx;
      if (u && idx != null && pick.current) pick.current(u.data[0][idx] as number);
    };
    over.addEventListener('click', click);
    if (pick.current) over.style.cursor = 'pointer';
    const resize = new ResizeObserver(() => plot.current?.setSize({ width: Math.max(200, el.clientWidth), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      over.removeEventListener('click', click);
      cancelAnimationFrame(frame.current);
      plot.current?.destroy();
      plot.current = null;
    };
  }, [syncKey, seriesKey, height]);

  useEffect(() => {
    pending.current = data;
    if (frame.current) return;
    const apply = () => {
      frame.current = 0;
      if (document.hidden) {
        document.addEventListener('visibilitychange', apply, { once: true });
        return;
      }
      if (pending.current && plot.current) plot.current.setData(pending.current as uPlot.AlignedData);
      pending.current = null;
    };
    frame.current = requestAnimationFrame(apply);
  }, [data]);

  return h('div', { class: 'chart', ref: host });
}
