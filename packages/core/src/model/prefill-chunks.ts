// How a generate call splits the context tokens it must feed onto the KV cache into prefill passes
// (model/generate.ts). A pass takes S positions of every row at once — B·S query rows through the
// same kernels a decode step runs — so its buffers grow with B·S: a pass holds at most
// PREFILL_ROWS query rows, and S is a power of two, so a decode state keeps buffers for a few sizes
// only however the contexts' lengths vary (recipe/fits.ts counts them).

/** Most query rows (rows × positions) one prefill pass holds. */
export const PREFILL_ROWS = 1024;

/** The longest pass for B rows: the largest power of two with B·S ≤ PREFILL_ROWS (at least 1), at most Tmax. */
export function prefillChunkCap(B: number, Tmax: number): number {
  let S = 1;
  while (S * 2 * B <= PREFILL_ROWS && S * 2 <= Tmax) S *= 2;
  return S;
}

/** The pass lengths that feed `positions` positions: full passes of the cap, then the rest in powers of two, longest first. */
export function prefillChunks(positions: number, B: number, Tmax: number): number[] {
  if (!Number.isInteger(positions) || positions < 0) throw new RangeError(`prefillChunks: positions must be a non-negative integer, got ${positions}`);
  const cap = prefillChunkCap(B, Tmax);
  const chunks: number[] = [];
  let left = positions;
  while (left >= cap) {
    chunks.push(cap);
    left -= cap;
  }
  for (let S = cap / 2; S >= 1; S /= 2) {
    if (left >= S) {
      chunks.push(S);
      left -= S;
    }
  }
  return chunks;
}

/** Query rows of prefill buffers a decode state of B rows may hold at once: B·S for every pass length S up to the cap. */
export function prefillBufferRows(B: number, Tmax: number): number {
  return B * (2 * prefillChunkCap(B, Tmax) - 1);
}
