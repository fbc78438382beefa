import { describe, expect, it } from 'vitest';
import { ADDITION_VOCABULARY, AdditionEnv, additionProblem, additionProblemCount, distinctAdditionProblems, makeAdditionProblem } from './addition.ts';
import type { ActionEnding, Environment, EpisodeStart } from './environment.ts';
import { episodeSeed, mixSeed } from './seeds.ts';
import { createTask, taskChecks, taskLimits } from './tasks.ts';

const range = { minDigits: 2, maxDigits: 4 };

describe('addition problems', () => {
  it('writes the sum most-significant digit first, exactly, even past 2^53', () => {
    expect(makeAdditionProblem('57', '68')).toEqual({ a: '57', b: '68', prompt: '57+68=', answer: '125' });
    expect(makeAdditionProblem('0', '0').answer).toBe('0');
    expect(makeAdditionProblem('99999999999999999999', '1').answer).toBe('100000000000000000000');
    expect(() => makeAdditionProblem('07', '1')).toThrow(RangeError);
  });

  it('is a pure function of the seed and respects the digit range', () => {
    const lengths = new Set<number>();
    for (let s = 0; s < 500; s++) {
      const p = additionProblem(s, range);
      expect(additionProblem(s, range)).toEqual(p);
      for (const x of [p.a, p.b]) {
        expect(x.length).toBeGreaterThanOrEqual(2);
        expect(x.length).toBeLessThanOrEqual(4);
        expect(x[0]).not.toBe('0');
        lengths.add(x.length);
      }
      expect(BigInt(p.answer)).toBe(BigInt(p.a) + BigInt(p.b));
    }
    expect([...lengths].sort()).toEqual([2, 3, 4]);
  });

  it('one-digit operands include 0 and every digit appears', () => {
    const seen = new Set<string>();
    for (let s = 0; s < 300; s++) seen.add(additionProblem(s, { minDigits: 1, maxDigits: 1 }).a);
    expect([...seen].sort()).toEqual([...'0123456789']);
  });

  it('counts the problem space', () => {
    expect(additionProblemCount({ minDigits: 1, maxDigits: 1 })).toBe(100);
    expect(additionProblemCount({ minDigits: 1, maxDigits: 2 })).toBe(100 * 100);
    expect(additionProblemCount({ minDigits: 3, maxDigits: 3 })).toBe(900 * 900);
  });

  it('redraws excluded problems deterministically', () => {
    const p = additionProblem(7, range);
    const q = additionProblem(7, range, new Set([`${p.a}+${p.b}`]));
    expect(q).not.toEqual(p);
    expect(additionProblem(7, range, new Set([`${p.a}+${p.b}`]))).toEqual(q);
  });

  it('draws distinct problems and refuses more than the space holds', () => {
    const r = { minDigits: 1, maxDigits: 1 };
    const { problems, seeds } = distinctAdditionProblems(100, r, (i) => mixSeed(9, i));
    expect(new Set(problems.map((p) => p.prompt)).size).toBe(100);
    expect(seeds).toHaveLength(100);
    expect(() => distinctAdditionProblems(101, r, (i) => i)).toThrow(/exceeds the 100 distinct problems/);
  });

  it('the vocabulary covers every character of prompts and answers', () => {
    const chars = new Set(ADDITION_VOCABULARY.characters);
    for (let s = 0; s < 100; s++) {
      const p = additionProblem(s, { minDigits: 1, maxDigits: 6 });
      for (const c of p.prompt + p.answer) expect(chars.has(c)).toBe(true);
    }
    expect(ADDITION_VOCABULARY.specialTokens[0]).toBe('<eos>');
  });
});

describe('AdditionEnv', () => {
  /** One episode of seed 3 answered with `action`, scored by the environment's verifier. */
  function answered(env: AdditionEnv, action: string, ending: ActionEnding) {
    const start = env.reset(3);
    expect(env.step(action, ending)).toEqual({ done: true });
    env.close();
    return env.verifier.score({ seed: 3, prompt: start.prompt as string, turns: [{ action, ending }], status: 'completed', info: start.info ?? {} });
  }

  it('its verifier rewards the exact answer ended by end-of-sequence, and nothing else', () => {
    const env = new AdditionEnv(range);
    const p = additionProblem(3, range);
    expect(env.reset(3)).toEqual({ prompt: p.prompt, info: { a: p.a, b: p.b, expected: p.answer } });
    expect(answered(env, p.answer, 'eos')).toEqual({ reward: 1, info: { got: p.answer, ending: 'eos', correct: true } });
    const wrong = [
      [p.answer, 'length'],
      [`${p.answer}0`, 'eos'],
      [p.answer.slice(1), 'eos'],
      [`0${p.answer}`, 'eos'],
      [` ${p.answer}`, 'eos'],
      ['', 'eos'],
    ] as const;
    for (const [action, ending] of wrong) expect(answered(env, action, ending)).toMatchObject({ reward: 0, info: { correct: false } });
  });

  it('refuses a step without a reset, and a second step in one episode', () => {
    const env = new AdditionEnv(range);
    expect(() => env.step('1', 'eos')).toThrow(/before reset/);
    env.reset(1);
    env.step('1', 'eos');
    expect(() => env.step('1', 'eos')).toThrow(/before reset/);
  });

  it('rejects a bad digit range naming the field', () => {
    expect(() => new AdditionEnv({ minDigits: 0, maxDigits: 2 })).toThrow(/digits.minDigits must be an integer in \[1, 20\], got 0/);
    expect(() => new AdditionEnv({ minDigits: 3, maxDigits: 2 })).toThrow(/digits.minDigits \(3\) must not exceed digits.maxDigits \(2\)/);
  });
});

/** The prompt of a (synchronous) environment's episode of `seed`. */
const promptOf = (env: Environment, seed: number) => (env.reset(seed) as EpisodeStart).prompt as string;

describe('addition task', () => {
  const config = { env: 'addition' as const, addition: { minDigits: 1, maxDigits: 2, oodMinDigits: 3, oodMaxDigits: 4 } };
  const sizes = { heldOutSize: 300, oodSize: 50 };
  const task = createTask(config, sizes);
  const key = (prompt: string) => prompt;

  it('held-out problems never appear in training episodes or SFT examples', () => {
    const heldOut = new Set(task.evalSeeds('heldOut').map((s) => key(promptOf(task.createEnv('heldOut'), s))));
    expect(heldOut.size).toBe(300);
    const env = task.createEnv('train');
    let overlapsWithoutExclusion = 0;
    for (let i = 0; i < 3000; i++) {
      const seed = task.trainSeed(11, i);
      expect(heldOut.has(promptOf(env, seed))).toBe(false);
      if (heldOut.has(additionProblem(seed, { minDigits: 1, maxDigits: 2 }).prompt)) overlapsWithoutExclusion++;
      expect(heldOut.has(task.sftExample(11, i).prompt)).toBe(false);
    }
    // The exclusion is doing work: unfiltered draws would hit the held-out set about 3% of the time.
    expect(overlapsWithoutExclusion).toBeGreaterThan(20);
  });

  it('evaluation sets are fixed across runs; OOD operands are longer than any trained', () => {
    expect(createTask(config, sizes).evalSeeds('heldOut')).toEqual(task.evalSeeds('heldOut'));
    const env = task.createEnv('ood');
    for (const s of task.evalSeeds('ood')) {
      const [a, b] = promptOf(env, s).slice(0, -1).split('+');
      expect(Math.min(a.length, b.length)).toBeGreaterThanOrEqual(3);
      expect(Math.max(a.length, b.length)).toBeLessThanOrEqual(4);
    }
    expect(task.evalSeeds('ood')).toHaveLength(50);
  });

  it('training seeds depend on the run seed and index; SFT pairs are prompt and answer', () => {
    expect(task.trainSeed(1, 5)).toBe(episodeSeed(1, 'train', 5));
    expect(task.trainSeed(1, 5)).not.toBe(task.trainSeed(2, 5));
    const ex = task.sftExample(1, 0);
    expect(ex.prompt).toMatch(/^\d{1,2}\+\d{1,2}=$/);
    const [a, b] = ex.prompt.slice(0, -1).split('+');
    expect(ex.completion).toBe(String(Number(a) + Number(b)));
  });

  it('limits and cross-field checks', () => {
    expect(taskLimits(config)).toEqual({ maxPromptChars: 10, maxResponseChars: 5 });
    expect(taskChecks(config, sizes)).toEqual([]);
    expect(taskChecks({ ...config, addition: { ...config.addition, oodMinDigits: 2 } }, sizes)[0].path).toBe('task.addition.oodMinDigits');
    expect(taskChecks(config, { heldOutSize: 5001, oodSize: 1 })[0]).toMatchObject({ path: 'eval.heldOutSize' });
    expect(() => createTask(config, { heldOutSize: 5001, oodSize: 1 })).toThrow(/eval.heldOutSize must be at most half of the 10000 problems/);
  });
});
