// What to install when no WebGPU adapter is found, per platform. `horizon doctor` prints these.

export interface Remedy {
  platform: string;
  steps: string;
}

export const NO_ADAPTER_REMEDIES: readonly Remedy[] = [
  {
    platform: 'Debian / Ubuntu',
    steps:
      "sudo apt-get install -y chromium (ships the SwiftShader Vulkan driver Horizon falls back to; on Ubuntu use the chromium snap or Google Chrome) — or install your GPU vendor's Vulkan driver (mesa-vulkan-drivers for AMD/Intel, the NVIDIA driver for NVIDIA)",
  },
  { platform: 'macOS', steps: 'nothing to install: Dawn uses Metal; update macOS if no adapter is found' },
  { platform: 'Windows', steps: 'update the GPU driver (Dawn uses Direct3D 12); WARP, the software device, ships with Windows' },
];

export function remedyText(): string {
  return NO_ADAPTER_REMEDIES.map((r) => `  ${r.platform}: ${r.steps}`).join('\n');
}
