// The chat template: messages become the episode layout (no role markers, answers end in <eos>, tool
// results between their tags), assistant tool calls are written positionally, a completion's call is
// read back against the request's schemas, and a vocabulary without a needed tag is refused.

import { describe, expect, it } from 'vitest';
import { CharTokenizer } from '../tokenizer/char-tokenizer.ts';
import { parseCompletion, renderChat, TemplateError, toolCallBody } from './chat-template.ts';

const full = new CharTokenizer();
const addition = new CharTokenizer({ characters: '0123456789+=', specialTokens: ['<eos>'] });
const write = { name: 'write', parameters: { properties: { path: { type: 'string' }, text: { type: 'string' } }, required: ['path', 'text'] } };
const add = { name: 'add', parameters: { properties: { a: { type: 'number' }, b: { type: 'number' } } } };

describe('chat template', () => {
  it('lays messages out as an episode context', () => {
    const parts = renderChat(
      [
        { role: 'system', content: 'Add. ' },
        { role: 'user', content: '1+1=' },
        { role: 'assistant', content: '2' },
        { role: 'user', content: '2+2=' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c', type: 'function', function: { name: 'write', arguments: '{"path":"a b.txt","text":"two words"}' } }],
        },
        { role: 'tool', content: 'ok' },
      ],
      [write],
      full,
    );
    expect(parts).toEqual([
      'Add. ',
      '1+1=',
      '2',
      { special: '<eos>' },
      '2+2=',
      { special: '<tool_call>' },
      'write "a b.txt" two words',
      { special: '</tool_call>' },
      { special: '<tool_result>' },
      'ok',
      { special: '</tool_result>' },
    ]);
  });

  it('writes numbers as JSON words and refuses a call to a tool the request lacks', () => {
    expect(toolCallBody({ id: 'c', type: 'function', function: { name: 'add', arguments: '{"b":3,"a":2}' } }, [add])).toBe('add 2 3');
    expect(() => toolCallBody({ id: 'c', type: 'function', function: { name: 'rm', arguments: '{}' } }, [add])).toThrow(TemplateError);
  });

  it('reads a completion’s tool call back, and leaves one that does not parse as text', () => {
    expect(parseCompletion('thinking<tool_call>write notes.txt hello there</tool_call>', 'stop', [write])).toEqual({
      content: 'thinking',
      toolCall: { name: 'write', arguments: { path: 'notes.txt', text: 'hello there' } },
    });
    expect(parseCompletion('<tool_call>nope 1</tool_call>', 'stop', [write])).toEqual({ content: '<tool_call>nope 1</tool_call>' });
    expect(parseCompletion('<tool_call>add 1 2</tool_call>', 'stop', [])).toEqual({ content: '<tool_call>add 1 2</tool_call>' });
  });

  it('refuses a tool message for a vocabulary without <tool_result>', () => {
    expect(() => renderChat([{ role: 'tool', content: '5' }], [], addition)).toThrow("this model's vocabulary has no <tool_result> token");
  });
});
