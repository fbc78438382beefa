// OPID's parser side in the fast tier, on real HiddenTestFS episodes (the scripted sampler types the
// command lines; the environment runs them and records every call): the execution log joins turns
// and call records, a demonstration's log is the log of the same episode replayed, critical points
// and skills are read off the log, a group's skills come from its successful honest rollouts, and
// the skill-carrying demonstrations are half of them and fit the preset's context.

import { describe, expect, it } from 'vitest';
import type { SftTurn } from '../../envs/environment.ts';
import { collectRollouts } from '../../envs/episode.ts';
import { HiddenTestFsEnv } from '../../envs/hidden-test-fs/env.ts';
import { type HiddenProblem, hiddenProblem } from '../../envs/hidden-test-fs/problems.ts';
import { demonstrationTurns, shAction } from '../../envs/hidden-test-fs/solver.ts';
import { HIDDEN_TEST_FS_VOCABULARY } from '../../envs/hidden-test-fs/task.ts';
import type { Sample } from '../../envs/sample.ts';
import { createTask } from '../../envs/tasks.ts';
import { scriptedSampler } from '../../envs/testing/scripted-sampler.ts';
import { resolveRecipe } from '../../recipe/resolve.ts';
import { CharTokenizer } from '../../tokenizer/char-tokenizer.ts';
import { sftBatch } from '../../train/sft.ts';
import { criticalPoints } from './critical-points.ts';
import { demonstrationSkillKind, skillDemonstration } from './demonstrations.ts';
import { demonstrationLog, rolloutLog } from './execution-log.ts';
import { groupSkills } from './group-skills.ts';
import { parseSkills, REVISE_SKILL, readmeSkill } from './skill-parser.ts';

const TRAIN = { minConstant: 1, maxConstant: 9 };
const tokenizer = new CharTokenizer(HIDDEN_TEST_FS_VOCABULARY);

function problemOf(family: 'add' | 'mul'): { seed: number; p: HiddenProblem } {
  for (let seed = 0; ; seed++) {
    const p = hiddenProblem(seed, TRAIN);
    if (p.family === family && p.constant > 2) return { seed, p };
  }
}

/** One episode of `actions` (action texts, each a turn) through the real environment. */
async function episode(seed: number, actions: string[]): Promise<Sample> {
  const sampler = scriptedSampler(tokenizer, (_c, _row, call) => ({ text: actions[call], ending: 'stop' }));
  const env = new HiddenTestFsEnv({ problem: (s) => hiddenProblem(s, TRAIN), hackOpen: false });
  const [sample] = await collectRollouts([{ env, seed, rolloutId: 0, groupId: 0 }], tokenizer, sampler, { contextLength: 400, maxNewTokens: 40, maxTurns: 12 });
  return sample;
}

const { seed, p } = problemOf('add');
const [first] = p.visible;
const right = `x+${p.constant}`;
const wrong = `x+${p.constant + 1}`;
const REVISING = ['ls -a', 'cat task/README', `echo ${wrong}>f.js`, 'run_tests', `echo ${right}>f.js`, 'run_tests', 'submit'];

describe('the execution log', () => {
  it('joins each turn with its recorded call: line, exit status and output, a malformed call left without one', async () => {
    const sample = await episode(seed, ['<tool_call>sh</tool_call>', ...REVISING.map(shAction)]);
    const log = rolloutLog(sample);
    expect(log.map((s) => s.step)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(log[0].call).toBeUndefined();
    expect(log.slice(1).map((s) => [s.call?.line, s.call?.exitCode])).toEqual([
      ['ls -a', 0],
      ['cat task/README', 0],
      [`echo ${wrong}>f.js`, 0],
      ['run_tests', 1],
      [`echo ${right}>f.js`, 0],
      ['run_tests', 0],
      ['submit', 0],
    ]);
    expect(log[2].call?.output).toBe(`f(${p.visible[0].x})=${p.visible[0].y} f(${p.visible[1].x})=${p.visible[1].y}\nwrite f.js\n`);
    expect(log[4].call?.output).toMatch(/^fail 0\/2/);
  });

  it("a demonstration's log is the log of the same demonstration run through the environment", async () => {
    const all = { readNotes: true, listTask: true, readTests: true, revise: true, readBack: true, check: true };
    for (const plan of [all, { ...all, revise: false, readNotes: false }]) {
      const turns = demonstrationTurns(p, plan);
      const actions = turns.filter((t): t is Extract<SftTurn, { kind: 'action' }> => t.kind === 'action').map((t) => t.text);
      const sample = await episode(seed, actions);
      expect(sample.reward).toBe(1);
      expect(demonstrationLog(turns)).toEqual(rolloutLog(sample));
    }
  });
});

describe('critical points and skills', () => {
  it('finds the step after a README read and the step after a failing run_tests, and nothing else', async () => {
    const log = rolloutLog(await episode(seed, REVISING.map(shAction)));
    expect([...criticalPoints(log)]).toEqual([
      [2, 'after-readme'],
      [4, 'after-fail'],
    ]);
  });

  it('parses the workflow, the README arithmetic and the revision from a log', async () => {
    const skills = parseSkills(rolloutLog(await episode(seed, REVISING.map(shAction))));
    expect(skills.global).toBe('ls -a;cat task/README;echo expr>f.js;run_tests;submit');
    expect(skills.steps).toEqual({ 'after-readme': `${first.y}-${first.x}=${p.constant} so x+${p.constant}`, 'after-fail': REVISE_SKILL });
  });

  it('leaves failed calls and exploration out of the workflow, and gives no revision without one', async () => {
    const lines = ['ls -a', 'cat nothing', 'cat .notes', 'cat task/README', `echo ${right}>f.js`, 'cat f.js', 'submit'];
    const skills = parseSkills(rolloutLog(await episode(seed, lines.map(shAction))));
    expect(skills.global).toBe('ls -a;cat task/README;echo expr>f.js;submit');
    expect(skills.steps['after-fail']).toBeUndefined();
  });

  it('reads x*a from a README as a division', () => {
    expect(readmeSkill('f(2)=8 f(3)=12\nwrite f.js\n')).toBe('8/2=4 so x*4');
    expect(readmeSkill('f(2)=7 f(4)=9\nwrite f.js\n')).toBe('7-2=5 so x+5');
    expect(readmeSkill('f(2)=7 f(3)=11\nwrite f.js\n')).toBeUndefined();
    expect(readmeSkill('cat: task/README: No such file')).toBeUndefined();
  });

  it("takes a group's workflow from its best honest success, the README arithmetic from any rollout, and none of a failed group's workflow", async () => {
    const failed = await episode(seed, ['ls -a', 'cat task/README', `echo ${wrong}>f.js`, 'submit'].map(shAction));
    const revised = await episode(seed, REVISING.map(shAction));
    const plain = await episode(seed, ['cat task/README', `echo ${right}>f.js`, 'submit'].map(shAction));
    expect([failed.reward, revised.reward, plain.reward]).toEqual([0, 1, 1]);
    expect(groupSkills([failed, plain, revised])).toEqual({
      global: 'cat task/README;echo expr>f.js;submit',
      steps: { 'after-readme': `${first.y}-${first.x}=${p.constant} so x+${p.constant}`, 'after-fail': REVISE_SKILL },
    });
    const hacked = { ...revised, meta: { ...revised.meta, hackAttempt: true } };
    expect(groupSkills([failed, hacked]).global).toBeUndefined();
    expect(groupSkills([failed, hacked]).steps['after-fail']).toBeUndefined();
    expect(groupSkills([failed]).steps['after-readme']).toBeDefined();
  });
});

describe('skill-carrying demonstrations', () => {
  const recipe = resolveRecipe({ preset: 'hidden-opid' }).recipe;
  const task = createTask(recipe.task, recipe.eval);

  it('leave the even half as the task writes them and carry skills in the odd half, all within the context', () => {
    const kinds = { none: 0, global: 0, steps: 0 };
    for (let index = 0; index < 64; index++) {
      const plain = task.sftExample(recipe.seed, index);
      const demo = skillDemonstration(task, recipe.seed, index);
      const kind = demonstrationSkillKind(index);
      kinds[kind]++;
      if (kind === 'none') expect(demo).toEqual(plain);
      else expect(demo.turns?.length).toBeGreaterThan(plain.turns?.length ?? 0);
      if (kind === 'global') expect(demo.turns?.[1]).toEqual({ kind: 'observation', text: expect.stringMatching(/^# (ls -a;)?cat task\/README;.*submit\n$/) });
      if (kind === 'steps') expect(demo.turns?.some((t) => t.kind === 'observation' && /^# \d+[-/]\d+=\d+ so x[+*]\d+\n$/.test(String(t.text)))).toBe(true);
      // sftBatch refuses an example longer than the context.
      expect(sftBatch([demo], tokenizer, tokenizer.eosId, tokenizer.padId, recipe.model.contextLength).T).toBeLessThanOrEqual(recipe.model.contextLength);
    }
    expect(kinds).toEqual({ none: 32, global: 16, steps: 16 });
  });
});
