// LongStream's problems: a stream of one-digit chunks drawn from the episode seed, and its answer,
// the sum of the digits mod 10. The answer needs every chunk, yet a one-digit running sum carries
// all that matters of the chunks seen so far: the summary a compacted context needs fits in one
// token, so a policy that summarises well loses nothing at a cut and one that does not must guess.

import { SeededRandom } from '@horizon/kernels';

export interface ChunkRange {
  minChunks: number;
  maxChunks: number;
}

export interface LongStream {
  /** The chunks in the order `next` gives them, each a digit 0–9. */
  digits: readonly number[];
  /** Sum of the digits mod 10, as the policy must write it. */
  answer: string;
}

/** The running answer after `digits`: their sum mod 10, as text. */
export function runningSum(digits: readonly number[]): string {
  return String(digits.reduce((s, d) => s + d, 0) % 10);
}

export function streamKey(stream: LongStream): string {
  return stream.digits.join('');
}

/** Drawn until it is not in `excluded`; longer streams make a repeat vanishingly rare (10^minChunks streams of the shortest length). */
export function longStream(seed: number, range: ChunkRange, excluded?: ReadonlySet<string>): LongStream {
  const rng = new SeededRandom(seed);
  for (let attempt = 0; attempt < 1000; attempt++) {
    const length = range.minChunks + Math.floor(rng.next() * (range.maxChunks - range.minChunks + 1));
    const digits = Array.from({ length }, () => Math.floor(rng.next() * 10));
    const stream = { digits, answer: runningSum(digits) };
    if (!excluded?.has(streamKey(stream))) return stream;
  }
  throw new RangeError(`no long stream of ${range.minChunks}–${range.maxChunks} chunks outside the excluded set in 1000 draws`);
}

/** Streams of `count` distinct keys, with the seeds that give them (seed i from `seedOf(i)`, skipping repeats). */
export function distinctLongStreams(count: number, range: ChunkRange, seedOf: (i: number) => number): { seeds: number[]; streams: LongStream[] } {
  const seeds: number[] = [];
  const streams: LongStream[] = [];
  const seen = new Set<string>();
  for (let i = 0; streams.length < count; i++) {
    if (i > 100 * count + 1000) throw new RangeError(`could not draw ${count} distinct long streams of ${range.minChunks}–${range.maxChunks} chunks`);
    const seed = seedOf(i);
    const stream = longStream(seed, range);
    const key = streamKey(stream);
    if (seen.has(key)) continue;
    seen.add(key);
    seeds.push(seed);
    streams.push(stream);
  }
  return { seeds, streams };
}

/** How many distinct streams a range has (saturating at 2^53 for long ones). */
export function streamCount(range: ChunkRange): number {
  let n = 0;
  for (let k = range.minChunks; k <= range.maxChunks; k++) n += 10 ** k;
  return Math.min(n, Number.MAX_SAFE_INTEGER);
}
