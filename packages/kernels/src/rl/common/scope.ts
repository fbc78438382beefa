// Tensor bookkeeping for the host APIs: every tensor a call uploads or allocates is destroyed when
// the call ends, whether it returns or throws.

import type { Gpu } from '../../gpu/runtime.ts';
import type { DType, HostArray, Tensor, TypedArrayOf } from '../../gpu/tensor.ts';

export class TensorScope {
  private readonly owned: Tensor[] = [];

  constructor(readonly gpu: Gpu) {}

  upload(data: HostArray, label: string): Tensor {
    return this.keep(this.gpu.upload(data, [data.length], label));
  }

  tensor<D extends DType>(size: number, dtype: D, label: string): Tensor<D> {
    return this.keep(this.gpu.tensor([size], dtype, label));
  }

  read<D extends DType>(tensor: Tensor<D>): Promise<TypedArrayOf<D>> {
    return this.gpu.read(tensor);
  }

  destroy(): void {
    for (const t of this.owned) this.gpu.destroy(t);
    this.owned.length = 0;
  }

  private keep<T extends Tensor>(tensor: T): T {
    this.owned.push(tensor);
    return tensor;
  }
}

/** Runs `fn` with a fresh scope and destroys its tensors afterwards. */
export async function withScope<R>(gpu: Gpu, fn: (scope: TensorScope) => Promise<R>): Promise<R> {
  const scope = new TensorScope(gpu);
  try {
    return await fn(scope);
  } finally {
    scope.destroy();
  }
}
