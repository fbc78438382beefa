// The dialog-feedback environment through the real episode runner with a scripted policy: the user's
// replies are `user` tokens, a rejection is asked again (a retry) up to the limit, the feedback
// verifier labels each assistant turn from the user's reaction, and with rates fitted to a policy's
// accuracy the dialogues get the source's feedback mix. The SFT demonstrations answer every request
// right and replay the environment's own user.

import { SeededRandom } from '@horizon/kernels';
import { describe, expect, it } from 'vitest';
import { CharTokenizer } from '../../tokenizer/char-tokenizer.ts';
import { collectRollouts, type EpisodeRequest } from '../episode.ts';
import { KIND_CODE } from '../sample.ts';
import { mixSeed } from '../seeds.ts';
import { scriptedSampler } from '../testing/scripted-sampler.ts';
import { dialogSftExample } from './demonstrations.ts';
import { DIALOG_VOCABULARY, type DialogConfig, DialogFeedbackEnv, dialogProblems } from './env.ts';
import { feedbackMix, sampleDialog } from './feedback-mix.ts';
import { fitFeedbackRates } from './feedback-rates.ts';

const tokenizer = new CharTokenizer(DIALOG_VOCABULARY);
const ALWAYS_REJECT: DialogConfig = { rounds: 2, maxRetries: 1, maxOperand: 9, rates: { positiveIfRight: 0, negativeIfWrong: 1, flip: 0 } };

/** The right answer to the last request in a context ("…3+4=" → "7"). */
function rightAnswer(context: string): string {
  const m = /([0-9]+)\+([0-9]+)=$/.exec(context);
  if (!m) throw new Error(`no request at the end of ${JSON.stringify(context)}`);
  return String(Number(m[1]) + Number(m[2]));
}

/** A policy right with probability `accuracy`, else one off; its draw depends on the context only. */
function policy(accuracy: number) {
  return scriptedSampler(tokenizer, (context) => {
    let h = 0;
    for (const ch of context) h = (Math.imul(h, 31) + ch.charCodeAt(0)) >>> 0;
    const right = new SeededRandom(mixSeed(h, 99)).next() < accuracy;
    const answer = rightAnswer(context);
    return { text: right ? answer : String(Number(answer) + 1), ending: 'eos' };
  });
}

async function dialogues(config: DialogConfig, accuracy: number, n: number, contextLength = 96) {
  const env = new DialogFeedbackEnv(config);
  const requests: EpisodeRequest[] = Array.from({ length: n }, (_, i) => ({ env: new DialogFeedbackEnv(config), seed: 1000 + i, rolloutId: i, groupId: i }));
  return collectRollouts(requests, tokenizer, policy(accuracy), { contextLength, maxNewTokens: 3, maxTurns: env.maxTurns, maxConcurrentEpisodes: 64 });
}

describe('DialogFeedbackEnv', () => {
  it('asks a rejected request again once, then moves on, and ends after the last round', () => {
    const env = new DialogFeedbackEnv(ALWAYS_REJECT);
    const [first, second] = dialogProblems(5, ALWAYS_REJECT);
    expect(env.reset(5).prompt).toBe(first.question);
    const wrong = String(Number(first.expected) + 1);
    expect(env.step(wrong, 'eos')).toMatchObject({ done: false, observation: `no ${first.question}`, kind: 'user' });
    expect(env.step('', 'length')).toMatchObject({ done: false, observation: `what? ${second.question}` });
    expect(env.step(second.expected, 'eos')).toMatchObject({ done: true });
    const verdict = env.verifier.score({ seed: 5, prompt: first.question, turns: [], status: 'completed', info: { rounds: 2, dialog: [] } });
    expect(verdict.reward).toBe(0);
  });

  it('records the user as user tokens, and the verifier labels each turn from its reaction', async () => {
    const [s] = await dialogues(ALWAYS_REJECT, 0, 1);
    // Wrong twice per round, each rejected: 2 rounds × (answer + retry).
    expect(s.turns).toHaveLength(4);
    expect(s.status).toBe('completed');
    const user = s.tokens.filter((_, t) => s.tokenKinds[t] === KIND_CODE.user).map((id) => tokenizer.decode([id]));
    expect(user.join('')).toBe(s.turns.map((t) => t.observation ?? '').join(''));
    // The last rejection ends the dialogue: it labels the last answer but writes no more context.
    const [q0, q1] = dialogProblems(s.seed, ALWAYS_REJECT).map((p) => p.question);
    expect(user.join('')).toBe(`no ${q0}no ${q1}no ${q1}`);
    const records = sampleDialog(s);
    expect(records.map((r) => [r.round, r.retry, r.feedback, r.negative])).toEqual([
      [0, false, 'negative', 'execution'],
      [0, true, 'negative', 'execution'],
      [1, false, 'negative', 'execution'],
      [1, true, 'negative', 'execution'],
    ]);
    const verdict = await new DialogFeedbackEnv(ALWAYS_REJECT).verifier.score({
      seed: s.seed,
      prompt: s.prompt,
      turns: s.turns,
      status: 'completed',
      info: s.meta,
    });
    expect(verdict.spans).toEqual([0, 1, 2, 3].map((turn) => ({ turn, label: 'bad' })));
    expect(verdict.info).toMatchObject({ correct: false, negatives: 4, retries: 2 });
    expect(s.reward).toBe(0);
  });

  it('labels thanks good and silence neutral, and counts a dialogue right when every round ends right', async () => {
    const thanks = { ...ALWAYS_REJECT, rates: { positiveIfRight: 1, negativeIfWrong: 1, flip: 0 } };
    const [s] = await dialogues(thanks, 1, 1);
    expect(s.turns.map((t) => t.observation ?? '')).toEqual([`ty ${dialogProblems(s.seed, thanks)[1].question}`, '']);
    expect(s.meta.correct).toBe(true);
    expect(s.reward).toBe(1);
    const silent = { ...ALWAYS_REJECT, rates: { positiveIfRight: 0, negativeIfWrong: 1, flip: 0 } };
    const verdict = new DialogFeedbackEnv(silent).verifier.score({
      seed: s.seed,
      prompt: s.prompt,
      turns: s.turns,
      status: 'completed',
      info: { ...s.meta, dialog: sampleDialog(s).map((r) => ({ ...r, feedback: 'neutral' })) },
    });
    expect(verdict.spans?.map((x) => x.label)).toEqual(['neutral', 'neutral']);
  });

  it('with rates fitted to the policy’s accuracy, gives the source’s feedback mix and negative reliability', async () => {
    const accuracy = 0.6;
    const config: DialogConfig = { rounds: 3, maxRetries: 1, maxOperand: 9, rates: fitFeedbackRates(accuracy) };
    const samples = await dialogues(config, accuracy, 1500);
    const mix = feedbackMix(samples.map(sampleDialog));
    console.log(`dialog feedback mix at accuracy ${accuracy}: ${JSON.stringify(mix)}`);
    // Retries follow rejections, so the measured accuracy over all turns sits near the policy's.
    expect(mix.accuracy).toBeCloseTo(accuracy, 1);
    expect(Math.abs(mix.negative - 0.2)).toBeLessThan(0.02);
    expect(Math.abs(mix.positive - 0.035)).toBeLessThan(0.01);
    expect(Math.abs(mix.negativeReliability - 0.818)).toBeLessThan(0.04);
    expect(mix.negativeExecution + mix.negativeIntent).toBeCloseTo(mix.negative, 12);
    // Every rejection but the one after a retry is asked again.
    expect(mix.retryRatio).toBeGreaterThan(0.1);
    expect(mix.retryRatio).toBeLessThan(mix.negative);
  });

  it('replays: the same seeds give the same dialogues', async () => {
    const config: DialogConfig = { rounds: 3, maxRetries: 1, maxOperand: 9, rates: fitFeedbackRates(0.5) };
    const a = await dialogues(config, 0.5, 20);
    const b = await dialogues(config, 0.5, 20);
    expect(b.map((s) => [s.tokens, s.meta])).toEqual(a.map((s) => [s.tokens, s.meta]));
  });
});

describe('dialogSftExample', () => {
  it('answers every request right, trains on the answers only, and replays the user of that seed', () => {
    const config: DialogConfig = { rounds: 3, maxRetries: 1, maxOperand: 9, rates: { positiveIfRight: 0.5, negativeIfWrong: 1, flip: 0.5 } };
    let retries = 0;
    for (let seed = 0; seed < 40; seed++) {
      const example = dialogSftExample(seed, config);
      const turns = example.turns ?? [];
      const actions = turns.filter((t) => t.kind === 'action');
      const env = new DialogFeedbackEnv(config);
      env.reset(seed);
      for (const [i, a] of actions.entries()) {
        expect(a.text).toBe(env.pending?.expected);
        const outcome = env.step(a.text, 'eos');
        if (!outcome.done) expect(turns[2 * i + 2]).toEqual({ kind: 'observation', text: outcome.observation });
        else expect(i).toBe(actions.length - 1);
      }
      retries += actions.length - config.rounds;
    }
    // A flip of 0.5 with q = 1 rejects about half the right answers: some demonstrations hold retries.
    expect(retries).toBeGreaterThan(0);
  });
});
