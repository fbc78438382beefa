// The dialog-feedback environment: a user asks for sums in rounds ("3+4=" … "5+1="), the policy
// answers each with a number and <eos>, and the scripted user (scripted-user.ts) reacts to each
// answer before its next request: silence, "ty " or a rejection ("no " for a wrong number, "what? "
// for an answer that is no number or answers an earlier request). A rejected answer is asked again
// (a retry) up to `maxRetries` times per round, then the user moves on. The user's text is a `user`
// observation, so it never trains. This is the multi-turn, implicit-feedback setting of span-level
// KTO (docs/algorithms/kto.md §2), made small enough for a character-level model.
//
// The environment records each assistant turn (its request, answer, correctness and the user's
// reaction) in its step info as `dialog`; the feedback verifier (feedback-verifier.ts) turns those
// reactions into per-span labels. Every episode is a pure function of its seed. Leaves out: requests
// other than sums, users who explain what they wanted, and dialogues of varying length.

import { SeededRandom } from '@horizon/kernels';
import type { ActionEnding, Environment, EpisodeStart, Info, StepOutcome, Vocabulary } from '../environment.ts';
import { mixSeed } from '../seeds.ts';
import { FeedbackVerifier } from './feedback-verifier.ts';
import { type FeedbackRates, reactionText, ScriptedUser } from './scripted-user.ts';

export interface DialogConfig {
  /** Requests per dialogue. */
  rounds: number;
  /** Times a rejected request is asked again before the user moves on. */
  maxRetries: number;
  /** Operands are 0 … maxOperand. */
  maxOperand: number;
  /** The scripted user's rates (feedback-rates.ts fits them to a policy). */
  rates: FeedbackRates;
}

/** One assistant turn as the environment saw it. */
export interface DialogTurnRecord {
  round: number;
  /** This turn answers a request the user asked again. */
  retry: boolean;
  question: string;
  expected: string;
  answer: string;
  correct: boolean;
  feedback: 'neutral' | 'negative' | 'positive';
  /** Why the user rejected it; null unless feedback is negative. */
  negative: 'execution' | 'intent' | null;
  /** The user's view of correctness was flipped (the noise). */
  flipped: boolean;
}

/** Digits, '+', '=', and the letters of the user's replies; <eos> ends an answer. */
export const DIALOG_VOCABULARY: Vocabulary = {
  characters: [...'0123456789+= notyhwa?'],
  specialTokens: ['<eos>'],
  unknownToken: false,
};

/** Salt of the problem draws (the user's draws have their own). */
const PROBLEM_SALT = 0xd1a1_0002;

export function checkDialogConfig(c: DialogConfig, path = 'dialog'): void {
  const ints: [string, number, number][] = [
    ['rounds', c.rounds, 1],
    ['maxRetries', c.maxRetries, 0],
    ['maxOperand', c.maxOperand, 1],
  ];
  for (const [key, value, min] of ints)
    if (!Number.isInteger(value) || value < min || value > 99) throw new RangeError(`${path}.${key} must be an integer in [${min}, 99], got ${value}`);
}

/** The requests of episode `seed`: `rounds` sums of operands 0 … maxOperand. */
export function dialogProblems(seed: number, config: DialogConfig): { question: string; expected: string }[] {
  const random = new SeededRandom(mixSeed(seed, PROBLEM_SALT));
  return Array.from({ length: config.rounds }, () => {
    const a = random.int(0, config.maxOperand);
    const b = random.int(0, config.maxOperand);
    return { question: `${a}+${b}=`, expected: String(a + b) };
  });
}

export class DialogFeedbackEnv implements Environment {
  readonly name = 'dialog-feedback';
  readonly verifier = new FeedbackVerifier();
  private readonly user: ScriptedUser;
  private seed = 0;
  private problems: { question: string; expected: string }[] = [];
  private round = 0;
  private retries = 0;
  private records: DialogTurnRecord[] = [];

  constructor(readonly config: DialogConfig) {
    checkDialogConfig(config);
    this.user = new ScriptedUser(config.rates);
  }

  reset(seed: number): EpisodeStart {
    this.seed = seed;
    this.problems = dialogProblems(seed, this.config);
    this.round = 0;
    this.retries = 0;
    this.records = [];
    return { prompt: this.problems[0].question, info: { rounds: this.config.rounds, dialog: [] } };
  }

  step(action: string, _ending: ActionEnding): StepOutcome {
    const { question, expected } = this.problems[this.round];
    const earlier = this.problems.slice(0, this.round).map((p) => p.expected);
    const reaction = this.user.react(this.seed, this.records.length, action, expected, earlier);
    this.records.push({
      round: this.round,
      retry: this.retries > 0,
      question,
      expected,
      answer: action,
      correct: action === expected,
      feedback: reaction.kind,
      negative: reaction.negative ?? null,
      flipped: reaction.flipped,
    });
    const info: Info = { dialog: this.records.map((r) => ({ ...r })) };
    const reply = reactionText(reaction);
    if (reaction.kind === 'negative' && this.retries < this.config.maxRetries) {
      this.retries++;
      return { done: false, observation: reply + question, kind: 'user', info };
    }
    this.round++;
    this.retries = 0;
    if (this.round === this.problems.length) return { done: true, info };
    return { done: false, observation: reply + this.problems[this.round].question, kind: 'user', info };
  }

  close(): void {}

  /** The request the user is waiting on (a scripted policy answers it), undefined once the dialogue is over. */
  get pending(): { question: string; expected: string } | undefined {
    return this.problems[this.round];
  }

  /** Most assistant turns a dialogue can take: every round asked 1 + maxRetries times. */
  get maxTurns(): number {
    return this.config.rounds * (1 + this.config.maxRetries);
  }
}
