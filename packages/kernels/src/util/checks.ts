// Argument checks shared by kernel launchers and host APIs: a wrong size is a RangeError that names
// the kernel and the argument (CONVENTIONS.md §11).

import type { Gpu } from '../gpu/runtime.ts';
import type { Tensor } from '../gpu/tensor.ts';

export function expectSize(kernel: string, t: Tensor, n: number, name: string): void {
  if (t.size !== n) throw new RangeError(`${kernel}: ${name} (${t}) must hold ${n} values`);
}

export function expectLength(kernel: string, a: ArrayLike<number>, n: number, name: string): void {
  if (a.length !== n) throw new RangeError(`${kernel}: ${name} must hold ${n} values, got ${a.length}`);
}

export function expectPositiveIntegers<K extends string>(kernel: string, values: Record<K, number>, keys: readonly K[]): void {
  for (const key of keys) {
    const v = values[key];
    if (!Number.isInteger(v) || v < 1) throw new RangeError(`${kernel}: ${key} must be a positive integer, got ${v}`);
  }
}

/** A tensor larger than the device lets one binding see fails validation deep in WebGPU; say so first. */
export function expectBindable(kernel: string, gpu: Gpu, t: Tensor, name: string): void {
  const limit = gpu.device.limits.maxStorageBufferBindingSize;
  if (t.byteLength > limit) {
    throw new RangeError(
      `${kernel}: ${name} (${t}) takes ${t.byteLength} bytes, more than the ${limit} one binding may hold on this device; use a smaller batch`,
    );
  }
}
