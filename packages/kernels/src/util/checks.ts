// Argument checks shared by every kernel launcher and host API. Each throws a RangeError whose one
// sentence names the kernel and the argument (docs/conventions.md §11), before anything reaches the GPU:
// a bad batch must fail loudly, never come back as a silent NaN (docs/conventions.md §11: bad input is an error).

import type { Gpu } from '../gpu/runtime.ts';
import type { DType, Tensor } from '../gpu/tensor.ts';

/** f32 can hold integers exactly up to 2^24; counts and token positions must stay below it. */
export const F32_EXACT_INTEGER = 2 ** 24;

/** Each value must be a non-negative integer (a size that may be 0). */
export function checkSizes(kernel: string, sizes: Record<string, number>): void {
  for (const [name, value] of Object.entries(sizes)) {
    if (!Number.isInteger(value) || value < 0) throw new RangeError(`${kernel}: ${name} must be a non-negative integer, got ${value}`);
  }
}

/** Each value must be a positive integer (a size that may not be 0). */
export function checkPositiveSizes(kernel: string, sizes: Record<string, number>): void {
  for (const [name, value] of Object.entries(sizes)) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${kernel}: ${name} must be a positive integer, got ${value}`);
  }
}

/** A launcher's tensor must hold exactly `size` elements of `dtype`. */
export function checkTensor(kernel: string, name: string, tensor: Tensor, size: number, dtype: DType = 'f32'): void {
  if (tensor.size !== size) throw new RangeError(`${kernel}: ${name} (${tensor}) must hold ${size} values`);
  if (tensor.dtype !== dtype) throw new RangeError(`${kernel}: ${name} (${tensor}) must be ${dtype}`);
}

/** A tensor larger than the device lets one binding see fails validation deep in WebGPU; say so first. */
export function checkBindable(kernel: string, gpu: Gpu, tensor: Tensor, name: string): void {
  const limit = gpu.device.limits.maxStorageBufferBindingSize;
  if (tensor.byteLength > limit) {
    throw new RangeError(
      `${kernel}: ${name} (${tensor}) takes ${tensor.byteLength} bytes, more than the ${limit} one binding may hold on this device; use a smaller batch`,
    );
  }
}

/** A host array must hold exactly `length` values. */
export function checkLength(kernel: string, name: string, array: ArrayLike<number>, length: number): void {
  if (array.length !== length) throw new RangeError(`${kernel}: ${name} holds ${array.length} values, expected ${length}`);
}

/** A host array must be given and hold exactly `length` finite values. */
export function checkArray(kernel: string, name: string, array: ArrayLike<number> | undefined, length: number): void {
  if (array === undefined) throw new RangeError(`${kernel}: ${name} is required`);
  checkLength(kernel, name, array, length);
  for (let i = 0; i < length; i++) {
    if (!Number.isFinite(array[i])) throw new RangeError(`${kernel}: ${name}[${i}] is ${array[i]}; every value must be finite`);
  }
}

/** A mask must be given and hold exactly `length` values, each 0 or 1. */
export function checkMask(kernel: string, name: string, mask: ArrayLike<number> | undefined, length: number): void {
  if (mask === undefined) throw new RangeError(`${kernel}: ${name} is required`);
  checkLength(kernel, name, mask, length);
  for (let i = 0; i < length; i++) {
    if (mask[i] !== 0 && mask[i] !== 1) throw new RangeError(`${kernel}: ${name}[${i}] is ${mask[i]}; a mask holds 0 or 1`);
  }
}

/** A hyperparameter must be a finite number in [lo, hi] (or [lo, hi) with `openHigh`). */
export function checkNumber(kernel: string, name: string, value: number, lo: number, hi: number, openHigh = false): void {
  const inRange = Number.isFinite(value) && value >= lo && (openHigh ? value < hi : value <= hi);
  if (!inRange) throw new RangeError(`${kernel}: ${name} must be a finite number in [${lo}, ${hi}${openHigh ? ')' : ']'}, got ${value}`);
}

/** A scalar or a per-sample array, checked to lie in [lo, hi] and returned as one f32 value per sample. */
export function perSample(kernel: string, name: string, value: number | ArrayLike<number>, B: number, lo: number, hi: number): Float32Array {
  if (typeof value === 'number') {
    checkNumber(kernel, name, value, lo, hi);
    return new Float32Array(B).fill(value);
  }
  checkArray(kernel, name, value, B);
  for (let b = 0; b < B; b++) checkNumber(kernel, `${name}[${b}]`, value[b], lo, hi);
  return Float32Array.from(value);
}
