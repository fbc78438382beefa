// `horizon doctor`: which runtime, which WebGPU device (and whether it is a software fallback), the
// limits that matter, and a one-line verdict; with no adapter, what to install. On Linux under Node
// it also shows what Dawn's Vulkan backend can load: the system loader and the driver manifests.

import { type DeviceReport, isGpuError, LIMITS_THAT_MATTER, missingLimits, NO_ADAPTER_REMEDIES, REQUIRED_LIMITS } from '@horizon/kernels';
import { type Command, EXIT } from '../cli/command.ts';
import { acquireGpu, isDeno } from '../platform/acquire-gpu.ts';

type VulkanProbe = { loader: string | undefined; drivers: string[]; swiftShader: string | undefined };

export const doctor: Command = {
  name: 'doctor',
  summary: 'show the runtime, the WebGPU device and its limits, and whether Horizon can train on it',
  flags: { json: { type: 'boolean', description: 'print the report as JSON' } },
  async run({ flags, out, err }) {
    let report: DeviceReport;
    const vulkan = await vulkanProbe();
    try {
      const gpu = await acquireGpu();
      report = gpu.report;
      gpu.destroyDevice();
    } catch (error) {
      if (!isGpuError(error)) throw error;
      if (flags.json) out(JSON.stringify({ ok: false, error: error.message, remedies: NO_ADAPTER_REMEDIES, ...(vulkan ? { vulkan } : {}) }, null, 2));
      else {
        err(`${runtimeLabel()}`);
        for (const line of vulkan ? formatVulkan(vulkan) : []) err(line);
        err(`No usable WebGPU device: ${error.message}`);
      }
      return EXIT.failed;
    }
    const problems = missingLimits(report.limits);
    if (flags.json) {
      out(JSON.stringify({ ok: problems.length === 0, verdict: verdict(report, problems), ...report, ...(vulkan ? { vulkan } : {}) }, null, 2));
      return problems.length === 0 ? EXIT.ok : EXIT.failed;
    }
    const lines = formatReport(report, problems);
    lines.splice(lines.indexOf(LIMITS_HEADER), 0, ...(vulkan ? formatVulkan(vulkan) : []));
    for (const line of lines) out(line);
    return problems.length === 0 ? EXIT.ok : EXIT.failed;
  },
};

/** The Vulkan loader and drivers, on Linux under Node (where Dawn's backend is Vulkan); else undefined. */
async function vulkanProbe(): Promise<VulkanProbe | undefined> {
  if (isDeno() || process.platform !== 'linux') return undefined;
  const { probeVulkan, findSwiftShaderIcd } = await import('@horizon/kernels/node');
  return { ...probeVulkan(), swiftShader: findSwiftShaderIcd() };
}

function formatVulkan(probe: VulkanProbe): string[] {
  return [
    row('vulkan loader', probe.loader ?? 'none (libvulkan.so.1 missing: sudo apt-get install -y libvulkan1)'),
    row('vulkan drivers', probe.drivers.length > 0 ? probe.drivers.join(', ') : '(none in the standard folders)'),
    row('swiftshader driver', probe.swiftShader ?? 'none (sudo apt-get install -y chromium)'),
  ];
}

const row = (key: string, value: string) => `  ${key.padEnd(34)} ${value}`;
const LIMITS_HEADER = 'limits (what the device offers / what Horizon needs)';

function runtimeLabel(): string {
  const deno = (globalThis as { Deno?: { version: { deno: string } } }).Deno;
  return isDeno() && deno ? `runtime   deno ${deno.version.deno}` : `runtime   node ${process.versions.node}`;
}

export function formatReport(report: DeviceReport, problems: string[]): string[] {
  const lines = [
    'Horizon doctor',
    row('runtime', `${report.runtime} ${report.runtimeVersion}`),
    row('adapter vendor', report.vendor),
    row('adapter architecture', report.architecture),
    row('adapter description', report.description || '(none given)'),
    row('software fallback', report.isSoftware ? `yes${report.fallbackReason ? ` (${report.fallbackReason})` : ''}` : 'no, a hardware GPU'),
    row('backend', report.backend),
    row(
      'bounds clamping',
      report.robustness === undefined
        ? "the runtime's"
        : report.robustness
          ? 'on (HORIZON_ROBUSTNESS=on)'
          : 'off: kernels bound their own accesses (HORIZON_ROBUSTNESS=on turns it on)',
    ),
    row('four-lane subgroups', report.quadSubgroups ? 'yes: matmuls share rows of A between lanes' : 'no: matmuls load per lane'),
    row('features Horizon can use', usefulFeatures(report)),
    LIMITS_HEADER,
  ];
  for (const name of LIMITS_THAT_MATTER) lines.push(row(name, `${formatLimit(name, report.limits[name])} / ${formatLimit(name, REQUIRED_LIMITS[name])}`));
  lines.push(`verdict: ${verdict(report, problems)}`);
  return lines;
}

/** Features our kernels use when present; the rest only matter for graphics (`--json` lists all). */
const USEFUL_FEATURES = ['timestamp-query', 'shader-f16', 'subgroups'];

function usefulFeatures(report: DeviceReport): string {
  const useful = USEFUL_FEATURES.filter((f) => report.features.includes(f));
  const others = report.features.length - useful.length;
  return `${useful.join(', ') || '(none)'}${others > 0 ? ` (+${others} others; --json lists all)` : ''}`;
}

function formatLimit(name: string, value: number): string {
  if (/Size$/.test(name) && value >= 1024) {
    const units = ['B', 'KiB', 'MiB', 'GiB'];
    let v = value;
    let u = 0;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return `${Number.isInteger(v) ? v : v.toFixed(1)} ${units[u]}`;
  }
  return String(value);
}

function verdict(report: DeviceReport, problems: string[]): string {
  if (problems.length > 0) return `not usable: ${problems.join('; ')}.`;
  if (report.isSoftware)
    return 'ready on a software device: correct but slow (matmuls at 0.5–14 GFLOP/s by shape on two cores, `pnpm bench`); the tiny and default recipes fit.';
  return 'ready: hardware GPU.';
}
