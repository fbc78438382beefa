// The epoch shuffle of the minibatch loop (and of labelled examples): a seeded permutation, so an
// iteration replays exactly after a resume.

import { SeededRandom } from '@horizon/kernels';

/** A permutation of 0…n−1 from `seed` (Fisher–Yates). */
export function shuffled(n: number, seed: number): number[] {
  const rng = new SeededRandom(seed);
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}
