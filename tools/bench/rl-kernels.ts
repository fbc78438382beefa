// Runs the RL-kernel bench rows alone and prints them as `horizon bench` does:
//   npx tsx tools/bench/rl-kernels.ts [--quick]
// (`horizon bench` runs the same rows once its section list includes them.)

import { acquireNodeGpu } from '../../packages/kernels/src/gpu/provider-node.ts';
import { benchRlKernels } from '../../packages/node-runner/src/bench/rl-kernels.ts';
import { formatTable } from '../../packages/node-runner/src/bench/table.ts';

const gpu = await acquireNodeGpu();
const rows = await benchRlKernels(gpu, { quick: process.argv.includes('--quick'), progress: (line) => console.error(line) });
for (const line of formatTable(rows)) console.log(line);
gpu.destroyDevice();
