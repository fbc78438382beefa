// OPID's routing and context builder in the fast tier: each mode picks the step-level skill exactly
// at critical points (and the global skill, or nothing, elsewhere) on a real HiddenTestFS rollout;
// the builder puts skills after the prompt and right before a step, moves every later token by the
// skill's length, leaves every earlier one in place, and writes nothing for an empty skill; the
// views read each token's log-prob back from where the builder moved it, and a view cut at the
// context length leaves the tokens it lost unscored.

import { describe, expect, it } from 'vitest';
import { collectRollouts } from '../../envs/episode.ts';
import { HiddenTestFsEnv } from '../../envs/hidden-test-fs/env.ts';
import { hiddenProblem } from '../../envs/hidden-test-fs/problems.ts';
import { shAction } from '../../envs/hidden-test-fs/solver.ts';
import { HIDDEN_TEST_FS_VOCABULARY } from '../../envs/hidden-test-fs/task.ts';
import { scriptedSampler } from '../../envs/testing/scripted-sampler.ts';
import type { Gpt } from '../../model/gpt.ts';
import { CharTokenizer } from '../../tokenizer/char-tokenizer.ts';
import { injectTokens, injectTurns, skillBlock, stepStartsOf } from './context-builder.ts';
import type { CriticalPoint } from './critical-points.ts';
import { routeRollout } from './opid.ts';
import { routeSteps } from './routing.ts';
import { skillLogprobs } from './skill-delta.ts';
import type { Skills } from './skill-parser.ts';

const SKILLS: Skills = { global: 'ls -a;submit', steps: { 'after-readme': '7-2=5 so x+5', 'after-fail': 'revise the constant' } };
const CRITICAL = new Map<number, CriticalPoint>([
  [2, 'after-readme'],
  [4, 'after-fail'],
]);
const G = { afterPrompt: 'ls -a;submit' };
const README = { step: 2, text: '7-2=5 so x+5' };
const FAIL = { step: 4, text: 'revise the constant' };

describe('routing', () => {
  it('route: the step skill exactly at critical points, the global skill at every other step', () => {
    expect(routeSteps(6, CRITICAL, SKILLS, 'route')).toEqual([G, G, { beforeSteps: [README] }, G, { beforeSteps: [FAIL] }, G]);
  });

  it('concat, global-only and step-only', () => {
    expect(routeSteps(5, CRITICAL, SKILLS, 'concat')).toEqual([G, G, { ...G, beforeSteps: [README] }, G, { ...G, beforeSteps: [FAIL] }]);
    expect(routeSteps(5, CRITICAL, SKILLS, 'global-only')).toEqual([G, G, G, G, G]);
    expect(routeSteps(5, CRITICAL, SKILLS, 'step-only')).toEqual([undefined, undefined, { beforeSteps: [README] }, undefined, { beforeSteps: [FAIL] }]);
  });

  it('a critical point the group has no skill for falls back to the global skill, and no global skill scores nothing', () => {
    const readmeOnly: Skills = { global: 'g', steps: { 'after-readme': 'r' } };
    expect(routeSteps(5, CRITICAL, readmeOnly, 'route')[4]).toEqual({ afterPrompt: 'g' });
    expect(routeSteps(5, CRITICAL, { steps: {} }, 'route')).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it('on a real rollout, the step after the README read and the step after the failing run_tests get their step skills', async () => {
    const tokenizer = new CharTokenizer(HIDDEN_TEST_FS_VOCABULARY);
    const p = hiddenProblem(3, { minConstant: 1, maxConstant: 9 });
    const lines = ['ls -a', 'cat task/README', 'echo x+99>f.js', 'run_tests', `echo ${p.solution}>f.js`, 'submit'];
    const sampler = scriptedSampler(tokenizer, (_c, _row, call) => ({ text: shAction(lines[call]), ending: 'stop' }));
    const env = new HiddenTestFsEnv({ problem: (s) => hiddenProblem(s, { minConstant: 1, maxConstant: 9 }), hackOpen: false });
    const [sample] = await collectRollouts([{ env, seed: 3, rolloutId: 0, groupId: 0 }], tokenizer, sampler, {
      contextLength: 400,
      maxNewTokens: 40,
      maxTurns: 12,
    });
    const routed = routeRollout(sample, SKILLS, 'route');
    expect(stepStartsOf(sample.actionMask)).toHaveLength(lines.length);
    expect(routed.steps).toEqual([G, G, { beforeSteps: [README] }, G, { beforeSteps: [FAIL] }, G]);
  });
});

describe('the context builder', () => {
  const encode = (text: string) => [...text].map((c) => c.charCodeAt(0));
  // prompt [1, 2], step 0 = [10, 11], observation [20], step 1 = [12, 13]
  const tokens = [1, 2, 10, 11, 20, 12, 13];
  const starts = [2, 5];

  it('puts the global skill after the prompt and a step skill right before its step, moving only what follows', () => {
    const block = encode(skillBlock('s'));
    expect(skillBlock('s')).toBe('# s\n');
    const global = injectTokens(tokens, 2, starts, { afterPrompt: 's' }, encode);
    expect(global.tokens).toEqual([1, 2, ...block, 10, 11, 20, 12, 13]);
    expect(Array.from(global.position)).toEqual([0, 1, 6, 7, 8, 9, 10]);
    expect(global.firstAffected).toBe(2);
    const step = injectTokens(tokens, 2, starts, { beforeSteps: [{ step: 1, text: 's' }] }, encode);
    expect(step.tokens).toEqual([1, 2, 10, 11, 20, ...block, 12, 13]);
    expect(Array.from(step.position)).toEqual([0, 1, 2, 3, 4, 9, 10]);
    const both = injectTokens(tokens, 2, starts, { afterPrompt: 's', beforeSteps: [{ step: 0, text: 's' }] }, encode);
    expect(both.tokens).toEqual([1, 2, ...block, ...block, 10, 11, 20, 12, 13]);
  });

  it('writes nothing for an empty skill', () => {
    const empty = injectTokens(tokens, 2, starts, { afterPrompt: '', beforeSteps: [{ step: 1, text: '' }] }, encode);
    expect(empty.tokens).toEqual(tokens);
    expect(Array.from(empty.position)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('refuses a skill routed to a step the rollout does not have', () => {
    expect(() => injectTokens(tokens, 2, starts, { beforeSteps: [{ step: 2, text: 's' }] }, encode)).toThrow(/step 2, but the rollout has 2 steps/);
  });

  it('places the same text in a demonstration: an observation after the prompt, and before the routed action', () => {
    const turns = [
      { kind: 'observation', text: 'see task/README' },
      { kind: 'action', text: 'a0', ending: 'stop' },
      { kind: 'observation', text: 'o0' },
      { kind: 'action', text: 'a1', ending: 'stop' },
    ] as const;
    expect(injectTurns(turns, { afterPrompt: 'g', beforeSteps: [{ step: 1, text: 's' }] })).toEqual([
      turns[0],
      { kind: 'observation', text: '# g\n' },
      turns[1],
      turns[2],
      { kind: 'observation', text: '# s\n' },
      turns[3],
    ]);
    expect(injectTurns(turns, { afterPrompt: '' })).toEqual(turns);
  });
});

describe('the skill views', () => {
  // A scorer whose "log-prob" of a target is its id: a read-back from the wrong place shows.
  const scorer = {
    contextLogp: async (_model: Gpt, c: { targets: Uint32Array }) => Float32Array.from(c.targets),
  };
  const encode = (text: string) => [...text].map((c) => 100 + c.charCodeAt(0));
  const tokens = [1, 2, 10, 11, 20, 12, 13];
  const actionMask = [0, 0, 1, 1, 0, 1, 1];
  const T = 6;
  const base = new Float32Array(T).fill(-1);
  const scoring = (contextLength: number) => ({ scorer, policy: {} as Gpt, encode, padId: 0, temperature: 1, contextLength, maxRows: 1 });

  it('reads every scored token from its moved position, one view per distinct injection', async () => {
    const steps = [{ afterPrompt: 'g' }, { beforeSteps: [{ step: 1, text: 's' }] }];
    const { skillLogp, scored } = await skillLogprobs([{ tokens, responseStart: 2, actionMask, steps }], base, T, scoring(64));
    // Row position p − 1 predicts token p: the action tokens 10, 11 (positions 1, 2) and 12, 13 (4, 5).
    expect(Array.from(skillLogp)).toEqual([-1, 10, 11, -1, 12, 13]);
    expect(Array.from(scored)).toEqual([0, 1, 1, 0, 1, 1]);
  });

  it('leaves a token past the context length unscored, and a step routed nothing at its base log-prob', async () => {
    // The global skill block "# g\n" is 4 tokens: token 13 moves to index 10, past a context of 9 positions.
    const steps = [undefined, { afterPrompt: 'g' }];
    const { skillLogp, scored } = await skillLogprobs([{ tokens, responseStart: 2, actionMask, steps }], base, T, scoring(9));
    expect(Array.from(skillLogp)).toEqual([-1, -1, -1, -1, 12, -1]);
    expect(Array.from(scored)).toEqual([0, 0, 0, 0, 1, 0]);
  });
});
