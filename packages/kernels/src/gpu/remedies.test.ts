import { describe, expect, it } from 'vitest';
import { diagnoseNoAdapter } from './remedies.ts';
import { findVulkanLoader } from './vulkan-probe.ts';

describe('the no-adapter diagnosis', () => {
  const swiftShader = '/usr/lib/chromium/vk_swiftshader_icd.json';

  it('without the Vulkan loader names libvulkan1, and says chromium’s SwiftShader cannot help alone', () => {
    const { message, remedy } = diagnoseNoAdapter({ loader: undefined, drivers: [] }, swiftShader);
    expect(message).toMatch(/Vulkan loader \(libvulkan\.so\.1\)/);
    expect(message).toContain(swiftShader);
    expect(remedy).toContain('apt-get install -y libvulkan1');
    expect(remedy).not.toContain('chromium');
  });

  it('without loader and driver asks for both', () => {
    const { remedy } = diagnoseNoAdapter({ loader: undefined, drivers: [] }, undefined);
    expect(remedy).toContain('libvulkan1');
    expect(remedy).toContain('chromium');
  });

  it('with a loader but no usable driver asks for a driver, not the loader, and lists what it saw', () => {
    const lavapipe = '/usr/share/vulkan/icd.d/lvp_icd.x86_64.json';
    const { message, remedy } = diagnoseNoAdapter({ loader: '/usr/lib/x86_64-linux-gnu/libvulkan.so.1', drivers: [lavapipe] }, undefined);
    expect(message).toContain('loader is present');
    expect(message).toContain(lavapipe);
    expect(remedy).toContain('chromium');
    expect(remedy).not.toContain('libvulkan1');
  });

  it('with both present says so and how to see why the loader refused', () => {
    const { message, remedy } = diagnoseNoAdapter({ loader: '/usr/lib/libvulkan.so.1', drivers: [] }, swiftShader);
    expect(message).toContain('both present');
    expect(remedy).toContain('VK_LOADER_DEBUG');
  });
});

describe.runIf(process.platform === 'linux')('the Vulkan loader probe', () => {
  it('finds the loader this machine’s GPU tests run on (setup installs libvulkan1)', () => {
    expect(findVulkanLoader()).toMatch(/libvulkan\.so\.1$/);
  });
});
