// The span log from dialog-feedback rollouts: each assistant turn is one span whose id is the turn
// and whose polarity is its verifier label, the mask is exactly the policy's tokens (shifted as
// training rows are), the kernel's builder makes one span per turn from the ids, and in this
// environment (user text between turns) building spans from polarity alone gives the same spans.
// Host only (no GPU); it lives beside the offline trainer it feeds.

import { buildSpans, buildSpansFromIds } from '@horizon/kernels';
import { describe, expect, it } from 'vitest';
import { DIALOG_VOCABULARY, type DialogConfig, DialogFeedbackEnv } from '../envs/dialog-feedback/env.ts';
import { collectRollouts } from '../envs/episode.ts';
import { scriptedSampler } from '../envs/testing/scripted-sampler.ts';
import { CharTokenizer } from '../tokenizer/char-tokenizer.ts';
import { logRows, spanLog } from './span-log.ts';

const tokenizer = new CharTokenizer(DIALOG_VOCABULARY);
const CONFIG: DialogConfig = { rounds: 3, maxRetries: 1, maxOperand: 9, rates: { positiveIfRight: 0.5, negativeIfWrong: 1, flip: 0 } };

/** Right on even rows, one off on odd ones. */
async function rollouts(n: number) {
  const sampler = scriptedSampler(tokenizer, (context, row) => {
    const m = /([0-9]+)\+([0-9]+)=$/.exec(context);
    const sum = m ? Number(m[1]) + Number(m[2]) : 0;
    return { text: String(row % 2 === 0 ? sum : sum + 1), ending: 'eos' };
  });
  const requests = Array.from({ length: n }, (_, i) => ({ env: new DialogFeedbackEnv(CONFIG), seed: 300 + i, rolloutId: i, groupId: i }));
  return collectRollouts(requests, tokenizer, sampler, { contextLength: 64, maxNewTokens: 3, maxTurns: 6 });
}

describe('spanLog', () => {
  it('makes each assistant turn one span with its label, on exactly the policy’s tokens', async () => {
    const samples = await rollouts(8);
    const verifier = new DialogFeedbackEnv(CONFIG).verifier;
    const labels = samples.map((s) => verifier.score({ seed: s.seed, prompt: s.prompt, turns: s.turns, status: 'completed', info: s.meta }).spans ?? []);
    const log = spanLog(samples, labels, tokenizer.padId, 64);
    samples.forEach((s, b) => {
      const row = (a: ArrayLike<number>) => Array.from(a).slice(b * log.T, b * log.T + s.tokens.length - 1);
      expect(row(log.mask)).toEqual(Array.from(s.actionMask).slice(1));
      const ids = row(log.spanIds).filter((id) => id >= 0);
      // Turn ids in order, each a run of its action's tokens (the answer and <eos>).
      expect([...new Set(ids)]).toEqual(s.turns.map((_, k) => k));
      for (const [k, turn] of s.turns.entries()) expect(ids.filter((id) => id === k)).toHaveLength(turn.action.length + 1);
      const polarityOf = row(log.polarity).filter((_, t) => row(log.mask)[t] === 1);
      const perTurn = s.turns.map((_, k) => polarityOf[ids.indexOf(k)]);
      expect(perTurn).toEqual(labels[b].map((l) => ({ good: 1, bad: -1, neutral: 0 })[l.label]));
    });
    // Wrong answers are always rejected and right ones thanked half the time: every label occurs.
    expect(new Set(log.polarity)).toEqual(new Set([-1, 0, 1]));
    const byIds = buildSpansFromIds(log.spanIds, log.polarity, log.mask, log.B, log.T);
    expect(byIds.start.length).toBe(samples.reduce((n, s) => n + s.turns.length, 0));
    const byPolarity = buildSpans(log.polarity, log.mask, log.B, log.T);
    expect(Array.from(byPolarity.start)).toEqual(Array.from(byIds.start));
    expect(Array.from(byPolarity.end)).toEqual(Array.from(byIds.end));
    const picked = logRows(log, [3, 1]);
    expect(Array.from(picked.spanIds.subarray(0, log.T))).toEqual(Array.from(log.spanIds.subarray(3 * log.T, 4 * log.T)));
  });

  it('refuses labels for a turn a dialogue does not have, and a label list per dialogue missing', async () => {
    const samples = await rollouts(1);
    expect(() => spanLog(samples, [[{ turn: 9, label: 'good' }]], tokenizer.padId, 64)).toThrow(/labelled turn 9/);
    expect(() => spanLog(samples, [], tokenizer.padId, 64)).toThrow(/one list of span labels per dialogue/);
  });
});
