// Runs the RL-kernel bench rows alone and prints them as `horizon bench` does:
//   npx tsx tools/bench/rl-kernels.ts [--quick]
// (`horizon bench` runs the same rows once its section list includes them.)

import { acquireNodeGpu } from '@horizon/kernels/node';
import { benchRlKernels } from '@horizon/node-runner/bench/rl-kernels';
import { formatTable } from '@horizon/node-runner/bench/table';

const gpu = await acquireNodeGpu();
const rows = await benchRlKernels(gpu, { quick: process.argv.includes('--quick'), progress: (line) => console.error(line) });
for (const line of formatTable(rows)) console.log(line);
gpu.destroyDevice();
