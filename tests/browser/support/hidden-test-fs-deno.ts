// Runs the HiddenTestFS parity episodes (hidden-test-fs-request.ts) under Deno on navigator.gpu and
// prints one JSON line for the Node test to parse.
// Usage: deno run -A tests/browser/support/hidden-test-fs-deno.ts

import { runHiddenTestFsEpisodes } from '@horizon/core';
import { acquireNavigatorGpu } from '@horizon/kernels/navigator';
import { PARITY_REQUEST } from './hidden-test-fs-request.ts';

const gpu = await acquireNavigatorGpu();
const result = await runHiddenTestFsEpisodes(gpu, PARITY_REQUEST);
console.log(`HORIZON_RESULT ${JSON.stringify({ device: gpu.report, result })}`);
gpu.destroyDevice();
