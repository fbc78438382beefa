// The GPU runtime every kernel launches through: tensors, cached pipelines and bind groups,
// content-addressed uniform buffers, a recorder that puts a whole step into one command encoder and
// one compute pass, and readback through a pool of staging buffers. It counts dispatches, submits,
// uploads and readbacks (with their bytes) so benchmarks and the trainer's perf/ metrics can report
// the host↔GPU traffic of a phase as the difference of two snapshots.

import { GpuError } from './errors.ts';
import type { DeviceReport } from './report.ts';
import { type DType, dtypeOf, elementCount, type HostArray, Tensor, type TypedArrayOf, viewAs } from './tensor.ts';

export interface GpuStats {
  dispatches: number;
  /** Command buffers submitted, the copies a readback submits included. */
  submits: number;
  /** `queue.writeBuffer` calls (tensor writes and new uniform buffers) and the bytes they carried. */
  uploads: number;
  uploadBytes: number;
  /** Round trips back to the host (one per `read` or `readMany`, however many tensors) and the bytes mapped. */
  readbacks: number;
  readbackBytes: number;
  pipelinesCompiled: number;
  /** Storage buffers made by `tensor`/`upload` and not yet destroyed, and their bytes (views share their base's). */
  liveTensors: number;
  liveTensorBytes: number;
  /** The most liveTensorBytes reached since the Gpu was made or `resetPeakTensorBytes` last ran. */
  peakTensorBytes: number;
}

/** A binding is a tensor (storage) or a raw buffer (uniform or storage, as the shader declares). */
export type Binding = Tensor | GPUBuffer;

const STORAGE_USAGE = () => GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST;
const BIND_GROUP_CACHE_LIMIT = 8192;
const UNIFORM_CACHE_LIMIT = 4096;

export class Gpu {
  readonly stats: GpuStats = {
    dispatches: 0,
    submits: 0,
    uploads: 0,
    uploadBytes: 0,
    readbacks: 0,
    readbackBytes: 0,
    pipelinesCompiled: 0,
    liveTensors: 0,
    liveTensorBytes: 0,
    peakTensorBytes: 0,
  };
  /** Each live storage buffer's size, for liveTensors/liveTensorBytes (a buffer destroyed twice counts once). */
  private readonly liveSizes = new Map<GPUBuffer, number>();
  /** By entry point, then by WGSL source: a launch site passing the same string pays no rehash. */
  private readonly pipelines = new Map<string, Map<string, GPUComputePipeline>>();
  private readonly pipelineIds = new WeakMap<GPUComputePipeline, number>();
  private readonly bufferIds = new WeakMap<GPUBuffer, number>();
  private readonly bindGroups = new Map<string, GPUBindGroup>();
  private readonly uniforms = new Map<string, GPUBuffer>();
  private readonly stagingPool = new Map<number, GPUBuffer[]>();
  private nextId = 1;
  private lost: GPUDeviceLostInfo | undefined;
  private firstError: GPUError | undefined;

  constructor(
    readonly device: GPUDevice,
    readonly report: DeviceReport,
    /**
     * The object the device came from. Dawn for Node stops processing GPU events once its instance is
     * garbage-collected (mapAsync then never resolves, or the process crashes), so the runtime holds it
     * until `destroyDevice`.
     */
    // biome-ignore lint/correctness/noUnusedPrivateClassMembers: held only to keep Dawn's instance alive.
    private instance?: unknown,
  ) {
    device.lost.then((info) => {
      this.lost = info;
    });
    device.addEventListener('uncapturederror', (event) => {
      this.firstError ??= (event as GPUUncapturedErrorEvent).error;
    });
  }

  // ---- tensors -------------------------------------------------------------------------------

  /** A zero-filled tensor. */
  tensor<D extends DType = 'f32'>(shape: readonly number[], dtype: D = 'f32' as D, label = 'tensor'): Tensor<D> {
    for (const d of shape) {
      if (!Number.isInteger(d) || d < 0) throw new RangeError(`${label}: shape [${shape.join(', ')}] must hold non-negative integers`);
    }
    // WebGPU rejects zero-sized bindings; an empty tensor still gets 4 bytes of storage.
    const size = Math.max(4, elementCount(shape) * 4);
    const bytes = alignTo(size, 4);
    const buffer = this.device.createBuffer({ label, size: bytes, usage: STORAGE_USAGE() });
    this.liveSizes.set(buffer, bytes);
    this.stats.liveTensors++;
    this.stats.liveTensorBytes += bytes;
    this.stats.peakTensorBytes = Math.max(this.stats.peakTensorBytes, this.stats.liveTensorBytes);
    return new Tensor(buffer, [...shape], dtype, label);
  }

  /** A tensor holding `data`. */
  upload<A extends HostArray>(data: A, shape: readonly number[] = [data.length], label = 'tensor'): Tensor {
    if (elementCount(shape) !== data.length) {
      throw new RangeError(`${label}: ${data.length} values do not fill shape [${shape.join(', ')}]`);
    }
    const tensor = this.tensor(shape, dtypeOf(data), label);
    this.write(tensor, data);
    return tensor;
  }

  write(tensor: Tensor, data: HostArray, elementOffset = 0): void {
    if (elementOffset + data.length > tensor.size) {
      throw new RangeError(`${tensor.label}: writing ${data.length} values at ${elementOffset} overruns ${tensor.size}`);
    }
    if (data.length === 0) return;
    this.device.queue.writeBuffer(tensor.buffer, tensor.byteOffset + elementOffset * 4, data.buffer, data.byteOffset, data.byteLength);
    this.countUpload(data.byteLength);
  }

  /**
   * A tensor that aliases `size(shape)` elements of `base` starting at `elementOffset`, e.g. one
   * parameter inside a model's flat parameter buffer. WebGPU binds storage at multiples of
   * `minStorageBufferOffsetAlignment` bytes (256 on most devices), so the offset must be a multiple
   * of `viewAlignment` elements.
   */
  view<D extends DType>(base: Tensor<D>, elementOffset: number, shape: readonly number[], label = `${base.label}[${elementOffset}…]`): Tensor<D> {
    if (elementOffset % this.viewAlignment !== 0) {
      throw new RangeError(`${label}: a view must start at a multiple of ${this.viewAlignment} elements, not ${elementOffset}`);
    }
    if (elementOffset + elementCount(shape) > base.size) {
      throw new RangeError(`${label}: [${shape.join(', ')}] at ${elementOffset} runs past the end of ${base}`);
    }
    return new Tensor(base.buffer, [...shape], base.dtype, label, base.byteOffset + elementOffset * 4);
  }

  /** Views must start at a multiple of this many 4-byte elements. */
  get viewAlignment(): number {
    return this.device.limits.minStorageBufferOffsetAlignment / 4;
  }

  /** Destroys the tensor's buffer (and with it every view into it). */
  destroy(tensor: Tensor): void {
    const bytes = this.liveSizes.get(tensor.buffer);
    if (bytes !== undefined) {
      this.liveSizes.delete(tensor.buffer);
      this.stats.liveTensors--;
      this.stats.liveTensorBytes -= bytes;
    }
    tensor.buffer.destroy();
  }

  /** Starts a new peak window at the bytes live now, so a caller can measure one phase's high-water mark. */
  resetPeakTensorBytes(): void {
    this.stats.peakTensorBytes = this.stats.liveTensorBytes;
  }

  // ---- shaders -------------------------------------------------------------------------------

  /** A compute pipeline for `wgsl`, compiled once per distinct source. All bindings live in group 0. */
  pipeline(wgsl: string, entryPoint = 'main', label = entryPoint): GPUComputePipeline {
    let byWgsl = this.pipelines.get(entryPoint);
    if (!byWgsl) {
      byWgsl = new Map();
      this.pipelines.set(entryPoint, byWgsl);
    }
    let pipeline = byWgsl.get(wgsl);
    if (!pipeline) {
      const module = this.device.createShaderModule({ label, code: wgsl });
      pipeline = this.device.createComputePipeline({ label, layout: 'auto', compute: { module, entryPoint } });
      byWgsl.set(wgsl, pipeline);
      this.pipelineIds.set(pipeline, this.nextId++);
      this.stats.pipelinesCompiled++;
    }
    return pipeline;
  }

  /**
   * A uniform buffer holding these 32-bit words. Content-addressed: launch sites with the same
   * parameters share one buffer, and a training step's uniforms are written once, not every step.
   * Values that change every step belong in a storage tensor written with `write` instead.
   */
  uniform(words: readonly number[] | Uint32Array | Float32Array | Int32Array): GPUBuffer {
    const bytes = toUniformBytes(words);
    const key = Array.from(new Uint32Array(bytes)).join(',');
    let buffer = this.uniforms.get(key);
    if (!buffer) {
      if (this.uniforms.size >= UNIFORM_CACHE_LIMIT) this.uniforms.clear();
      buffer = this.device.createBuffer({ label: 'uniform', size: bytes.byteLength, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
      this.device.queue.writeBuffer(buffer, 0, bytes);
      this.countUpload(bytes.byteLength);
      this.uniforms.set(key, buffer);
    }
    return buffer;
  }

  bindGroup(pipeline: GPUComputePipeline, bindings: readonly Binding[]): GPUBindGroup {
    let key = String(this.pipelineIds.get(pipeline));
    for (const b of bindings) key += b instanceof Tensor ? `,${this.idOf(b.buffer)}@${b.byteOffset}+${b.size}` : `,${this.idOf(b)}`;
    let group = this.bindGroups.get(key);
    if (!group) {
      if (this.bindGroups.size >= BIND_GROUP_CACHE_LIMIT) this.bindGroups.delete(this.bindGroups.keys().next().value as string);
      group = this.device.createBindGroup({
        layout: pipeline.getBindGroupLayout(0),
        entries: bindings.map((b, binding) => ({
          binding,
          resource: b instanceof Tensor ? { buffer: b.buffer, offset: b.byteOffset, size: Math.max(4, b.byteLength) } : { buffer: b },
        })),
      });
      this.bindGroups.set(key, group);
    }
    return group;
  }

  // ---- recording and submission --------------------------------------------------------------

  /** Starts recording; everything recorded goes into one command buffer at `submit`. */
  begin(label = 'step'): Recorder {
    this.throwIfBroken();
    return new Recorder(this, this.device.createCommandEncoder({ label }));
  }

  submit(recorder: Recorder): void {
    this.device.queue.submit([recorder.finish()]);
    this.stats.submits++;
  }

  /** Records with `fn` and submits at once. */
  run(fn: (rec: Recorder) => void, label = 'step'): void {
    const rec = this.begin(label);
    fn(rec);
    this.submit(rec);
  }

  /** Copies the tensor back to the host. Waits for all submitted work that writes it. */
  async read<D extends DType>(tensor: Tensor<D>): Promise<TypedArrayOf<D>> {
    return (await this.readMany([tensor]))[0] as TypedArrayOf<D>;
  }

  /**
   * Copies several tensors back with one submit (one staging buffer each), so a phase that needs a
   * few arrays pays one round trip, not one per array. Results are in the order given.
   */
  async readMany(tensors: readonly Tensor[]): Promise<HostArray[]> {
    this.throwIfBroken();
    const encoder = this.device.createCommandEncoder({ label: `read ${tensors.map((t) => t.label).join(', ')}` });
    const staged = tensors.map((tensor) => {
      const size = alignTo(Math.max(4, tensor.byteLength), 4);
      const staging = this.takeStaging(size);
      encoder.copyBufferToBuffer(tensor.buffer, tensor.byteOffset, staging, 0, size);
      return { tensor, size, staging };
    });
    this.device.queue.submit([encoder.finish()]);
    this.stats.submits++;
    this.stats.readbacks++;
    for (const { size } of staged) this.stats.readbackBytes += size;
    try {
      await Promise.all(staged.map(({ staging, size }) => staging.mapAsync(GPUMapMode.READ, 0, size)));
    } catch (cause) {
      this.throwIfBroken();
      const names = tensors.map((t) => t.label).join(', ');
      throw new GpuError('validation', `Reading ${names} back from the GPU failed.`, 'Run with a smaller configuration or check `horizon doctor`.', { cause });
    }
    const results = staged.map(({ tensor, size, staging }) => {
      const copy = staging.getMappedRange(0, size).slice(0, tensor.byteLength);
      staging.unmap();
      this.returnStaging(size, staging);
      return viewAs(tensor.dtype, copy) as HostArray;
    });
    this.throwIfBroken();
    return results;
  }

  /** Resolves when all submitted work has finished. */
  async sync(): Promise<void> {
    await this.device.queue.onSubmittedWorkDone();
    this.throwIfBroken();
  }

  /** Destroys the device and lets go of the instance (Dawn for Node keeps the process alive while it is held). */
  destroyDevice(): void {
    this.device.destroy();
    this.instance = undefined;
  }

  /** Throws a typed error if the device was lost or a shader or binding was rejected. */
  throwIfBroken(): void {
    if (this.lost && this.lost.reason !== 'destroyed') {
      throw new GpuError(
        'device-lost',
        `The GPU device was lost (${this.lost.message || this.lost.reason}).`,
        'Restart the run; it resumes from the last checkpoint, and a smaller model or batch keeps each dispatch short.',
      );
    }
    if (this.firstError) {
      const error = this.firstError;
      this.firstError = undefined;
      throw new GpuError(
        'validation',
        `The GPU rejected a command: ${error.message}`,
        'This is a bug in Horizon; please report it with `horizon doctor` output.',
      );
    }
  }

  private countUpload(bytes: number): void {
    this.stats.uploads++;
    this.stats.uploadBytes += bytes;
  }

  private idOf(buffer: GPUBuffer): number {
    let id = this.bufferIds.get(buffer);
    if (id === undefined) {
      id = this.nextId++;
      this.bufferIds.set(buffer, id);
    }
    return id;
  }

  private takeStaging(size: number): GPUBuffer {
    const pooled = this.stagingPool.get(size)?.pop();
    return pooled ?? this.device.createBuffer({ label: 'staging', size, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  }

  private returnStaging(size: number, buffer: GPUBuffer): void {
    const list = this.stagingPool.get(size) ?? [];
    if (list.length < 4) list.push(buffer);
    else buffer.destroy();
    this.stagingPool.set(size, list);
  }
}

/**
 * Records dispatches into one compute pass (each dispatch is its own synchronisation scope in
 * WebGPU, so a later dispatch sees an earlier one's writes). Copies end the pass and the next
 * dispatch opens a new one.
 */
export class Recorder {
  private pass: GPUComputePassEncoder | undefined;

  constructor(
    private readonly gpu: Gpu,
    readonly encoder: GPUCommandEncoder,
  ) {}

  dispatch(pipeline: GPUComputePipeline, bindings: readonly Binding[], x: number, y = 1, z = 1): void {
    if (x === 0 || y === 0 || z === 0) return;
    const limit = this.gpu.device.limits.maxComputeWorkgroupsPerDimension;
    if (x > limit || y > limit || z > limit) {
      throw new RangeError(`${pipeline.label}: ${x}×${y}×${z} workgroups exceed the device limit of ${limit} per dimension`);
    }
    this.pass ??= this.encoder.beginComputePass();
    this.pass.setPipeline(pipeline);
    this.pass.setBindGroup(0, this.gpu.bindGroup(pipeline, bindings));
    this.pass.dispatchWorkgroups(x, y, z);
    this.gpu.stats.dispatches++;
  }

  /** Copies `elements` values; WebGPU forbids copies within one buffer, so views of the same buffer are refused. */
  copy(source: Tensor, destination: Tensor, elements = Math.min(source.size, destination.size)): void {
    if (source.buffer === destination.buffer) throw new RangeError(`copy: ${source} and ${destination} share a buffer, which WebGPU does not allow`);
    this.endPass();
    this.encoder.copyBufferToBuffer(source.buffer, source.byteOffset, destination.buffer, destination.byteOffset, elements * 4);
  }

  /** Copies `elements` values from `source[sourceOffset…]` to `destination[destinationOffset…]` (element offsets). */
  copyRange(source: Tensor, sourceOffset: number, destination: Tensor, destinationOffset: number, elements: number): void {
    if (source.buffer === destination.buffer) throw new RangeError(`copyRange: ${source} and ${destination} share a buffer, which WebGPU does not allow`);
    if (sourceOffset + elements > source.size || destinationOffset + elements > destination.size) {
      throw new RangeError(`copyRange: ${elements} values from ${sourceOffset} of ${source} to ${destinationOffset} of ${destination} run past an end`);
    }
    this.endPass();
    this.encoder.copyBufferToBuffer(
      source.buffer,
      source.byteOffset + sourceOffset * 4,
      destination.buffer,
      destination.byteOffset + destinationOffset * 4,
      elements * 4,
    );
  }

  /** Sets the tensor to zeros (e.g. gradient buffers before a backward pass). */
  clear(tensor: Tensor): void {
    this.endPass();
    this.encoder.clearBuffer(tensor.buffer, tensor.byteOffset, alignTo(tensor.byteLength, 4));
  }

  finish(): GPUCommandBuffer {
    this.endPass();
    return this.encoder.finish();
  }

  private endPass(): void {
    this.pass?.end();
    this.pass = undefined;
  }
}

function alignTo(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}

/** Uniform buffers are at least 16 bytes and a multiple of 16 (WGSL struct alignment). */
function toUniformBytes(words: readonly number[] | Uint32Array | Float32Array | Int32Array): ArrayBuffer {
  const length = alignTo(Math.max(words.length, 4), 4);
  const bytes = new ArrayBuffer(length * 4);
  if (words instanceof Float32Array) new Float32Array(bytes).set(words);
  else if (words instanceof Int32Array) new Int32Array(bytes).set(words);
  else new Uint32Array(bytes).set(words as ArrayLike<number>);
  return bytes;
}
