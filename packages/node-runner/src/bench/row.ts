// One row of the `horizon bench` report. Every figure comes from the run that prints it: ours and
// the peer's are measured in the same process (or, for PyTorch, the same machine) on the same shapes.

export type BenchUnit = 'GFLOP/s' | 'GB/s' | 'ms' | 'tokens/s' | 'elements/s' | 'count';

/** Whether a larger figure is better for a unit ('ms' and 'count' are costs). */
export const HIGHER_IS_BETTER: Record<BenchUnit, boolean> = {
  'GFLOP/s': true,
  'GB/s': true,
  'tokens/s': true,
  'elements/s': true,
  ms: false,
  count: false,
};

export interface BenchRow {
  /** What was measured, with its shape, e.g. "matmul nn 512×512×512". */
  name: string;
  unit: BenchUnit;
  ours: number;
  /** The peer's figure on the same work, or null when this row has no peer. */
  peer: number | null;
  peerName: string | null;
  /** How many times better we are: ours/peer when higher is better, peer/ours for costs; null without a peer. */
  ratio: number | null;
  /** Optional: the device's measured ceiling for this unit and our fraction of it. */
  ceiling?: number;
  fractionOfCeiling?: number;
}

export function makeRow(name: string, unit: BenchUnit, ours: number, peer?: { name: string; value: number }): BenchRow {
  const ratio = peer ? (HIGHER_IS_BETTER[unit] ? ours / peer.value : peer.value / ours) : null;
  return { name, unit, ours, peer: peer?.value ?? null, peerName: peer?.name ?? null, ratio };
}
