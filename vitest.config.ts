import { configDefaults, defineConfig } from 'vitest/config';

// Test tiers (docs/conventions.md §7), each a project a developer can run alone (`pnpm test:<tier>`);
// `pnpm test` runs all four, each file once. A file's tier is what it does, not where it lives:
//   fast     pure TypeScript: no GPU device, no browser, no subprocess CLI (seconds)
//   gpu      acquires a Dawn device: kernels against their references, the GPU model, the golden
//            fixtures on the GPU, the trainer end to end (SwiftShader when there is no GPU)
//   browser  Playwright driving Chromium, and the three-runtime conformance (Node, Deno, Chromium)
//   cli      the horizon CLI through real processes, Node and Deno
// A test file no list claims is fast; the fast tier fails any test that reaches for a GPU
// (tests/support/fast-tier.ts), so a new GPU test is put in GPU_TESTS rather than slowing it down.

const GPU_TESTS = [
  // Every kernel family's test runs its WGSL against the float64 reference; gpu/ holds the runtime's own.
  'packages/kernels/src/!(gpu)/**/*.test.ts',
  'packages/kernels/src/gpu/{grid,runtime}.test.ts',
  'packages/core/src/model/generate.test.ts',
  // The methods' advantages and the update step and loop run real kernels; the loop's host-only
  // bookkeeping (which rollouts train, the log-prob mismatch, trainer state, cutting sampled rows at their stops, GenAC's critic text and targets) and OPID's skill parser and routing are tested in the fast tier.
  'packages/core/src/{algorithms,train}/**/!(valid-rollouts|rollout-mismatch|trainer-state|gpu-sampler|value-digit|critic-text|critic-targets|skill-parser|routing).test.ts',
  'packages/node-runner/src/bench/rl-kernels.test.ts',
  'packages/web-ui/src/engine/{gae-walkthrough,live-run}.test.ts',
  'tests/golden/{gpu-gpt-golden,rl-golden}.test.ts',
  'tests/e2e/trainer.test.ts',
];
const BROWSER_TESTS = ['tests/browser/**/*.test.ts', 'tests/conformance/**/*.test.ts'];
// Tests that run other processes: the CLI, Deno, and PyTorch loading an export.
const CLI_TESTS = ['tests/cli/**/*.test.ts', 'tests/e2e/deno-parity.test.ts', 'packages/node-runner/src/export/model-export.test.ts'];

export default defineConfig({
  test: {
    setupFiles: ['tests/support/setup.ts'],
    // SwiftShader runs kernels on the CPU (a few GFLOP/s here); GPU tests get room, and files run
    // in separate processes so each has its own Dawn device.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: {
          name: 'fast',
          // Everything the other tiers do not claim, so a new test file always runs somewhere.
          include: ['packages/*/src/**/*.test.ts', 'tests/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...GPU_TESTS, ...BROWSER_TESTS, ...CLI_TESTS],
          setupFiles: ['tests/support/fast-tier.ts'],
        },
      },
      { extends: true, test: { name: 'gpu', include: GPU_TESTS } },
      { extends: true, test: { name: 'browser', include: BROWSER_TESTS } },
      { extends: true, test: { name: 'cli', include: CLI_TESTS } },
    ],
  },
});
