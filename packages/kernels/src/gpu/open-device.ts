// Shared by every provider: turn an adapter into a device with the limits our kernels need,
// and wrap it in the runtime.

import { GpuError } from './errors.ts';
import { hasQuadSubgroups } from './quad-subgroups.ts';
import { type DeviceReport, LIMITS_THAT_MATTER, missingLimits } from './report.ts';
import { Gpu } from './runtime.ts';

/** Optional features we use when present; none is required. */
const WANTED_FEATURES = ['timestamp-query', 'subgroups'] as const;

export async function openDevice(adapter: GPUAdapter, report: DeviceReport, instance?: GPU): Promise<Gpu> {
  const missing = missingLimits(report.limits);
  if (missing.length > 0) {
    throw new GpuError(
      'device-refused',
      `The adapter "${report.description || report.architecture}" is too small for Horizon: ${missing.join('; ')}.`,
      'Use a different GPU, or the SwiftShader software device (`horizon doctor` says how).',
    );
  }
  // Ask for everything the adapter offers on the limits that matter, so large batches fit.
  const requiredLimits: Record<string, number> = {};
  for (const name of LIMITS_THAT_MATTER) requiredLimits[name] = report.limits[name];
  const requiredFeatures = WANTED_FEATURES.filter((f) => adapter.features.has(f)) as GPUFeatureName[];
  let device: GPUDevice;
  try {
    device = await adapter.requestDevice({ label: 'horizon', requiredLimits, requiredFeatures });
  } catch (cause) {
    throw new GpuError(
      'device-refused',
      `The adapter "${report.description || report.architecture}" refused to create a device (${String((cause as Error)?.message ?? cause)}).`,
      'Update the GPU driver, or run on the SwiftShader software device (`horizon doctor` says how).',
      { cause },
    );
  }
  return new Gpu(device, { ...report, quadSubgroups: await hasQuadSubgroups(device) }, instance);
}
