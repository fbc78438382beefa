// safetensors, pure bytes in and out (huggingface/safetensors; docs/reliability.md §3.2):
//   [8-byte little-endian u64 N][N bytes of UTF-8 JSON header, space-padded to a multiple of 8][data]
//   header: {"__metadata__": {string: string}, "name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, …}
// Offsets are relative to the data start, end exclusive. Data is little-endian, C order.
//
// The writer lays tensors out like the reference implementation (descending dtype rank, then
// name; `__metadata__` first; compact JSON), so a file it writes is byte-identical to what
// `safetensors.torch.save_file` writes for the same tensors and one metadata key. The reader
// checks everything the reference checks (size caps, UTF-8, JSON, dtype, shape × dtype = span,
// offsets contiguous from 0 with no holes or overlaps, the last offset ending the file) and also
// refuses duplicate keys and unknown tensor fields, so a file cannot say two things at once.

import { InputError } from '../errors.ts';

/** Element types, in the reference implementation's order (ascending alignment); the writer sorts by it. */
export const SAFETENSORS_DTYPES = ['BOOL', 'U8', 'I8', 'F8_E5M2', 'F8_E4M3', 'I16', 'U16', 'F16', 'BF16', 'I32', 'U32', 'F32', 'F64', 'I64', 'U64'] as const;
export type SafetensorsDType = (typeof SAFETENSORS_DTYPES)[number];

export const DTYPE_BYTES: Record<SafetensorsDType, number> = {
  BOOL: 1,
  U8: 1,
  I8: 1,
  F8_E5M2: 1,
  F8_E4M3: 1,
  I16: 2,
  U16: 2,
  F16: 2,
  BF16: 2,
  I32: 4,
  U32: 4,
  F32: 4,
  F64: 8,
  I64: 8,
  U64: 8,
};

/** The reference implementation's header cap (100 MB): a larger header is refused before it is read. */
export const MAX_HEADER_BYTES = 100_000_000;

export type SafetensorsErrorKind =
  | 'HeaderTooSmall'
  | 'HeaderTooLarge'
  | 'InvalidHeaderLength'
  | 'InvalidHeader'
  | 'InvalidHeaderStart'
  | 'InvalidHeaderDeserialization'
  | 'DuplicateKey'
  | 'InvalidMetadata'
  | 'TensorInvalidInfo'
  | 'InvalidOffset'
  | 'MetadataIncompleteBuffer'
  | 'ValidationOverflow'
  | 'TensorNotFound';

/** A malformed safetensors file (or a tensor it lacks); `kind` mirrors the reference's error names. */
export class SafetensorsError extends InputError {
  constructor(
    readonly safetensorsKind: SafetensorsErrorKind,
    message: string,
  ) {
    super('safetensors', message);
    this.name = 'InputError';
  }
}

export type HostTensorData =
  | Float32Array
  | Float64Array
  | Int32Array
  | Uint32Array
  | Int16Array
  | Uint16Array
  | Int8Array
  | Uint8Array
  | BigInt64Array
  | BigUint64Array;

export interface TensorToWrite {
  /** Defaults from the array type (Float32Array → F32, …); Uint16Array data needs it for F16/BF16. */
  dtype?: SafetensorsDType;
  shape: readonly number[];
  data: HostTensorData;
}

export interface StoredTensor {
  dtype: SafetensorsDType;
  shape: number[];
  /** The tensor's bytes (a view into the file's bytes: no copy). */
  bytes: Uint8Array;
}

export interface SafetensorsFile {
  /** In file (offset) order. */
  tensors: Map<string, StoredTensor>;
  metadata: Record<string, string>;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function requireLittleEndian(): void {
  // Typed arrays use the platform's byte order; every platform WebGPU runs on is little-endian.
  if (!LITTLE_ENDIAN) throw new Error('safetensors: this platform is big-endian, which Horizon does not support');
}

function defaultDType(data: HostTensorData): SafetensorsDType {
  if (data instanceof Float32Array) return 'F32';
  if (data instanceof Float64Array) return 'F64';
  if (data instanceof Int32Array) return 'I32';
  if (data instanceof Uint32Array) return 'U32';
  if (data instanceof Int16Array) return 'I16';
  if (data instanceof Uint16Array) return 'U16';
  if (data instanceof Int8Array) return 'I8';
  if (data instanceof Uint8Array) return 'U8';
  if (data instanceof BigInt64Array) return 'I64';
  return 'U64';
}

function elementCount(shape: readonly number[], name: string): number {
  let n = 1;
  for (const d of shape) {
    if (!Number.isSafeInteger(d) || d < 0) throw new RangeError(`tensor "${name}": shape entries must be non-negative integers, got [${shape.join(', ')}]`);
    n *= d;
  }
  return n;
}

const rank = (d: SafetensorsDType) => SAFETENSORS_DTYPES.indexOf(d);
/** The reference implementation's tensor order: descending dtype rank, then name. */
const rankOrder = (a: { dtype: SafetensorsDType; name: string }, b: { dtype: SafetensorsDType; name: string }) =>
  rank(b.dtype) - rank(a.dtype) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export interface TensorLayoutEntry {
  name: string;
  dtype: SafetensorsDType;
  shape: readonly number[];
  bytes: number;
}

/**
 * Sets an own enumerable property. Plain assignment of the key `__proto__` sets an object's
 * prototype instead, so a tensor or metadata key of that name would vanish from the file or from
 * what the reader returns; JSON.parse and JSON.stringify treat it as an ordinary key.
 */
function setOwn<V>(target: Record<string, V>, key: string, value: V): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The padded header JSON the writer puts before the data, and the data's length, for tensors of these sizes. */
export function safetensorsHeader(tensors: readonly TensorLayoutEntry[], metadata?: Readonly<Record<string, string>>): { json: Uint8Array; dataBytes: number } {
  const entries = [...tensors].sort(rankOrder);
  const header: Record<string, unknown> = {};
  if (metadata !== undefined) {
    const meta: Record<string, string> = {};
    for (const key of Object.keys(metadata).sort()) {
      if (typeof metadata[key] !== 'string') throw new RangeError(`safetensors metadata "${key}" must be a string`);
      setOwn(meta, key, metadata[key]);
    }
    header.__metadata__ = meta;
  }
  let offset = 0;
  for (const e of entries) {
    setOwn(header, e.name, { dtype: e.dtype, shape: [...e.shape], data_offsets: [offset, offset + e.bytes] });
    offset += e.bytes;
  }
  let json = new TextEncoder().encode(JSON.stringify(header));
  const pad = (8 - (json.length % 8)) % 8;
  if (pad > 0) {
    const padded = new Uint8Array(json.length + pad).fill(0x20);
    padded.set(json);
    json = padded;
  }
  return { json, dataBytes: offset };
}

/** The exact length of the file encodeSafetensors writes for tensors of these sizes, without building it. */
export function safetensorsByteLength(tensors: readonly TensorLayoutEntry[], metadata?: Readonly<Record<string, string>>): number {
  const { json, dataBytes } = safetensorsHeader(tensors, metadata);
  return 8 + json.length + dataBytes;
}

/** Serialises tensors (and optional string metadata) to safetensors bytes. */
export function encodeSafetensors(tensors: Readonly<Record<string, TensorToWrite>>, metadata?: Readonly<Record<string, string>>): Uint8Array {
  requireLittleEndian();
  const entries = Object.entries(tensors).map(([name, t]) => {
    if (name === '__metadata__') throw new RangeError('a tensor may not be named "__metadata__"');
    const dtype = t.dtype ?? defaultDType(t.data);
    if (!SAFETENSORS_DTYPES.includes(dtype)) throw new RangeError(`tensor "${name}": unknown dtype "${dtype}"`);
    const bytes = new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
    const expected = elementCount(t.shape, name) * DTYPE_BYTES[dtype];
    if (bytes.length !== expected)
      throw new RangeError(`tensor "${name}": ${bytes.length} data bytes do not match shape [${t.shape.join(', ')}] of ${dtype} (${expected} bytes)`);
    return { name, dtype, shape: [...t.shape], bytes };
  });
  const { json, dataBytes: offset } = safetensorsHeader(
    entries.map((e) => ({ name: e.name, dtype: e.dtype, shape: e.shape, bytes: e.bytes.length })),
    metadata,
  );
  entries.sort((a, b) => rankOrder(a, b));
  const out = new Uint8Array(8 + json.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  let at = 8 + json.length;
  for (const e of entries) {
    out.set(e.bytes, at);
    at += e.bytes.length;
  }
  return out;
}

/** The keys of the top-level JSON object, in order, duplicates included (JSON.parse keeps only the last). */
function topLevelKeys(json: string): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json[i];
    if (c === '"') {
      let j = i + 1;
      while (json[j] !== '"') j += json[j] === '\\' ? 2 : 1;
      if (depth === 1) {
        let k = j + 1;
        while (k < json.length && /\s/.test(json[k])) k++;
        if (json[k] === ':') keys.push(JSON.parse(json.slice(i, j + 1)));
      }
      i = j;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
  }
  return keys;
}

const fail = (kind: SafetensorsErrorKind, message: string): never => {
  throw new SafetensorsError(kind, message);
};

/** Parses and validates safetensors bytes; throws a SafetensorsError describing the first problem. */
export function decodeSafetensors(bytes: Uint8Array, options: { maxHeaderBytes?: number } = {}): SafetensorsFile {
  requireLittleEndian();
  const maxHeader = options.maxHeaderBytes ?? MAX_HEADER_BYTES;
  if (bytes.length < 8) fail('HeaderTooSmall', `the file has ${bytes.length} bytes, fewer than the 8-byte header length`);
  const n64 = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getBigUint64(0, true);
  if (n64 > BigInt(maxHeader)) fail('HeaderTooLarge', `the header claims ${n64} bytes, more than the ${maxHeader}-byte limit`);
  const n = Number(n64);
  if (8 + n > bytes.length) fail('InvalidHeaderLength', `the header claims ${n} bytes but only ${bytes.length - 8} follow the length`);
  let text = '';
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + n));
  } catch {
    fail('InvalidHeader', 'the header is not valid UTF-8');
  }
  if (!text.startsWith('{')) fail('InvalidHeaderStart', 'the header does not start with "{"');
  let header: unknown;
  try {
    header = JSON.parse(text);
  } catch {
    fail('InvalidHeaderDeserialization', 'the header is not valid JSON');
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) return fail('InvalidHeaderDeserialization', 'the header is not a JSON object');
  const keys = topLevelKeys(text);
  const seen = new Set<string>();
  for (const k of keys) {
    if (seen.has(k)) fail('DuplicateKey', `the header names "${k}" twice`);
    seen.add(k);
  }
  const metadata: Record<string, string> = {};
  const infos: { name: string; dtype: SafetensorsDType; shape: number[]; begin: number; end: number }[] = [];
  for (const name of keys) {
    const value = (header as Record<string, unknown>)[name];
    if (name === '__metadata__') {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('InvalidMetadata', '__metadata__ must be an object of strings');
      for (const [k, v] of Object.entries(value as object)) {
        if (typeof v !== 'string') fail('InvalidMetadata', `__metadata__ "${k}" must be a string, got ${JSON.stringify(v)}`);
        setOwn(metadata, k, v);
      }
      continue;
    }
    const bad = (why: string) => fail('TensorInvalidInfo', `tensor "${name}": ${why}`);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) bad('its entry is not an object');
    const info = value as Record<string, unknown>;
    const extra = Object.keys(info).filter((k) => k !== 'dtype' && k !== 'shape' && k !== 'data_offsets');
    if (extra.length > 0) bad(`unknown field "${extra[0]}"`);
    const dtype = info.dtype as SafetensorsDType;
    if (!SAFETENSORS_DTYPES.includes(dtype)) bad(`unknown dtype ${JSON.stringify(info.dtype)}`);
    const shape = info.shape;
    if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0)) bad('shape must be an array of non-negative integers');
    const offsets = info.data_offsets;
    if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((o) => Number.isSafeInteger(o) && o >= 0))
      bad('data_offsets must be two non-negative integers');
    const [begin, end] = offsets as number[];
    if (end < begin) fail('InvalidOffset', `tensor "${name}": data_offsets end ${end} is before begin ${begin}`);
    let elements = 1;
    for (const d of shape as number[]) {
      elements *= d;
      if (!Number.isSafeInteger(elements)) fail('ValidationOverflow', `tensor "${name}": shape [${(shape as number[]).join(', ')}] overflows`);
    }
    const span = elements * DTYPE_BYTES[dtype];
    if (!Number.isSafeInteger(span)) fail('ValidationOverflow', `tensor "${name}": shape × dtype size overflows`);
    if (end - begin !== span) bad(`shape [${(shape as number[]).join(', ')}] of ${dtype} needs ${span} bytes but data_offsets span ${end - begin}`);
    infos.push({ name, dtype, shape: shape as number[], begin, end });
  }
  infos.sort((a, b) => a.begin - b.begin || a.end - b.end);
  const dataStart = 8 + n;
  const dataLength = bytes.length - dataStart;
  let cursor = 0;
  const tensors = new Map<string, StoredTensor>();
  for (const t of infos) {
    if (t.begin !== cursor)
      fail('InvalidOffset', `tensor "${t.name}" starts at ${t.begin} but the previous data ends at ${cursor} (${t.begin > cursor ? 'a hole' : 'an overlap'})`);
    if (t.end > dataLength) fail('MetadataIncompleteBuffer', `tensor "${t.name}" ends at ${t.end}, past the ${dataLength} data bytes`);
    cursor = t.end;
    tensors.set(t.name, { dtype: t.dtype, shape: t.shape, bytes: bytes.subarray(dataStart + t.begin, dataStart + t.end) });
  }
  if (cursor !== dataLength) fail('MetadataIncompleteBuffer', `the tensors cover ${cursor} of the ${dataLength} data bytes`);
  return { tensors, metadata };
}

/** A tensor's bytes as a typed array of its dtype (copied when the bytes are not aligned for it). */
export function tensorValues(tensor: StoredTensor): HostTensorData {
  const { bytes, dtype } = tensor;
  const size = DTYPE_BYTES[dtype];
  const aligned = bytes.byteOffset % size === 0 ? bytes : bytes.slice();
  const { buffer, byteOffset } = aligned;
  const count = bytes.length / size;
  switch (dtype) {
    case 'F32':
      return new Float32Array(buffer, byteOffset, count);
    case 'F64':
      return new Float64Array(buffer, byteOffset, count);
    case 'I32':
      return new Int32Array(buffer, byteOffset, count);
    case 'U32':
      return new Uint32Array(buffer, byteOffset, count);
    case 'I16':
      return new Int16Array(buffer, byteOffset, count);
    case 'U16':
    case 'F16':
    case 'BF16':
      return new Uint16Array(buffer, byteOffset, count);
    case 'I8':
      return new Int8Array(buffer, byteOffset, count);
    case 'I64':
      return new BigInt64Array(buffer, byteOffset, count);
    case 'U64':
      return new BigUint64Array(buffer, byteOffset, count);
    default:
      return new Uint8Array(buffer, byteOffset, count);
  }
}

/** The named F32 tensor as a Float32Array, checking its dtype and (optionally) its shape. */
export function readF32(file: SafetensorsFile, name: string, shape?: readonly number[]): Float32Array {
  const t = file.tensors.get(name);
  if (!t) return fail('TensorNotFound', `tensor "${name}" is missing`);
  if (t.dtype !== 'F32') fail('TensorInvalidInfo', `tensor "${name}" is ${t.dtype}, expected F32`);
  if (shape && (shape.length !== t.shape.length || shape.some((d, i) => d !== t.shape[i])))
    fail('TensorInvalidInfo', `tensor "${name}" has shape [${t.shape.join(', ')}], expected [${shape.join(', ')}]`);
  return tensorValues(t) as Float32Array;
}
