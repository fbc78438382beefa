// Typed GPU errors. Each carries one sentence a person can act on (`remedy`), so front ends can
// print it instead of a stack trace (docs/conventions.md §11).

export type GpuErrorKind = 'no-webgpu' | 'no-adapter' | 'device-refused' | 'device-lost' | 'validation';

export class GpuError extends Error {
  constructor(
    readonly kind: GpuErrorKind,
    message: string,
    /** What to do about it, in one sentence. */
    readonly remedy: string,
    options?: { cause?: unknown },
  ) {
    super(`${message} ${remedy}`, options);
    this.name = 'GpuError';
  }
}

export function isGpuError(error: unknown): error is GpuError {
  return error instanceof GpuError;
}
