import { describe, expect, it } from 'vitest';
import { criticSftExample, scriptedReasoning } from './critic-data.ts';
import { longestCriticPrompt, renderCriticPrompt } from './critic-prompt.ts';
import { criticTokenizer, criticVocabulary } from './critic-vocabulary.ts';
import { parseCritique } from './value-digit.ts';

describe('the critic prompt', () => {
  it('renders the actor prompt, its size and its win rate as a percentage', () => {
    expect(renderCriticPrompt('12+34=', { layers: 2, width: 32, winRate: 0.374 })).toBe('12+34=L2D32W37|');
    expect(renderCriticPrompt('1+1=', { layers: 1, width: 8, winRate: 1 })).toBe('1+1=L1D8W100|');
    expect(renderCriticPrompt('1+1=', { layers: 1, width: 8, winRate: undefined })).toBe('1+1=L1D8W?|');
  });

  it('refuses a win rate outside [0, 1] and a size that is not a positive integer', () => {
    expect(() => renderCriticPrompt('1+1=', { layers: 1, width: 8, winRate: 1.5 })).toThrow(/win rate/);
    expect(() => renderCriticPrompt('1+1=', { layers: 0, width: 8, winRate: 0 })).toThrow(/layers/);
  });

  it('measures the longest prompt with a three-digit win rate', () => {
    expect(longestCriticPrompt(6, { layers: 2, width: 32 })).toBe('12+34=L2D32W100|'.length);
  });
});

describe('the scripted reasoning', () => {
  it('flags a carry or a borrow in any column', () => {
    expect(scriptedReasoning('12+34=')).toBe('c0');
    expect(scriptedReasoning('15+7=')).toBe('c1');
    expect(scriptedReasoning('95+5=')).toBe('c1');
    expect(scriptedReasoning('0+0=')).toBe('c0');
    expect(scriptedReasoning('41-20=')).toBe('c0');
    expect(scriptedReasoning('40-21=')).toBe('c1');
    expect(() => scriptedReasoning('f.js')).toThrow(/reads "a\+b="/);
  });

  it('writes an SFT example whose completion parses back to round(10·MC)', () => {
    const example = criticSftExample('15+7=', { layers: 2, width: 32, winRate: 0.5 }, 0.66);
    expect(example).toEqual({ prompt: '15+7=L2D32W50|', completion: 'c1=7' });
    expect(parseCritique(example.completion, true)).toMatchObject({ ok: true, digit: 7 });
  });
});

describe('the critic vocabulary', () => {
  it("extends the task's characters and keeps every id the task's text has", () => {
    const addition = criticVocabulary({ env: 'addition' } as never);
    expect(addition.characters.slice(0, 12).join('')).toBe('0123456789+=');
    expect(addition.characters.slice(12)).toEqual(['L', 'D', 'W', '?', '|', 'c']);
    const tokenizer = criticTokenizer({ env: 'addition' } as never);
    expect(tokenizer.vocabSize).toBe(13 + 6);
    const text = criticSftExample('15+7=', { layers: 2, width: 32, winRate: undefined }, 1);
    expect(tokenizer.decode(tokenizer.encode(text.prompt + text.completion))).toBe('15+7=L2D32W?|c1=10');
  });
});
