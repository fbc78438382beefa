// Float64 reference for the token + position embedding, from the definition:
//   x[b, t, :] = wte[tokens[b, t], :] + wpe[t, :]      (ids ≥ V contribute a zero token embedding)
// x is linear in wte and wpe, so the gradient sends dx[b, t, :] to the row each position read.
//
// Shapes:  tokens [B, T];  wte, dwte [V, D];  wpe [≥T, D];  dwpe [T, D];  x, dx [B, T, D]

import type { EmbeddingShape } from './embedding.ts';

export function embeddingForwardRef(tokens: ArrayLike<number>, wte: ArrayLike<number>, wpe: ArrayLike<number>, shape: EmbeddingShape): Float64Array {
  const { B, T, V, D } = shape;
  const x = new Float64Array(B * T * D);
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      const token = tokens[b * T + t];
      for (let d = 0; d < D; d++) x[(b * T + t) * D + d] = (token < V ? wte[token * D + d] : 0) + wpe[t * D + d];
    }
  }
  return x;
}

export function embeddingBackwardRef(tokens: ArrayLike<number>, dx: ArrayLike<number>, shape: EmbeddingShape): { dwte: Float64Array; dwpe: Float64Array } {
  const { B, T, V, D } = shape;
  const dwte = new Float64Array(V * D);
  const dwpe = new Float64Array(T * D);
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < T; t++) {
      const token = tokens[b * T + t];
      for (let d = 0; d < D; d++) {
        const g = dx[(b * T + t) * D + d];
        if (token < V) dwte[token * D + d] += g;
        dwpe[t * D + d] += g;
      }
    }
  }
  return { dwte, dwpe };
}
