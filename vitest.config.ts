import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'tests/**/*.test.ts'],
    setupFiles: ['tests/support/setup.ts'],
    // SwiftShader runs kernels on the CPU (about 1 GFLOP/s here); GPU tests get room, and files run
    // in separate processes so each has its own Dawn device.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: 'forks',
  },
});
