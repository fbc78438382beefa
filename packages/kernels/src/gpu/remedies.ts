// What to install when no WebGPU adapter is found. `horizon doctor` prints these, and the Node
// provider's no-adapter error says which piece is missing on Linux: the Vulkan loader (Debian's
// `libvulkan1`) or a Vulkan driver (Chromium's SwiftShader, or a GPU's).

import type { VulkanProbe } from './vulkan-probe.ts';

export interface Remedy {
  platform: string;
  steps: string;
}

export const NO_ADAPTER_REMEDIES: readonly Remedy[] = [
  {
    platform: 'Debian / Ubuntu',
    steps:
      "sudo apt-get install -y libvulkan1 chromium (the Vulkan loader Dawn opens, and the SwiftShader Vulkan driver Horizon falls back to; on Ubuntu use the chromium snap or Google Chrome) — or, for a GPU, its vendor's Vulkan driver (mesa-vulkan-drivers for AMD/Intel, the NVIDIA driver for NVIDIA)",
  },
  { platform: 'macOS', steps: 'nothing to install: Dawn uses Metal; update macOS if no adapter is found' },
  { platform: 'Windows', steps: 'update the GPU driver (Dawn uses Direct3D 12); WARP, the software device, ships with Windows' },
];

export function remedyText(): string {
  return NO_ADAPTER_REMEDIES.map((r) => `  ${r.platform}: ${r.steps}`).join('\n');
}

/** Why Dawn on Linux found no adapter, from what the machine has; message and remedy in one sentence each. */
export function diagnoseNoAdapter(probe: VulkanProbe, swiftShaderIcd: string | undefined): { message: string; remedy: string } {
  const driverHint =
    'chromium (its SwiftShader software driver) or your GPU vendor’s Vulkan driver (mesa-vulkan-drivers for AMD/Intel, the NVIDIA driver for NVIDIA)';
  if (!probe.loader) {
    return {
      message: `No WebGPU adapter was found: Dawn needs the system Vulkan loader (libvulkan.so.1), and this machine has none${swiftShaderIcd ? ` (the SwiftShader driver at ${swiftShaderIcd} is there, but Dawn cannot reach it without the loader; Chromium's private copy of the loader is not used)` : ''}.`,
      remedy: `Install the loader: sudo apt-get install -y libvulkan1 (Debian/Ubuntu; Fedora: vulkan-loader)${swiftShaderIcd ? '' : `, and a driver: ${driverHint}`}.`,
    };
  }
  if (!swiftShaderIcd) {
    const seen =
      probe.drivers.length > 0 ? `; the drivers it saw (${probe.drivers.join(', ')}) gave no adapter Dawn accepts (Debian 12's lavapipe is rejected)` : '';
    return {
      message: `No WebGPU adapter was found: the Vulkan loader is present (${probe.loader}) but there is no Vulkan driver Dawn can use${seen}.`,
      remedy: `Install a driver: sudo apt-get install -y ${driverHint}.`,
    };
  }
  return {
    message: `No WebGPU adapter was found although the Vulkan loader (${probe.loader}) and the SwiftShader driver (${swiftShaderIcd}) are both present.`,
    remedy:
      'Run `VK_LOADER_DEBUG=error,warn horizon doctor` to see why the loader refused the driver, and reinstall chromium (sudo apt-get install --reinstall -y chromium).',
  };
}
