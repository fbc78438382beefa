// Subtraction and the mixed arithmetic task: problems, held-out exclusion by value, skill tags,
// per-skill evaluation sets, and a vocabulary that keeps every addition id where it was.

import { describe, expect, it } from 'vitest';
import { CharTokenizer } from '../tokenizer/char-tokenizer.ts';
import { ADDITION_VOCABULARY } from './addition.ts';
import { episodeSeed } from './seeds.ts';
import { ARITHMETIC_VOCABULARY, makeSubtractionProblem, subtractionProblem, subtractionProblemCount } from './subtraction.ts';
import { createTask, sampleSkill, type TaskConfig, taskChecks, taskLimits, taskVocabulary } from './tasks.ts';

const digits = { minDigits: 1, maxDigits: 2, oodMinDigits: 3, oodMaxDigits: 3 };
const config = (env: TaskConfig['env'], subtractionShare = 0.5): TaskConfig => ({ env, addition: digits, subtraction: digits, mix: { subtractionShare } });
const sizes = { heldOutSize: 100, oodSize: 30 };

async function episode(task: ReturnType<typeof createTask>, split: 'train' | 'heldOut' | 'ood', seed: number) {
  const env = task.createEnv(split);
  const start = await env.reset(seed);
  const prompt = start.prompt as string;
  const [a, op, b] = /^(\d+)([+-])(\d+)=$/.exec(prompt)?.slice(1) ?? [];
  const answer = (op === '+' ? BigInt(a) + BigInt(b) : BigInt(a) - BigInt(b)).toString();
  expect(await env.step(answer, 'eos')).toEqual({ done: true });
  const turns = [{ action: answer, ending: 'eos' as const }];
  const verdict = await env.verifier.score({ seed, prompt, turns, status: 'completed', info: start.info ?? {} });
  await env.close();
  return { prompt, op, result: { reward: verdict.reward, info: { ...start.info, ...verdict.info } } };
}

describe('subtraction problems', () => {
  it('puts the larger operand first, so the difference is never negative', () => {
    expect(makeSubtractionProblem('3', '57')).toEqual({ a: '57', b: '3', prompt: '57-3=', answer: '54' });
    expect(makeSubtractionProblem('12', '12').answer).toBe('0');
    expect(makeSubtractionProblem('100000000000000000000', '1').answer).toBe('99999999999999999999');
    for (let s = 0; s < 300; s++) {
      const p = subtractionProblem(s, { minDigits: 1, maxDigits: 3 });
      expect(BigInt(p.a) >= BigInt(p.b)).toBe(true);
      expect(p.answer).toMatch(/^(0|[1-9]\d*)$/);
    }
  });

  it('counts unordered pairs: 1-digit operands give 10·11/2 problems', () => {
    expect(subtractionProblemCount({ minDigits: 1, maxDigits: 1 })).toBe(55);
  });
});

describe('the arithmetic vocabulary', () => {
  it("appends '-' after addition's characters: every addition id stays, addition alone keeps 13 tokens, the mix has <unk>", () => {
    const add = new CharTokenizer(ADDITION_VOCABULARY);
    const all = new CharTokenizer(ARITHMETIC_VOCABULARY);
    expect(add.vocabSize).toBe(13);
    // 13 + '-' + <unk> (the tokenizer's default; only addition opts out, to keep its numbers).
    expect(all.vocabSize).toBe(15);
    expect(all.encode('*')).toEqual([14]);
    for (const ch of ADDITION_VOCABULARY.characters) expect(all.encode(ch)).toEqual(add.encode(ch));
    expect(all.eosId).toBe(add.eosId);
    expect(all.encode('-')).toEqual([13]);
    expect(taskVocabulary({ env: 'addition' })).toBe(ADDITION_VOCABULARY);
    expect(taskVocabulary({ env: 'mix' })).toBe(ARITHMETIC_VOCABULARY);
  });
});

describe('the subtraction task', () => {
  const task = createTask(config('subtraction'), sizes);

  it('never trains on a held-out problem, and its sets are fixed', async () => {
    const heldOut = new Set<string>();
    for (const s of task.evalSeeds('heldOut')) heldOut.add((await episode(task, 'heldOut', s)).prompt);
    expect(heldOut.size).toBe(100);
    const env = task.createEnv('train');
    for (let i = 0; i < 2000; i++) {
      expect(heldOut.has((await env.reset(task.trainSeed(3, i))).prompt as string)).toBe(false);
      expect(heldOut.has(task.sftExample(3, i).prompt)).toBe(false);
    }
    expect(createTask(config('subtraction'), sizes).evalSeeds('heldOut')).toEqual(task.evalSeeds('heldOut'));
  });

  it('rewards the exact difference; limits and checks name subtraction fields', async () => {
    const { op, result } = await episode(task, 'train', task.trainSeed(1, 0));
    expect(op).toBe('-');
    expect(result.reward).toBe(1);
    // Longest OOD prompt "999-999=" and answer "999" (a difference never carries).
    expect(taskLimits(config('subtraction'))).toEqual({ maxPromptChars: 8, maxResponseChars: 3 });
    const bad = taskChecks({ ...config('subtraction'), subtraction: { ...digits, oodMinDigits: 2 } }, sizes);
    expect(bad[0].path).toBe('task.subtraction.oodMinDigits');
  });
});

describe('the mixed task', () => {
  const task = createTask(config('mix'), sizes);

  it('tags every sample with its skill and draws both skills in about the set share', async () => {
    let subtraction = 0;
    for (let i = 0; i < 400; i++) {
      const { op, result } = await episode(task, 'train', task.trainSeed(7, i));
      expect(result.info.task).toBe(op === '+' ? 'addition' : 'subtraction');
      expect(result.reward).toBe(1);
      if (op === '-') subtraction++;
    }
    expect(subtraction).toBeGreaterThan(150);
    expect(subtraction).toBeLessThan(250);
    const sftOps = Array.from({ length: 200 }, (_, i) => task.sftExample(7, i).prompt.includes('-'));
    expect(sftOps.filter(Boolean).length).toBeGreaterThan(70);
    expect(sftOps.filter(Boolean).length).toBeLessThan(130);
  });

  it('shares 0 and 1 train one skill only, with the same evaluation sets', async () => {
    const additionOnly = createTask(config('mix', 0), sizes);
    const subtractionOnly = createTask(config('mix', 1), sizes);
    for (let i = 0; i < 100; i++) {
      expect((await episode(additionOnly, 'train', additionOnly.trainSeed(1, i))).op).toBe('+');
      expect((await episode(subtractionOnly, 'train', subtractionOnly.trainSeed(1, i))).op).toBe('-');
    }
    expect(additionOnly.evalSeeds('heldOut')).toEqual(subtractionOnly.evalSeeds('heldOut'));
  });

  it('evaluates each skill on its own held-out set: the addition half is the addition task’s set', async () => {
    const addition = createTask({ env: 'addition', addition: digits }, sizes);
    const subtraction = createTask(config('subtraction'), sizes);
    const bySkill: Record<string, string[]> = { addition: [], subtraction: [] };
    for (const seed of task.evalSeeds('heldOut')) {
      const { prompt, result } = await episode(task, 'heldOut', seed);
      const tag = sampleSkill({ meta: result.info }, task);
      bySkill[tag].push(prompt);
    }
    const prompts = async (t: typeof task) => Promise.all(t.evalSeeds('heldOut').map(async (s) => (await episode(t, 'heldOut', s)).prompt));
    expect(bySkill.addition).toEqual(await prompts(addition));
    expect(bySkill.subtraction).toEqual(await prompts(subtraction));
    expect(task.tags).toEqual(['addition', 'subtraction']);
  });

  it('keeps training off both skills’ held-out problems', async () => {
    const heldOut = new Set<string>();
    for (const s of task.evalSeeds('heldOut')) heldOut.add((await episode(task, 'heldOut', s)).prompt);
    const env = task.createEnv('train');
    for (let i = 0; i < 2000; i++) expect(heldOut.has((await env.reset(task.trainSeed(5, i))).prompt as string)).toBe(false);
  });

  it('a single-skill task tags its samples with its one skill', () => {
    const addition = createTask({ env: 'addition', addition: digits }, sizes);
    expect(sampleSkill({ meta: {} }, addition)).toBe('addition');
    expect(episodeSeed(0, 'heldOut', 0)).toBe(addition.evalSeeds('heldOut')[0]);
  });
});
