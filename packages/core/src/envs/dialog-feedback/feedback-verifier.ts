// The feedback verifier of the dialog-feedback environment: it turns the scripted user's reaction to
// each assistant turn (the environment's `dialog` info, env.ts) into a per-span label — a rejection
// makes the answer before it `bad`, thanks `good`, silence `neutral` — as span-level KTO labels
// spans from implicit feedback (docs/algorithms/kto.md §2). Its reward reads the feedback only, as a
// deployed system would: 1 − (rejected turns / turns). Ground truth (every round's last answer
// right) goes into `correct`, which evaluation counts as success; it does not reach the reward.

import type { Info, JsonValue } from '../environment.ts';
import type { SpanLabel, SpanLabelValue, Trajectory, Verification, Verifier } from '../verifier.ts';
import type { DialogTurnRecord } from './env.ts';

const LABEL: Record<DialogTurnRecord['feedback'], SpanLabelValue> = { negative: 'bad', positive: 'good', neutral: 'neutral' };

/** The turn records of a finished dialogue's info; one sentence when they are missing or out of step with the turns. */
export function dialogRecords(info: Info, turns: number): DialogTurnRecord[] {
  const dialog: JsonValue | undefined = info.dialog;
  if (!Array.isArray(dialog))
    throw new RangeError(`the feedback verifier needs the dialogue's turn records at info.dialog; the environment gave ${JSON.stringify(dialog)}`);
  if (dialog.length !== turns) throw new RangeError(`info.dialog holds ${dialog.length} turn records for a trajectory of ${turns} turns`);
  return dialog as unknown as DialogTurnRecord[];
}

export class FeedbackVerifier implements Verifier {
  readonly name = 'feedback';

  score(trajectory: Trajectory): Verification {
    const records = dialogRecords(trajectory.info, trajectory.turns.length);
    const spans: SpanLabel[] = records.map((r, turn) => ({ turn, label: LABEL[r.feedback] }));
    const negatives = records.filter((r) => r.feedback === 'negative').length;
    const positives = records.filter((r) => r.feedback === 'positive').length;
    const lastOfRound = records.filter((r, i) => records[i + 1]?.round !== r.round);
    const rounds = typeof trajectory.info.rounds === 'number' ? trajectory.info.rounds : lastOfRound.length;
    const correct = trajectory.status === 'completed' && lastOfRound.length === rounds && lastOfRound.every((r) => r.correct);
    const reward = records.length > 0 ? 1 - negatives / records.length : 0;
    return { reward, info: { correct, negatives, positives, retries: records.filter((r) => r.retry).length }, spans };
  }
}
