// Float64 references for the generation-driving kernels, from their definitions in generation.wgsl.ts.

export function decodeEmbeddingRef(
  input: ArrayLike<number>,
  pos: ArrayLike<number>,
  wte: ArrayLike<number>,
  wpe: ArrayLike<number>,
  shape: { B: number; D: number; V: number; Tmax: number },
): Float64Array {
  const { B, D, V, Tmax } = shape;
  const x = new Float64Array(B * D);
  for (let b = 0; b < B; b++) {
    const t = Math.min(pos[b], Tmax - 1);
    for (let d = 0; d < D; d++) x[b * D + d] = (input[b] < V ? wte[input[b] * D + d] : 0) + wpe[t * D + d];
  }
  return x;
}

export interface AdvanceState {
  history: Uint32Array; // [B, Tmax]
  historyLogp: Float64Array; // [B, Tmax]
  input: Uint32Array; // [B]
  pos: Uint32Array; // [B]
}

export function advanceRef(
  sampled: ArrayLike<number>,
  logp: ArrayLike<number>,
  prompt: ArrayLike<number>,
  promptLen: ArrayLike<number>,
  state: AdvanceState,
  shape: { B: number; Tmax: number },
): void {
  const { B, Tmax } = shape;
  for (let b = 0; b < B; b++) {
    const at = state.pos[b];
    if (at < Tmax) {
      state.history[b * Tmax + at] = sampled[b];
      state.historyLogp[b * Tmax + at] = logp[b];
    }
    const next = at + 1;
    state.input[b] = next < promptLen[b] && next < Tmax ? prompt[b * Tmax + next] : sampled[b];
    state.pos[b] = next;
  }
}

/** The stop check of generation.wgsl.ts: `ended` after one step, updated in place. */
export function stopCheckRef(
  sampled: ArrayLike<number>,
  pos: ArrayLike<number>,
  promptLen: ArrayLike<number>,
  stops: ArrayLike<number>,
  ended: Uint32Array,
  shape: { B: number; K: number },
): void {
  for (let b = 0; b < shape.B; b++) {
    if (pos[b] + 1 < promptLen[b]) continue;
    for (let k = 0; k < shape.K; k++) if (stops[b * shape.K + k] === sampled[b]) ended[b] = 1;
  }
}
