// Setup of the fast tier: Dawn is replaced by a module that refuses to start, so a test that
// acquires a GPU fails here with a sentence saying where it belongs, instead of making the tier slow.

import { createRequire } from 'node:module';
import { vi } from 'vitest';

// Dawn's id as the kernels' Node provider resolves it (tests/ does not depend on Dawn itself);
// doMock rather than mock, which would be hoisted above this line.
const dawn = createRequire(new URL('../../packages/kernels/package.json', import.meta.url)).resolve('webgpu');

vi.doMock(dawn, () => {
  const create = () => {
    throw new Error('This test acquires a GPU, so it is not a fast-tier test: add it to GPU_TESTS in vitest.config.ts.');
  };
  return { create, globals: {}, default: { create, globals: {} } };
});
