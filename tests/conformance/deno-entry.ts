// Runs the matmul conformance case under Deno and prints one JSON line for the Node test to parse.
// Usage: deno run -A tests/conformance/deno-entry.ts

import { acquireNavigatorGpu } from '@horizon/kernels/navigator';
import { runMatmulConformance } from './matmul.case.ts';

const gpu = await acquireNavigatorGpu();
const results = await runMatmulConformance(gpu);
console.log(`HORIZON_RESULT ${JSON.stringify({ device: gpu.report, results })}`);
gpu.destroyDevice();
