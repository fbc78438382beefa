import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isInputError } from '../errors.ts';
import {
  DTYPE_BYTES,
  decodeSafetensors,
  encodeSafetensors,
  readF32,
  SAFETENSORS_DTYPES,
  type SafetensorsDType,
  SafetensorsError,
  type SafetensorsErrorKind,
  tensorValues,
} from './safetensors.ts';

const utf8 = (s: string) => new TextEncoder().encode(s);
const le64 = (n: number) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n), true);
  return b;
};
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const f32Bytes = (xs: number[]) => new Uint8Array(Float32Array.from(xs).buffer);
/** A file from a header string (padded to 8 like the spec's writer) and raw data. */
const file = (header: string, data: Uint8Array = new Uint8Array(0)) => {
  const h = utf8(header + ' '.repeat((8 - (utf8(header).length % 8)) % 8));
  return concat(le64(h.length), h, data);
};

function kindOf(f: () => unknown): SafetensorsErrorKind {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(SafetensorsError);
    expect(isInputError(error)).toBe(true);
    return (error as SafetensorsError).safetensorsKind;
  }
  throw new Error('expected a SafetensorsError, got none');
}

describe('safetensors writer: byte-exact against the spec', () => {
  it('one F32 tensor: 8-byte LE length, compact JSON header, raw little-endian floats', () => {
    const out = encodeSafetensors({ 'attn.0': { shape: [1, 2, 3], data: Float32Array.from([0, 1, 2, 3, 4, 5]) } });
    const header = '{"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}}';
    expect(utf8(header).length).toBe(64); // already a multiple of 8: no padding
    expect(out).toEqual(concat(le64(64), utf8(header), f32Bytes([0, 1, 2, 3, 4, 5])));
    // 1.0f32 is 00 00 80 3f little-endian, as the spec's example shows.
    expect([...out.subarray(8 + 64 + 4, 8 + 64 + 8)]).toEqual([0, 0, 0x80, 0x3f]);
  });

  it('pads the header with spaces to a multiple of 8 so data is aligned', () => {
    const out = encodeSafetensors({ attn0: { shape: [1, 1, 2, 3], data: Float32Array.from([0, 1, 2, 3, 4, 5]) } });
    const header = '{"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}}';
    expect(utf8(header).length).toBe(65);
    expect(out).toEqual(concat(le64(72), utf8(`${header}       `), f32Bytes([0, 1, 2, 3, 4, 5])));
  });

  it('empty file and metadata-only file', () => {
    expect(encodeSafetensors({})).toEqual(concat(le64(8), utf8('{}      ')));
    expect(encodeSafetensors({}, { framework: 'pt' })).toEqual(concat(le64(40), utf8('{"__metadata__":{"framework":"pt"}}     ')));
  });

  it('orders data by descending dtype alignment, then name; __metadata__ first, keys sorted', () => {
    const out = encodeSafetensors(
      {
        b: { shape: [2], data: Uint8Array.from([7, 8]) },
        a: { shape: [1], data: Float32Array.from([1]) },
        c: { shape: [1], data: Float64Array.from([2]) },
        aa: { shape: [], data: Float32Array.from([3]) },
      },
      { z: '1', a: '2' },
    );
    const { tensors, metadata } = decodeSafetensors(out);
    expect([...tensors.keys()]).toEqual(['c', 'a', 'aa', 'b']);
    expect(Object.keys(metadata)).toEqual(['a', 'z']);
    const n = Number(new DataView(out.buffer).getBigUint64(0, true));
    expect(new TextDecoder().decode(out.subarray(8, 8 + n)).trimEnd()).toBe(
      '{"__metadata__":{"a":"2","z":"1"},"c":{"dtype":"F64","shape":[1],"data_offsets":[0,8]},"a":{"dtype":"F32","shape":[1],"data_offsets":[8,12]},"aa":{"dtype":"F32","shape":[],"data_offsets":[12,16]},"b":{"dtype":"U8","shape":[2],"data_offsets":[16,18]}}',
    );
  });

  it('refuses data that does not match its shape, and a tensor named __metadata__', () => {
    expect(() => encodeSafetensors({ w: { shape: [2, 2], data: new Float32Array(3) } })).toThrow(
      /12 data bytes do not match shape \[2, 2\] of F32 \(16 bytes\)/,
    );
    expect(() => encodeSafetensors({ __metadata__: { shape: [1], data: new Float32Array(1) } })).toThrow(/may not be named "__metadata__"/);
    expect(() => encodeSafetensors({ w: { shape: [-1], data: new Float32Array(0) } })).toThrow(/non-negative integers/);
  });

  it('keeps a tensor and a metadata key named __proto__ (assignment would set the prototype and drop them)', () => {
    const tensors = Object.fromEntries([['__proto__', { shape: [1], data: new Float32Array([2]) }]]);
    const meta = Object.fromEntries([['__proto__', 'kept']]);
    const bytes = encodeSafetensors(tensors, meta);
    const back = decodeSafetensors(bytes);
    expect(Object.entries(back.metadata)).toEqual([['__proto__', 'kept']]);
    expect([...back.tensors.keys()]).toEqual(['__proto__']);
    expect(back.tensors.get('__proto__')!.bytes).toEqual(f32Bytes([2]));
  });
});

describe('safetensors round trip', () => {
  const dtypes = ['F32', 'F64', 'I32', 'U32', 'I16', 'U16', 'F16', 'BF16', 'I8', 'U8', 'BOOL', 'I64', 'U64'] as const;
  const tensor = fc.record({
    dtype: fc.constantFrom(...dtypes),
    shape: fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 3 }),
    seed: fc.integer({ min: 0, max: 255 }),
  });
  const build = (spec: { dtype: SafetensorsDType; shape: number[]; seed: number }) => {
    const n = spec.shape.reduce((a, b) => a * b, 1);
    const bytes = Uint8Array.from({ length: n * DTYPE_BYTES[spec.dtype] }, (_, i) => (i * 31 + spec.seed) & 255);
    return { dtype: spec.dtype, shape: spec.shape, data: bytes };
  };

  it('decode(encode(x)) gives back every tensor, aligned, for all dtypes, empty and 0-rank shapes', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), tensor, { maxKeys: 6 }),
        fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
        (specs, meta) => {
          delete specs.__metadata__;
          const tensors = Object.fromEntries(Object.entries(specs).map(([k, s]) => [k, build(s)]));
          const bytes = encodeSafetensors(tensors, meta);
          expect(encodeSafetensors(tensors, meta)).toEqual(bytes);
          const n = Number(new DataView(bytes.buffer).getBigUint64(0, true));
          expect(n % 8).toBe(0);
          const back = decodeSafetensors(bytes);
          expect(back.metadata).toEqual(meta);
          expect([...back.tensors.keys()].sort()).toEqual(Object.keys(tensors).sort());
          for (const [name, t] of Object.entries(tensors)) {
            const got = back.tensors.get(name)!;
            expect(got.dtype).toBe(t.dtype);
            expect(got.shape).toEqual(t.shape);
            expect(got.bytes).toEqual(t.data);
            expect((got.bytes.byteOffset - 8 - n) % DTYPE_BYTES[t.dtype]).toBe(0);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reads F32 values back as numbers, also from an unaligned buffer', () => {
    const bytes = encodeSafetensors({
      w: { shape: [2, 2], data: Float32Array.from([1.5, -2, 3.25, 1e-7]) },
      i: { shape: [2], data: BigInt64Array.from([-1n, 2n ** 40n]) },
    });
    const shifted = new Uint8Array(bytes.length + 1).subarray(1);
    shifted.set(bytes);
    for (const b of [bytes, shifted]) {
      const f = decodeSafetensors(b);
      expect([...readF32(f, 'w', [2, 2])]).toEqual([...Float32Array.from([1.5, -2, 3.25, 1e-7])]);
      expect([...(tensorValues(f.tensors.get('i')!) as BigInt64Array)]).toEqual([-1n, 2n ** 40n]);
    }
    const f = decodeSafetensors(bytes);
    expect(kindOf(() => readF32(f, 'missing'))).toBe('TensorNotFound');
    expect(kindOf(() => readF32(f, 'i'))).toBe('TensorInvalidInfo');
    expect(() => readF32(f, 'w', [4])).toThrow(/tensor "w" has shape \[2, 2\], expected \[4\]/);
  });
});

describe('safetensors reader refuses malformed files', () => {
  const data8 = f32Bytes([1, 2]);
  const ok = '{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}';

  it('accepts the well-formed control file', () => {
    expect(decodeSafetensors(file(ok, data8)).tensors.get('w')?.shape).toEqual([2]);
  });

  it.each<[string, () => Uint8Array, SafetensorsErrorKind]>([
    ['fewer than 8 bytes', () => new Uint8Array(5), 'HeaderTooSmall'],
    ['a header length over the cap', () => concat(le64(2 ** 40), utf8('{}')), 'HeaderTooLarge'],
    ['a header length past the end', () => concat(le64(100), utf8('{}')), 'InvalidHeaderLength'],
    ['a header that is not UTF-8', () => concat(le64(8), Uint8Array.from([0x7b, 0xff, 0xfe, 0x7d, 32, 32, 32, 32])), 'InvalidHeader'],
    ['a header not starting with {', () => concat(le64(8), utf8(' {}     ')), 'InvalidHeaderStart'],
    ['a header that is not JSON', () => file('{"w":', data8), 'InvalidHeaderDeserialization'],
    ['a header that is a JSON array', () => file('[1,2]'), 'InvalidHeaderStart'],
    [
      'a duplicate tensor name',
      () => file('{"w":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"w":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}', new Uint8Array(2)),
      'DuplicateKey',
    ],
    ['non-string metadata', () => file('{"__metadata__":{"step":3}}'), 'InvalidMetadata'],
    ['an unknown dtype', () => file('{"w":{"dtype":"F128","shape":[1],"data_offsets":[0,16]}}', new Uint8Array(16)), 'TensorInvalidInfo'],
    ['an unknown tensor field', () => file('{"w":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"stride":[1]}}', new Uint8Array(1)), 'TensorInvalidInfo'],
    ['a negative dimension', () => file('{"w":{"dtype":"U8","shape":[-1],"data_offsets":[0,1]}}', new Uint8Array(1)), 'TensorInvalidInfo'],
    ['shape × dtype not matching the span', () => file('{"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}', data8), 'TensorInvalidInfo'],
    ['end before begin', () => file('{"w":{"dtype":"U8","shape":[0],"data_offsets":[4,0]}}', new Uint8Array(4)), 'InvalidOffset'],
    [
      'overlapping tensors',
      () => file('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}', data8),
      'InvalidOffset',
    ],
    ['a hole before the first tensor', () => file('{"w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}', data8), 'InvalidOffset'],
    ['trailing bytes no tensor covers (a polyglot file)', () => file(ok, concat(data8, utf8('<html>'))), 'MetadataIncompleteBuffer'],
    ['truncated data', () => file(ok, data8.subarray(0, 6)), 'MetadataIncompleteBuffer'],
    [
      'a shape whose size overflows',
      () => file('{"w":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,8]}}', new Uint8Array(8)),
      'ValidationOverflow',
    ],
  ])('%s', (_, make, kind) => {
    expect(kindOf(() => decodeSafetensors(make()))).toBe(kind);
  });

  it('honours a smaller header cap without reading the header', () => {
    expect(kindOf(() => decodeSafetensors(file(ok, data8), { maxHeaderBytes: 16 }))).toBe('HeaderTooLarge');
  });

  it('messages name the tensor and the numbers', () => {
    expect(() => decodeSafetensors(file('{"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}', data8))).toThrow(
      'tensor "w": shape [3] of F32 needs 12 bytes but data_offsets span 8',
    );
  });

  it('fuzz: random bytes, truncations and bit flips only ever throw SafetensorsError', () => {
    const valid = encodeSafetensors(
      { a: { shape: [3], data: Float32Array.from([1, 2, 3]) }, b: { shape: [2], data: Int32Array.from([4, 5]) } },
      { format: 'pt' },
    );
    const mutated = fc.oneof(
      fc.uint8Array({ maxLength: 200 }),
      fc.integer({ min: 0, max: valid.length }).map((n) => valid.slice(0, n)),
      fc.tuple(fc.integer({ min: 0, max: valid.length - 1 }), fc.integer({ min: 1, max: 255 })).map(([i, x]) => {
        const b = valid.slice();
        b[i] ^= x;
        return b;
      }),
    );
    fc.assert(
      fc.property(mutated, (bytes) => {
        try {
          decodeSafetensors(bytes);
        } catch (error) {
          if (!(error instanceof SafetensorsError)) throw error;
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('every dtype the reader accepts has a byte size', () => {
    for (const d of SAFETENSORS_DTYPES) expect(DTYPE_BYTES[d]).toBeGreaterThan(0);
  });
});
