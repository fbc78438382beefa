// Argument checks shared by kernel launchers and host APIs. Each throws a RangeError that names the
// kernel and the argument (CONVENTIONS.md §11), before anything reaches the GPU.

import type { DType, Tensor } from '../gpu/tensor.ts';

/** `value` must be a non-negative integer (a dimension). */
export function checkDim(kernel: string, name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) throw new RangeError(`${kernel}: ${name} must be a non-negative integer, got ${value}`);
}

/** `tensor` must hold exactly `size` elements of `dtype`. */
export function checkTensor(kernel: string, name: string, tensor: Tensor, size: number, dtype: DType = 'f32'): void {
  if (tensor.size !== size) throw new RangeError(`${kernel}: ${name} (${tensor}) must hold ${size} values`);
  if (tensor.dtype !== dtype) throw new RangeError(`${kernel}: ${name} (${tensor}) must be ${dtype}`);
}

/** A host array argument must hold exactly `size` values. */
export function checkLength(kernel: string, name: string, array: ArrayLike<number>, size: number): void {
  if (array.length !== size) throw new RangeError(`${kernel}: ${name} holds ${array.length} values, expected ${size}`);
}

/** A hyperparameter must be a finite number in [lo, hi] (or [lo, hi) with `openHigh`). */
export function checkNumber(kernel: string, name: string, value: number, lo: number, hi: number, openHigh = false): void {
  const inRange = Number.isFinite(value) && value >= lo && (openHigh ? value < hi : value <= hi);
  if (!inRange) throw new RangeError(`${kernel}: ${name} must be a finite number in [${lo}, ${hi}${openHigh ? ')' : ']'}, got ${value}`);
}
