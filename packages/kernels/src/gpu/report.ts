// What we tell a user about the device they got: `horizon doctor` prints it, every run logs it.

export type RuntimeName = 'node' | 'deno' | 'browser';

/** The limits that decide whether Horizon's kernels fit on a device. */
export const LIMITS_THAT_MATTER = [
  'maxStorageBufferBindingSize',
  'maxBufferSize',
  'maxStorageBuffersPerShaderStage',
  'maxComputeWorkgroupStorageSize',
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupsPerDimension',
] as const;
export type LimitName = (typeof LIMITS_THAT_MATTER)[number];

/** What Horizon's kernels assume; a device below any of these is refused with a clear message. */
export const REQUIRED_LIMITS: Record<LimitName, number> = {
  maxStorageBufferBindingSize: 128 * 1024 * 1024,
  maxBufferSize: 256 * 1024 * 1024,
  maxStorageBuffersPerShaderStage: 8,
  maxComputeWorkgroupStorageSize: 16 * 1024,
  maxComputeInvocationsPerWorkgroup: 256,
  maxComputeWorkgroupsPerDimension: 65535,
};

export interface DeviceReport {
  runtime: RuntimeName;
  runtimeVersion: string;
  vendor: string;
  architecture: string;
  description: string;
  /** True for software rasterisers (SwiftShader, lavapipe, WARP) and adapters marked as fallback. */
  isSoftware: boolean;
  /** Why we ended up on this device when it was not the first choice, e.g. the SwiftShader fallback. */
  fallbackReason?: string;
  /**
   * Whether out-of-bounds buffer accesses are clamped by the runtime. Node turns Dawn's clamp off
   * (HORIZON_ROBUSTNESS=on keeps it); browsers and Deno always clamp, so it is absent there.
   */
  robustness?: boolean;
  /**
   * Whether the device's subgroups are four consecutive invocations (checked by a kernel when the
   * device opens; gpu/quad-subgroups.ts). Kernels that hand values between lanes need it.
   */
  quadSubgroups?: boolean;
  /** Graphics API under WebGPU, when the runtime tells or it can be inferred. */
  backend: string;
  features: string[];
  limits: Record<LimitName, number>;
}

/** PCI vendor ids some runtimes report instead of names (Deno's wgpu does). */
const PCI_VENDORS: Record<number, string> = {
  4318: 'nvidia',
  4098: 'amd',
  32902: 'intel',
  4203: 'apple',
  5045: 'arm',
  20803: 'qualcomm',
  6880: 'google',
  65541: 'mesa',
  5140: 'microsoft',
};

function vendorName(raw: string): string {
  if (!/^\d+$/.test(raw)) return raw;
  return PCI_VENDORS[Number(raw)] ?? `vendor 0x${Number(raw).toString(16)}`;
}

const SOFTWARE_NAMES = /swiftshader|llvmpipe|lavapipe|softpipe|warp|microsoft basic render/i;

export function describeAdapter(adapter: GPUAdapter, runtime: RuntimeName, runtimeVersion: string, backend: string, fallbackReason?: string): DeviceReport {
  const info = adapter.info as GPUAdapterInfo & { isFallbackAdapter?: boolean };
  const vendor = info.vendor ? vendorName(info.vendor) : 'unknown vendor';
  const architecture = info.architecture || 'unknown architecture';
  const description = info.description || (info as { device?: string }).device || '';
  const marked = Boolean(info.isFallbackAdapter ?? (adapter as { isFallbackAdapter?: boolean }).isFallbackAdapter);
  const limits = {} as Record<LimitName, number>;
  for (const name of LIMITS_THAT_MATTER) limits[name] = Number(adapter.limits[name]);
  return {
    runtime,
    runtimeVersion,
    vendor,
    architecture,
    description,
    isSoftware: marked || SOFTWARE_NAMES.test(`${vendor} ${architecture} ${description}`),
    ...(fallbackReason ? { fallbackReason } : {}),
    backend,
    features: [...adapter.features].map(String).sort(),
    limits,
  };
}

/** Limits below what our kernels need, as readable phrases; empty when the device is good. */
export function missingLimits(limits: Record<LimitName, number>): string[] {
  return LIMITS_THAT_MATTER.filter((name) => limits[name] < REQUIRED_LIMITS[name]).map(
    (name) => `${name} is ${limits[name]}, Horizon needs ${REQUIRED_LIMITS[name]}`,
  );
}

/** One line: the device and whether it is a software fallback. */
export function deviceLine(report: DeviceReport): string {
  const name = [report.vendor, report.architecture, report.description].filter(Boolean).join(' / ');
  const kind = report.isSoftware ? 'software device' : 'hardware GPU';
  const why = report.fallbackReason ? ` (${report.fallbackReason})` : '';
  return `${name} via ${report.backend} on ${report.runtime} ${report.runtimeVersion} — ${kind}${why}`;
}
