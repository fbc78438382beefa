// Verifiers: what scores an episode once it is over. The reward is a property of the whole
// trajectory (the final answer, whether the tests pass in the sandbox afterwards), not of one step,
// so environments no longer return rewards and the episode runner (episode.ts) calls the verifier
// at the end, before `close()`, and places the reward on the last action token
// (docs/algorithms/README.md §1). This follows the environment/rubric split of
// PrimeIntellect-ai/verifiers and RLVR (a verifiable reward computed from the output, Tülu 3, arXiv:2411.15124).
//
// Built here: the answer verifier (exact match of the final action). A unit-test verifier runs the
// task's tests in the episode's sandbox and fits the same interface; it lives with the sandbox.
//
// v2 adds, optionally, per-span labels: a verdict may say of each assistant turn whether it was good,
// bad or neutral, as the implicit-feedback setting of span-level KTO needs (docs/algorithms/kto.md
// §2; a dialog user's reaction labels the answer before it, dialog-feedback/). A verifier that gives
// none is unchanged: its verdict is still { reward, info }. Several verifiers of one task combine
// with validated weights (WeightedVerifier), as the rubric of PrimeIntellect-ai/verifiers sums
// weighted reward functions; it leaves out their per-function parsers and judge calls.

import type { ActionEnding, Info, MaybePromise } from './environment.ts';
import type { Turn } from './sample.ts';

/** Everything the verifier may read about a finished episode. */
export interface Trajectory {
  seed: number;
  /** The first prompt as text (specials written as their names). */
  prompt: string;
  /** Every action with its ending and the observation that followed. */
  turns: readonly Turn[];
  /** `completed`: the environment ended it; `truncated`: the runner cut it at a turn or context limit. */
  status: 'completed' | 'truncated';
  /** The environment's info: from reset (the expected answer, …) and from each step, later keys winning. */
  info: Info;
}

/** How one assistant turn went, by a verifier's judgement: `good` trains up, `bad` down, `neutral` as language modelling. */
export type SpanLabelValue = 'good' | 'bad' | 'neutral';

/** A label of one span of the policy's tokens: the action of turn `turn` (0-based index into `Trajectory.turns`). */
export interface SpanLabel {
  turn: number;
  label: SpanLabelValue;
}

export interface Verification {
  /** A finite number; the runner places it on the last action token. */
  reward: number;
  /** Diagnostics merged into the sample's meta; `correct` (a boolean) is what evaluation counts as success. */
  info: Info;
  /** Per-span labels, at most one per assistant turn, in turn order; absent when the verifier judges only the whole episode. */
  spans?: readonly SpanLabel[];
}

export interface Verifier {
  readonly name: string;
  score(trajectory: Trajectory): MaybePromise<Verification>;
}

/**
 * Reward 1 when the last action is exactly the expected answer and ended with end-of-sequence,
 * else 0. The expected answer is the string at `info[key]` (default "expected"), which the
 * environment puts there in `reset`. A trajectory without one is an error: it is a bug in the
 * environment, not a wrong answer.
 */
export class AnswerVerifier implements Verifier {
  readonly name = 'answer';

  constructor(private readonly key = 'expected') {}

  score(trajectory: Trajectory): Verification {
    const expected = trajectory.info[this.key];
    if (typeof expected !== 'string')
      throw new RangeError(`the answer verifier needs the expected answer as a string at info.${this.key}; the environment gave ${JSON.stringify(expected)}`);
    const last = trajectory.turns.at(-1);
    const got = last?.action ?? '';
    const ending: ActionEnding | 'none' = last?.ending ?? 'none';
    const correct = ending === 'eos' && got === expected;
    return { reward: correct ? 1 : 0, info: { got, ending, correct } };
  }
}

/** One verifier of a combination and its weight: a finite number ≥ 0. */
export interface WeightedPart {
  verifier: Verifier;
  weight: number;
}

/**
 * Several verifiers of one task as one: the reward is Σ wᵢ·rewardᵢ / Σ wᵢ (so rewards in [0, 1]
 * stay there), each part's info under its name (`<name>.<key>`), `correct` iff every part with a
 * positive weight that reports `correct` says true (absent when none reports it). Per-span labels come from the one part that gives
 * them: two parts labelling spans would have to be reconciled by a rule nobody chose, so that is an
 * error rather than a silent pick.
 */
export class WeightedVerifier implements Verifier {
  readonly name: string;

  constructor(private readonly parts: readonly WeightedPart[]) {
    if (parts.length === 0) throw new RangeError('a weighted verifier needs at least one part');
    const names = new Set<string>();
    for (const { verifier, weight } of parts) {
      if (!Number.isFinite(weight) || weight < 0) throw new RangeError(`the weight of verifier ${verifier.name} must be a finite number ≥ 0, got ${weight}`);
      if (names.has(verifier.name)) throw new RangeError(`verifier ${verifier.name} appears twice in one weighted verifier; give each part its own name`);
      names.add(verifier.name);
    }
    if (!parts.some((p) => p.weight > 0)) throw new RangeError('a weighted verifier needs at least one positive weight');
    this.name = parts.map((p) => `${p.weight}*${p.verifier.name}`).join('+');
  }

  async score(trajectory: Trajectory): Promise<Verification> {
    const total = this.parts.reduce((a, p) => a + p.weight, 0);
    let reward = 0;
    let correct: boolean | undefined;
    let spans: readonly SpanLabel[] | undefined;
    let spansFrom = '';
    const info: Info = {};
    for (const { verifier, weight } of this.parts) {
      const verdict = await verifier.score(trajectory);
      if (!Number.isFinite(verdict.reward)) throw new RangeError(`verifier ${verifier.name} returned a non-finite reward ${verdict.reward}`);
      reward += (weight / total) * verdict.reward;
      for (const [key, value] of Object.entries(verdict.info)) info[`${verifier.name}.${key}`] = value;
      const said = verdict.info.correct;
      if (weight > 0 && typeof said === 'boolean') correct = (correct ?? true) && said;
      if (verdict.spans) {
        checkSpanLabels(verdict.spans, trajectory.turns.length, verifier.name);
        if (spans) throw new RangeError(`verifiers ${spansFrom} and ${verifier.name} both label spans; a weighted verifier takes span labels from one part`);
        spans = verdict.spans;
        spansFrom = verifier.name;
      }
    }
    if (correct !== undefined) info.correct = correct;
    return spans ? { reward, info, spans } : { reward, info };
  }
}

/** Throws unless `spans` label distinct assistant turns of a trajectory of `turns` turns, in increasing order. */
export function checkSpanLabels(spans: readonly SpanLabel[], turns: number, verifier: string): void {
  let last = -1;
  for (const { turn, label } of spans) {
    if (!Number.isInteger(turn) || turn < 0 || turn >= turns)
      throw new RangeError(`verifier ${verifier} labelled turn ${turn}, but the trajectory has turns 0 to ${turns - 1}`);
    if (turn <= last)
      throw new RangeError(`verifier ${verifier} labelled turn ${turn} after turn ${last}; span labels must be in increasing turn order, one per turn`);
    if (label !== 'good' && label !== 'bad' && label !== 'neutral')
      throw new RangeError(`verifier ${verifier} gave turn ${turn} the label ${JSON.stringify(label)}; a span label is good, bad or neutral`);
    last = turn;
  }
}
