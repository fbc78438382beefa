// Main-thread responsiveness probe, injected before the page's own scripts: the longest task the
// browser reports (PerformanceObserver 'longtask', tasks over 50 ms) and the longest gap between
// animation frames (what a learner sees as a stutter).

export const LONG_TASK_PROBE = `
(() => {
  const probe = { longestTask: 0, longestGap: 0, last: 0 };
  window.__horizonProbe = probe;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) probe.longestTask = Math.max(probe.longestTask, e.duration);
  }).observe({ type: 'longtask', buffered: true });
  const frame = (t) => {
    if (probe.last) probe.longestGap = Math.max(probe.longestGap, t - probe.last);
    probe.last = t;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})();
`;

interface Probe {
  longestTask: number;
  longestGap: number;
  last: number;
}

type ProbePage = { evaluate<R>(fn: () => R): Promise<R> };

export async function resetProbe(page: ProbePage): Promise<void> {
  await page.evaluate(() => {
    const p = (window as unknown as { __horizonProbe: Probe }).__horizonProbe;
    p.longestTask = 0;
    p.longestGap = 0;
    p.last = 0;
  });
}

export async function readProbe(page: ProbePage): Promise<{ longestTask: number; longestGap: number }> {
  return page.evaluate(() => {
    const p = (window as unknown as { __horizonProbe: Probe }).__horizonProbe;
    return { longestTask: p.longestTask, longestGap: p.longestGap };
  });
}
