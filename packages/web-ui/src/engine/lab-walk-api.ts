// The contract of the anti-hack and compaction labs' worker computations (docs/ui.md §25–26): the
// review labels of a live run's flagged calls, and the aggregation kernel over a live trajectory
// batched three ways. They travel through the walkthroughs' one method (`walkthrough`, walk-api.ts)
// by `kind`, so the worker's API did not grow; structured-cloneable plain data.

import type { Computed, ReviewLabel } from './walk-api.ts';

export interface AntihackReviewRequest {
  kind: 'antihack-review';
  /** The flagged lines of the live run the page lists, in its order. */
  lines: string[];
  /** A label to store before answering (null label: remove it); null: only read the labels. */
  set: { line: string; label: ReviewLabel | null } | null;
}

export interface AntihackReviewAnswer {
  request: AntihackReviewRequest;
  /** The stored label of each line, aligned with `request.lines`. */
  labels: (ReviewLabel | null)[];
  /** Where the labels are kept, or why they could not be (then they last only this page's life). */
  storage: string;
}

export interface LabBatch {
  name: string;
  /** [rows][their tokens] per-token losses; rows may differ in length (padded with mask 0). */
  rows: number[][];
  /** [rows] which rollout each row belongs to. */
  rolloutIds: number[];
}

export interface CompactionLabRequest {
  kind: 'compaction-lab';
  batches: LabBatch[];
  /** seq-mean-token-sum-norm's constant length, the same for every batching (the longest uncut row). */
  constant: number;
}

export interface CompactionLabAnswer extends Computed {
  request: CompactionLabRequest;
  /** Per reducer (rl.lossAggregation), the aggregation kernel's loss of each batch, aligned with `request.batches`. */
  losses: { mode: string; values: number[] }[];
}
