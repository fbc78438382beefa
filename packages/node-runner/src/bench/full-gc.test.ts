import { describe, expect, it } from 'vitest';
import { fullGc } from './full-gc.ts';

describe('fullGc', () => {
  it('runs a real collection under Node without --expose-gc: an object only a WeakRef holds is gone after it', async () => {
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
    let ref: WeakRef<object> | undefined;
    (() => {
      ref = new WeakRef({ payload: new Array(1000).fill(1) });
    })();
    // A WeakRef's target is kept alive until the end of the job that made or read it.
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(fullGc()).toBe(true);
    expect(ref?.deref()).toBeUndefined();
  });
});
