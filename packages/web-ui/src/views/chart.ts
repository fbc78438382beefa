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
  const decimals = Math.min(6, Math.max(0, -Math.floor(Math.log10(step) + 1e-9)));
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

export interface ChartProps {
  /** [steps, values]; values may hold NaN (drawn as a gap). */
  data: [number[], number[]];
  syncKey: string;
  label: string;
  color: string;
  height?: number;
}

export function Chart({ data, syncKey, label, color, height = 150 }: ChartProps) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const pending = useRef<[number[], number[]] | null>(null);
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
        { label, stroke: color, width: 1.5, points: { show: data[0].length < 60, size: 4 }, spanGaps: false, value: (_u, v) => (v == null ? '–' : fmt(v)) },
      ],
    };
    plot.current = new uPlot(options, data, el);
    const resize = new ResizeObserver(() => plot.current?.setSize({ width: Math.max(200, el.clientWidth), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      cancelAnimationFrame(frame.current);
      plot.current?.destroy();
      plot.current = null;
    };
  }, [syncKey, label, color, height]);

  useEffect(() => {
    pending.current = data;
    if (frame.current) return;
    const apply = () => {
      frame.current = 0;
      if (document.hidden) {
        document.addEventListener('visibilitychange', apply, { once: true });
        return;
      }
      if (pending.current && plot.current) plot.current.setData(pending.current);
      pending.current = null;
    };
    frame.current = requestAnimationFrame(apply);
  }, [data]);

  return h('div', { class: 'chart', ref: host });
}
