// KTO's file source (labelled-examples.ts): TRL's unpaired rows become samples like rollouts
// (completion + <eos> as action tokens, the label as reward 1 / 0), and a bad row is one sentence
// naming the file and its line. Pure TypeScript (it sits in train/, whose tests run in the GPU tier).

import { describe, expect, it } from 'vitest';
import { isInputError } from '../errors.ts';
import { resolveRecipe } from '../recipe/resolve.ts';
import { labelledBatch, labelledFileOf, parseLabelledFile } from './labelled-examples.ts';

const recipe = resolveRecipe({ preset: 'add-kto', sets: ['kto.source=file', 'kto.file=data/kto.jsonl'] }).recipe;
const rows = (...lines: unknown[]) => lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n');

function refusal(text: string): string {
  try {
    parseLabelledFile('data/kto.jsonl', text, recipe);
  } catch (error) {
    expect(isInputError(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error('the file was accepted');
}

describe('a labelled file', () => {
  it('is the recipe’s only when kto.source is "file"', () => {
    expect(labelledFileOf(recipe)).toBe('data/kto.jsonl');
    expect(labelledFileOf(resolveRecipe({ preset: 'add-kto' }).recipe)).toBeUndefined();
  });

  it('parses TRL’s unpaired rows, skipping blank lines and ignoring extra keys', () => {
    const text = rows({ prompt: '1+2=', completion: '3', label: true }, '', { prompt: '4+4=', completion: '9', label: false, source: 'x' }, '');
    const examples = parseLabelledFile('data/kto.jsonl', text, recipe);
    expect(examples.map((e) => [e.prompt, e.completion, e.desirable, e.line])).toEqual([
      ['1+2=', '3', true, 1],
      ['4+4=', '9', false, 3],
    ]);
    expect(examples[0].responseStart).toBe(4);
    expect(examples[0].tokens).toHaveLength(6); // "1+2=" "3" <eos>
  });

  it('a bad row is one sentence naming the file and the line', () => {
    const good = { prompt: '1+2=', completion: '3', label: true };
    expect(refusal(rows(good, '{"prompt": "1+1=", '))).toBe(
      'kto.file data/kto.jsonl line 2 is not valid JSON; each line must be one object {"prompt": …, "completion": …, "label": true|false}.',
    );
    expect(refusal(rows(good, [1, 2]))).toBe('kto.file data/kto.jsonl line 2 must be a JSON object, got an array.');
    expect(refusal(rows(good, good, { prompt: '1+1=', label: true }))).toBe('kto.file data/kto.jsonl line 3 needs "completion" as text, got nothing.');
    expect(refusal(rows({ ...good, label: 1 }))).toBe('kto.file data/kto.jsonl line 1 needs "label" as true (desirable) or false (undesirable), got a number.');
    expect(refusal(rows({ ...good, prompt: '' }))).toBe('kto.file data/kto.jsonl line 1 has an empty "prompt".');
    expect(refusal(rows({ ...good, completion: '1'.repeat(30) }))).toBe(
      'kto.file data/kto.jsonl line 1 is 35 tokens with <eos>, more than model.contextLength (32).',
    );
    expect(refusal('\n\n')).toBe('kto.file data/kto.jsonl holds no rows; give one JSON object per line.');
  });

  it('a character outside the vocabulary is named with its line (there is no <unk> token)', () => {
    expect(refusal(rows({ prompt: '1+2=', completion: '3', label: true }, { prompt: '1 + 2 =', completion: '3', label: false }))).toBe(
      'kto.file data/kto.jsonl line 2 has " " in "prompt", which is not in the task\'s vocabulary ("0123456789+=").',
    );
    // A special token's name is text, not a token: a file cannot forge <eos>.
    expect(refusal(rows({ prompt: '1+2=', completion: '3<eos>', label: true }))).toMatch(/line 1 has "<" in "completion"/);
  });
});

describe('an iteration’s labelled samples', () => {
  const examples = parseLabelledFile(
    'data/kto.jsonl',
    rows(...Array.from({ length: 5 }, (_, i) => ({ prompt: `${i}+1=`, completion: String(i + 1), label: i % 2 === 0 }))),
    recipe,
  );

  it('look like rollouts: completion and <eos> are the action, the label the reward', () => {
    const [s] = labelledBatch(examples, 1, 0, 1);
    expect(s.actionMask.slice(s.responseStart)).toEqual(Uint8Array.from([1, 1]));
    expect(s.actionMask.slice(0, s.responseStart).every((m) => m === 0)).toBe(true);
    expect(s.reward).toBe(s.meta.correct ? 1 : 0);
    expect(s.stepRewards).toEqual([{ position: s.tokens.length - 1, value: s.reward }]);
  });

  it('cover every row once per pass, in a seeded order that a resume replays', () => {
    const pass = labelledBatch(examples, 1, 0, 5).map((s) => s.meta.line);
    expect([...pass].sort()).toEqual([1, 2, 3, 4, 5]);
    // Positions 3…7 straddle two passes: the same rows as reading them from the start.
    const straddle = labelledBatch(examples, 1, 3, 5).map((s) => s.meta.line);
    expect(straddle).toEqual(
      labelledBatch(examples, 1, 0, 8)
        .slice(3)
        .map((s) => s.meta.line),
    );
    expect(labelledBatch(examples, 2, 0, 5).map((s) => s.meta.line)).not.toEqual(pass);
  });
});
