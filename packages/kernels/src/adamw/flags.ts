// Which parameters AdamW decays and which it leaves frozen, as flags per 64-element block of the
// flat parameter buffer.
//
// Shapes:  n parameters;  flags: [⌈n / 64⌉] u32, bit FLAG_DECAY and bit FLAG_FROZEN
//
// Why blocks: every parameter starts at a multiple of 64 floats in the flat buffer (core's
// PARAMETER_ALIGNMENT, chosen for WebGPU's 256-byte view alignment), so a block never straddles
// two parameters, and "decay the ≥2-D weights, freeze the critic's attention" is a per-parameter
// choice. One u32 per 64 parameters costs 1.6% of the parameter memory, where a per-element mask
// would double it and a list of ranges would need a search per element. It needs nothing new at
// runtime: the flags are built once per model and uploaded once.

/** Elements per flag. Equal to core's PARAMETER_ALIGNMENT. */
export const FLAG_BLOCK = 64;
/** Apply decoupled weight decay (GPT-2 practice: weights with ≥ 2 dims, not biases or LayerNorm gains). */
export const FLAG_DECAY = 1;
/** Leave the parameter, its moments and its gradient's share of the global norm alone. */
export const FLAG_FROZEN = 2;

export interface FlagRange {
  /** First element; a multiple of FLAG_BLOCK. */
  offset: number;
  size: number;
  decay?: boolean;
  frozen?: boolean;
}

/** Flags for a flat buffer of `total` elements; blocks no range covers get 0 (trained, no decay). */
export function parameterFlags(total: number, ranges: readonly FlagRange[]): Uint32Array {
  if (!Number.isInteger(total) || total < 0) throw new RangeError(`parameterFlags: total must be a non-negative integer, got ${total}`);
  const flags = new Uint32Array(Math.ceil(total / FLAG_BLOCK));
  const owner = new Int32Array(flags.length).fill(-1);
  ranges.forEach((range, index) => {
    const { offset, size } = range;
    if (!Number.isInteger(offset) || offset < 0 || offset % FLAG_BLOCK !== 0) {
      throw new RangeError(`parameterFlags: ranges[${index}].offset must be a non-negative multiple of ${FLAG_BLOCK}, got ${offset}`);
    }
    if (!Number.isInteger(size) || size < 0 || offset + size > total) {
      throw new RangeError(`parameterFlags: ranges[${index}] (offset ${offset}, size ${size}) must lie within the ${total} elements`);
    }
    const value = (range.decay ? FLAG_DECAY : 0) | (range.frozen ? FLAG_FROZEN : 0);
    for (let block = offset / FLAG_BLOCK; block < Math.ceil((offset + size) / FLAG_BLOCK); block++) {
      if (owner[block] >= 0) throw new RangeError(`parameterFlags: ranges[${index}] overlaps ranges[${owner[block]}] in block ${block}`);
      owner[block] = index;
      flags[block] = value;
    }
  });
  return flags;
}
