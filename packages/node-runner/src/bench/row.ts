// One row of the `horizon bench` report. Every figure comes from the run that prints it: ours and
// the peer's are measured in the same process (or, for PyTorch, the same machine) on the same shapes.

export type BenchUnit = 'GFLOP/s' | 'GB/s' | 'ms' | 'tokens/s' | 'elements/s' | 'episodes/s' | 'requests/s' | 'count' | 'MiB';

/** Whether a larger figure is better for a unit ('ms', 'count' and 'MiB' are costs). */
export const HIGHER_IS_BETTER: Record<BenchUnit, boolean> = {
  'GFLOP/s': true,
  'GB/s': true,
  'tokens/s': true,
  'elements/s': true,
  'episodes/s': true,
  'requests/s': true,
  ms: false,
  count: false,
  MiB: false,
};

export interface BenchRow {
  /** What was measured, with its shape, e.g. "matmul nn 512×512×512". */
  name: string;
  unit: BenchUnit;
  /** Our figure; null on a peer-only row, where our side of the comparison is not built yet (the note says which issue). */
  ours: number | null;
  /** The peer's figure on the same work, or null when this row has no peer (or the peer could not run: see `note`). */
  peer: number | null;
  peerName: string | null;
  /** How many times better we are: ours/peer when higher is better, peer/ours for costs; null without both figures. */
  ratio: number | null;
  /** Optional: the device's measured ceiling for this unit and our fraction of it. */
  ceiling?: number;
  fractionOfCeiling?: number;
  /** Optional: why a figure is missing (e.g. "unavailable: install python3-torch") or how to read the row. */
  note?: string;
}

/** A peer's figure, or the reason it has none (not installed, failed to start). */
export type PeerFigure = { name: string; value: number } | { name: string; unavailable: string };

export function makeRow(name: string, unit: BenchUnit, ours: number | null, peer?: PeerFigure): BenchRow {
  const value = peer && 'value' in peer ? peer.value : null;
  const ratio = ours !== null && value !== null ? (HIGHER_IS_BETTER[unit] ? ours / value : value / ours) : null;
  const row: BenchRow = { name, unit, ours, peer: value, peerName: peer?.name ?? null, ratio };
  if (peer && 'unavailable' in peer) row.note = peer.unavailable;
  return row;
}

/** Adds the device ceiling for this row's unit and our fraction of it. */
export function withCeiling(row: BenchRow, ceiling: number): BenchRow {
  if (row.ours === null || !(ceiling > 0)) return row;
  return { ...row, ceiling, fractionOfCeiling: HIGHER_IS_BETTER[row.unit] ? row.ours / ceiling : ceiling / row.ours };
}
