import { describe, expect, it } from 'vitest';
import { calmDawnPolling, DAWN_POLL_MS, DAWN_SPIN_MS } from './dawn-polling.ts';

// A native function stands in for Dawn's callback: bound functions print as native code.
const nativeCallback = (f: () => void) => f.bind(null);

describe("Dawn's polling throttle", () => {
  // Installed inside a test: vitest restores the globals a file's collection phase changed.
  it('leaves JavaScript callbacks to setImmediate', async () => {
    calmDawnPolling();
    const t0 = performance.now();
    for (let i = 0; i < 50; i++) await new Promise<void>((resolve) => setImmediate(() => resolve()));
    expect(performance.now() - t0).toBeLessThan(50 * DAWN_POLL_MS);
  });

  it('spins a native poller for a moment, then polls it on a timer', async () => {
    calmDawnPolling();
    const when: number[] = [];
    const t0 = performance.now();
    await new Promise<void>((resolve) => {
      const poll = nativeCallback(() => {
        when.push(performance.now() - t0);
        if (when.at(-1)! < 20) setImmediate(poll);
        else resolve();
      });
      expect(Function.prototype.toString.call(poll)).toContain('[native code]');
      setImmediate(poll);
    });
    const spun = when.filter((t) => t < DAWN_SPIN_MS).length;
    const gapsAfterSpin = when.slice(1).flatMap((t, i) => (when[i] >= DAWN_SPIN_MS ? [t - when[i]] : []));
    expect(spun).toBeGreaterThan(1);
    // 20 ms of polling: unthrottled that is thousands of polls; on a 1 ms timer a few dozen (Node
    // may fire a 1 ms timer early, by up to the age of its loop clock).
    expect(gapsAfterSpin.length).toBeGreaterThan(5);
    expect(gapsAfterSpin.length).toBeLessThan(100);
  });
});
