// First page of the browser UI: which WebGPU device this browser gives us, and one kernel checked
// against its float64 reference, the same check `horizon smoke` runs headless.

import { compareArrays, deviceLine, isGpuError, matmul, matmulRef, SeededRandom } from '@horizon/kernels';
import { acquireNavigatorGpu } from '@horizon/kernels/navigator';

const deviceBox = document.querySelector<HTMLPreElement>('#device')!;
const checkBox = document.querySelector<HTMLPreElement>('#check')!;

async function start(): Promise<void> {
  const gpu = await acquireNavigatorGpu();
  deviceBox.textContent = deviceLine(gpu.report);
  const rng = new SeededRandom(1);
  const shape = { M: 37, K: 53, N: 29 };
  const a = rng.uniformArray(shape.M * shape.K);
  const b = rng.uniformArray(shape.K * shape.N);
  const { relativeError } = compareArrays(await matmul(gpu, a, b, shape), matmulRef(a, b, shape));
  checkBox.textContent = `matmul ${shape.M}×${shape.K}×${shape.N}: relative error ${relativeError.toExponential(2)} against the float64 reference — ${relativeError < 1e-5 ? 'ok' : 'FAILED'}`;
}

start().catch((error: unknown) => {
  deviceBox.textContent = isGpuError(error) ? error.message : `Unexpected error: ${String(error)}`;
  checkBox.textContent = 'Not run: no WebGPU device.';
});
