// The RL walkthroughs' engine side without a device (the float64 fallback every browser without
// WebGPU gets): the PPO branch read off loss and gradient agrees with the reference's own flags over
// a grid of ε, c and signs; the answers carry the inputs the kernels saw; bad requests are refused in
// one sentence naming the field. The kernels themselves are checked against the same references in
// the browser (tests/browser/rl-walkthroughs.test.ts) and in their own GPU tests.

import { groupBaselinesRef, tokenPolicyLossRef } from '@horizon/kernels';
import { describe, expect, it } from 'vitest';
import { computeWalk } from './walk.ts';
import type { DistillAnswer, GroupsAnswer, KtoAnswer, PpoAnswer, SpanKtoAnswer } from './walk-api.ts';
import { DISTILL_PROMPTS, DISTILL_TEACHERS, KTO_ROWS, PPO_TOKENS, SPAN_TOKENS } from './walk-data.ts';

const cpu = 'float64 reference (test)';

describe('RL walkthroughs on the float64 fallback', () => {
  it('PPO: the branch read off loss and gradient is the reference’s branch, for every ε, c and sign', async () => {
    for (const epsLow of [0, 0.2, 0.45])
      for (const epsHigh of [0.05, 0.28, 1])
        for (const dualClip of [0, 1.5, 3])
          for (const sign of [1, -1] as const) {
            const a = (await computeWalk(null, { kind: 'ppo', epsLow, epsHigh, dualClip, sign }, cpu)) as PpoAnswer;
            expect(a.computedOn).toBe('cpu');
            PPO_TOKENS.forEach((tok, t) => {
              const ref = tokenPolicyLossRef(Math.fround(tok.logp), Math.fround(tok.oldLogp), Math.fround(sign * tok.magnitude), {
                kind: 'ppo',
                epsLow,
                epsHigh,
                dualClip,
              });
              const want = ref.dual ? 'dual-clip' : ref.high ? 'clipped-high' : ref.low ? 'clipped-low' : 'unclipped';
              expect(a.branch[t], `token ${t} at ε ${epsLow}/${epsHigh}, c ${dualClip}, sign ${sign}`).toBe(want);
              expect(a.ratio[t]).toBeCloseTo(ref.ratio, 12);
            });
            // The surrogate curve is flat beyond the clip on the advantage's side.
            const beyond = a.curve.ratio.map((r, k) => [r, a.curve.objective[k]]).filter(([r]) => (sign > 0 ? r > 1 + epsHigh : r < 1 - epsLow));
            for (const [, y] of beyond) expect(y).toBeCloseTo(sign > 0 ? 1 + epsHigh : -(1 - epsLow), 6);
          }
  });

  it('groups: three estimators of one group, and the all-equal and singleton groups give zero', async () => {
    const rewards = [1, 0, 0.5, 1];
    const a = (await computeWalk(null, { kind: 'groups', rewards }, cpu)) as GroupsAnswer;
    expect(a.rloo).toEqual(Array.from(groupBaselinesRef(Float32Array.from(rewards), new Uint32Array(4), 'rloo')));
    // RLOO = G/(G − 1) · Dr.GRPO, the identity the intro states.
    for (const [i, x] of a.rloo.entries()) expect(x).toBeCloseTo((4 / 3) * a.drGrpo[i], 12);
    expect(a.mean).toBeCloseTo(0.625, 12);
    expect(a.allEqual).toBe(false);
    const flat = (await computeWalk(null, { kind: 'groups', rewards: [1, 1, 1] }, cpu)) as GroupsAnswer;
    expect(flat.allEqual).toBe(true);
    expect([...flat.grpo, ...flat.drGrpo, ...flat.rloo].every((x) => x === 0)).toBe(true);
    const one = (await computeWalk(null, { kind: 'groups', rewards: [0.7] }, cpu)) as GroupsAnswer;
    expect(one.grpo).toEqual([0]);
  });

  it('KTO: z0 is the clamped mean mismatched KL, and no drift means z0 = 0 and r = 0', async () => {
    const desirable = KTO_ROWS.map((r) => r.desirable);
    const a = (await computeWalk(null, { kind: 'kto', beta: 0.1, lambdaD: 1, lambdaU: 1, drift: 1, desirable }, cpu)) as KtoAnswer;
    expect(a.z0).toBeCloseTo(Math.max(0, a.mismatchedKl.reduce((s, x) => s + x, 0) / KTO_ROWS.length), 6);
    // A desirable completion's loss falls as its reward rises: its gradient wrt r is negative.
    for (const [b, g] of a.dLdr.entries()) expect(Math.sign(g)).toBe(desirable[b] ? -1 : 1);
    const still = (await computeWalk(null, { kind: 'kto', beta: 0.1, lambdaD: 1, lambdaU: 1, drift: 0, desirable }, cpu)) as KtoAnswer;
    expect(still.z0).toBe(0);
    expect(still.rewards.every((r) => r === 0)).toBe(true);
  });

  it('span-KTO: spans are runs of equal polarity on assistant tokens; the prompt gets no gradient', async () => {
    const polarity = SPAN_TOKENS.map((t) => t.polarity);
    const a = (await computeWalk(null, { kind: 'span-kto', beta: 0.5, lambdaW: 1, lambdaL: 1, alpha: 0.9, zRef: 0, polarity }, cpu)) as SpanKtoAnswer;
    expect(a.spans.map((s) => s.polarity)).toEqual([0, 1, -1, 0, 1]);
    expect(a.spans[0].start).toBe(SPAN_TOKENS.findIndex((t) => t.assistant));
    SPAN_TOKENS.forEach((t, i) => {
      if (!t.assistant) expect(a.grad[i]).toBe(0);
    });
    expect(a.zRef).toBeCloseTo(0.1 * (a.spanRewards.reduce((s, x) => s + x, 0) / a.spans.length), 6);
  });

  it('distillation: every prompt against every teacher, prompt-major; masked tokens stay 0', async () => {
    const a = (await computeWalk(null, { kind: 'distill', coef: 0.5, route: [0, 1] }, cpu)) as DistillAnswer;
    expect(a.rows).toHaveLength(DISTILL_PROMPTS.length * DISTILL_TEACHERS.length);
    const row = a.rows[1 * DISTILL_TEACHERS.length + 1];
    expect([row.prompt, row.teacher]).toEqual([1, 1]);
    const p = DISTILL_PROMPTS[1];
    expect(row.reverseKl[0]).toBeCloseTo(p.studentLogp[0] - p.teacherLogp[1][0], 6);
    expect(row.advantages[0]).toBeCloseTo(-0.5 * row.reverseKl[0], 6);
    expect(row.advantages[p.tokens.length]).toBe(0);
  });

  it('refuses out-of-range controls in one sentence naming the field', async () => {
    await expect(computeWalk(null, { kind: 'ppo', epsLow: 1.2, epsHigh: 0.2, dualClip: 0, sign: 1 }, cpu)).rejects.toThrow(
      /epsLow must be in \[0, 1\), got 1.2/,
    );
    await expect(computeWalk(null, { kind: 'ppo', epsLow: 0.2, epsHigh: 0.2, dualClip: 0.5, sign: 1 }, cpu)).rejects.toThrow(
      /dualClip must be 0 \(off\) or in \(1, 100\]/,
    );
    await expect(computeWalk(null, { kind: 'groups', rewards: [] }, cpu)).rejects.toThrow(/a group holds 1 to 8 completions, got 0/);
    await expect(computeWalk(null, { kind: 'groups', rewards: [1, Number.NaN] }, cpu)).rejects.toThrow(/reward 2 must be a finite number/);
    await expect(computeWalk(null, { kind: 'kto', beta: 0.1, lambdaD: 1, lambdaU: 1, drift: 1, desirable: [1, 0] }, cpu)).rejects.toThrow(
      /desirable must be 4 flags/,
    );
    await expect(
      computeWalk(null, { kind: 'span-kto', beta: 0.5, lambdaW: 1, lambdaL: 1, alpha: 1.5, zRef: 0, polarity: SPAN_TOKENS.map(() => 0) }, cpu),
    ).rejects.toThrow(/span-kto walkthrough: alpha must be in \[0, 1\], got 1.5/);
    await expect(computeWalk(null, { kind: 'distill', coef: 1, route: [0, 2] }, cpu)).rejects.toThrow(/route must name a teacher/);
    await expect(computeWalk(null, { kind: 'nope' } as never, cpu)).rejects.toThrow(/no walkthrough is called "nope"/);
  });
});
