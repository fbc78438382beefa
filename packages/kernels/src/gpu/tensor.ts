// A GPU buffer with a shape and an element type. Tensors are allocated once per shape and reused;
// nothing here allocates on the hot path.

export type DType = 'f32' | 'u32' | 'i32';
export type TypedArrayOf<D extends DType> = D extends 'f32' ? Float32Array : D extends 'u32' ? Uint32Array : Int32Array;
export type HostArray = Float32Array | Uint32Array | Int32Array;

export class Tensor<D extends DType = DType> {
  constructor(
    readonly buffer: GPUBuffer,
    readonly shape: readonly number[],
    readonly dtype: D,
    readonly label: string,
    /** Where this tensor starts in `buffer`; non-zero for views into a larger buffer (see `Gpu.view`). */
    readonly byteOffset = 0,
  ) {}

  /** Number of elements. */
  get size(): number {
    return elementCount(this.shape);
  }

  get byteLength(): number {
    return this.size * 4;
  }

  toString(): string {
    return `${this.label}: [${this.shape.join(', ')}] ${this.dtype}`;
  }
}

export function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

export function dtypeOf(data: HostArray): DType {
  if (data instanceof Float32Array) return 'f32';
  if (data instanceof Uint32Array) return 'u32';
  return 'i32';
}

export function viewAs<D extends DType>(dtype: D, bytes: ArrayBuffer): TypedArrayOf<D> {
  const array = dtype === 'f32' ? new Float32Array(bytes) : dtype === 'u32' ? new Uint32Array(bytes) : new Int32Array(bytes);
  return array as TypedArrayOf<D>;
}
