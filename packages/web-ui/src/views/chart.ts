// One small-multiple line chart on uPlot (canvas). New data is applied at most once per animation
// frame, however often it arrives, and not at all while the tab is hidden (oobabooga #2114: the
// status UI itself can hog the GPU): live rows from the trainer will stream into the same `data`.
// Charts with the same `syncKey` share the x cursor.

import { h } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

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
      cursor: { sync: { key: syncKey, setSeries: false }, drag: { x: false, y: false } },
      legend: { show: true, live: true },
      scales: { x: { time: false } },
      axes: [
        { size: 28, font: '11px system-ui', ticks: { size: 4 } },
        { size: 44, font: '11px system-ui', ticks: { size: 4 } },
      ],
      series: [{ label: 'step' }, { label, stroke: color, width: 1.5, points: { show: data[0].length < 60, size: 4 }, spanGaps: false }],
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
