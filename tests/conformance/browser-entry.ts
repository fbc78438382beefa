// Runs the matmul conformance case in the page and leaves the outcome on `window` for Playwright.

import { acquireNavigatorGpu } from '@horizon/kernels/navigator';
import { runMatmulConformance } from './matmul.case.ts';

const target = window as unknown as { horizonResult?: unknown; horizonError?: string };
try {
  const gpu = await acquireNavigatorGpu();
  const results = await runMatmulConformance(gpu);
  target.horizonResult = { device: gpu.report, results };
  gpu.destroyDevice();
} catch (error) {
  target.horizonError = String((error as Error)?.message ?? error);
}
