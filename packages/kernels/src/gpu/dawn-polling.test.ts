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

  it('puts a native poller on a timer once its wait is past the spin', async () => {
    calmDawnPolling();
    // Times from the first poll, where the throttle's wait starts.
    const when: number[] = [];
    let t0 = 0;
    const afterSpin = () => when.filter((t) => t > DAWN_SPIN_MS);
    const pollsAfterSpin = () => afterSpin().length;
    await new Promise<void>((resolve) => {
      const poll = nativeCallback(() => {
        if (when.length === 0) t0 = performance.now();
        when.push(performance.now() - t0);
        if (pollsAfterSpin() < 30) setImmediate(poll);
        else resolve();
      });
      expect(Function.prototype.toString.call(poll)).toContain('[native code]');
      setImmediate(poll);
    });
    // 30 polls after the spin: unthrottled they take ~0.1 ms in all (a few µs each); on a 1 ms timer,
    // which Node may fire early by up to the age of its loop clock, 6–30 ms here. The bar sits far
    // from both; load only lengthens the throttled case.
    const after = afterSpin();
    expect(after.at(-1)! - after[0]).toBeGreaterThan(29 * 0.05 * DAWN_POLL_MS);
  });
});
