// Per-episode seeds. Every episode gets its own u32 seed, computed from (run seed, stream, index)
// by a hash, so an episode's task never depends on how many random numbers earlier episodes drew,
// and resuming needs only the index of the next episode (the data cursor), not a generator state.

/** Independent seed streams. Evaluation streams ignore the run seed: every run scores the same problems. */
export const SEED_STREAM = { train: 1, sft: 2, heldOut: 3, ood: 4 } as const;
export type SeedStream = keyof typeof SEED_STREAM;

/** Fixed salt of the evaluation streams, so held-out and OOD sets are the same in every run. */
export const EVAL_SEED_SALT = 0x5eed_e7a1;

// murmur3's 32-bit finaliser: every input bit affects every output bit.
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Hashes any number of u32 words into one u32 seed (order-sensitive). */
export function mixSeed(...words: number[]): number {
  let h = 0x9e3779b9;
  for (const w of words) {
    if (!Number.isInteger(w) || w < 0 || w > 0xffffffff) throw new RangeError(`mixSeed: each word must be an integer in [0, 2^32), got ${w}`);
    h = fmix32((h ^ w) + 0x7f4a7c15);
  }
  return h;
}

/** The seed of episode `index` (0-based) of a stream. */
export function episodeSeed(runSeed: number, stream: SeedStream, index: number): number {
  if (!Number.isInteger(index) || index < 0) throw new RangeError(`episodeSeed: index must be a non-negative integer, got ${index}`);
  const base = stream === 'heldOut' || stream === 'ood' ? EVAL_SEED_SALT : runSeed;
  // Indices above 2^32 split into two words so the hash stays exact for long runs.
  return mixSeed(base, SEED_STREAM[stream], index % 0x1_0000_0000, Math.floor(index / 0x1_0000_0000));
}
