// Vitest setup: registers the custom matchers every test file may use.

import { expect } from 'vitest';
import { type AllCloseOptions, allClose } from '../../packages/kernels/src/testing/matchers.ts';

expect.extend({
  toBeAllClose(actual: ArrayLike<number>, expected: ArrayLike<number>, options?: AllCloseOptions) {
    const outcome = allClose(actual, expected, options);
    return { pass: outcome.pass, message: () => outcome.message };
  },
});

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: must match vitest's own declaration to merge with it.
  interface Matchers<T = any> {
    toBeAllClose(expected: ArrayLike<number>, options?: AllCloseOptions): T;
  }
}
