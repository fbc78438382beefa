// The anti-hack lab's review queue (docs/ui.md §25): the learner labels the live run's flagged calls
// hack or legitimate, in the same store as the walkthrough's queue (storage/review-labels.ts,
// IndexedDB database "horizon-review", keyed by the command line), so a line labelled in either
// place reads the same in both. The judge's verdicts come from the run itself (the page has them);
// the worker only keeps the labels.

import { ReviewLabels } from '../storage/review-labels.ts';
import type { AntihackReviewAnswer, AntihackReviewRequest } from './lab-walk-api.ts';
import type { ReviewLabel } from './walk-api.ts';

let labels: ReviewLabels | undefined;

export function checkAntihackReviewRequest(r: AntihackReviewRequest): void {
  if (!Array.isArray(r.lines) || !r.lines.every((l) => typeof l === 'string')) throw new RangeError('anti-hack review: lines must be a list of command lines.');
  if (r.set === null) return;
  if (!r.lines.includes(r.set.line)) throw new RangeError(`anti-hack review: "${r.set.line}" is not among the run's flagged calls.`);
  const ok: (ReviewLabel | null)[] = ['hack', 'legitimate', null];
  if (!ok.includes(r.set.label)) throw new RangeError(`anti-hack review: a label is hack, legitimate or none, got ${String(r.set.label)}.`);
}

export async function computeAntihackReview(request: AntihackReviewRequest): Promise<AntihackReviewAnswer> {
  checkAntihackReviewRequest(request);
  labels ??= new ReviewLabels();
  if (request.set) await labels.set(request.set.line, request.set.label);
  const stored = await labels.all();
  return {
    request: { ...request },
    labels: request.lines.map((line) => stored.get(line) ?? null),
    storage: labels.problem ? `in memory for this page only: ${labels.problem}` : 'in this browser’s IndexedDB (database “horizon-review”)',
  };
}
