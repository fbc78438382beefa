// The tool-call format: positional arguments checked by the tool's schema, every way a call can be
// broken named in one sentence, tool output cut on the chosen side, and the JSON schema a model is
// shown (without the context the environment passes).

import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, type Tool, type ToolContext, toolSpec } from './tool.ts';
import { extractToolCall, parseToolCall, runToolCall, toolUsage, truncateText } from './tool-call.ts';

type Files = Map<string, string>;
const add = defineTool<Files, z.ZodObject<{ a: z.ZodNumber; b: z.ZodNumber }>>({
  name: 'add',
  description: 'Adds two integers.',
  parameters: z.object({ a: z.number().int(), b: z.number().int() }),
  run: ({ a, b }) => String(a + b),
});
// Both type parameters inferred: the arguments from the schema, the sandbox from the context's annotation.
const write = defineTool({
  name: 'write',
  description: 'Writes text to a file.',
  parameters: z.object({ path: z.string().min(1), text: z.string() }),
  run: ({ path, text }, ctx: ToolContext<Files>) => {
    ctx.sandbox.set(path, text);
    return { text: `wrote ${text.length} characters`, info: { written: path } };
  },
});
const flag = defineTool<Files, z.ZodObject<{ on: z.ZodBoolean; n: z.ZodOptional<z.ZodNumber> }>>({
  name: 'flag',
  description: 'Sets a flag.',
  parameters: z.object({ on: z.boolean(), n: z.number().optional() }),
  run: ({ on }) => String(on),
});
const tools = new Map<string, Tool<Files>>([add, write, flag].map((t) => [t.name, t as Tool<Files>]));

describe('the tool-call wire format', () => {
  it('maps positional words onto the schema’s fields in order, typed by the schema', () => {
    expect(parseToolCall('add 2 40', tools)).toMatchObject({ tool: add, args: { a: 2, b: 40 } });
    expect(parseToolCall('  add\t-3\n4  ', tools)).toMatchObject({ args: { a: -3, b: 4 } });
    expect(parseToolCall('flag true', tools)).toMatchObject({ args: { on: true } });
    expect(parseToolCall('flag false 2.5', tools)).toMatchObject({ args: { on: false, n: 2.5 } });
  });

  it('the last string field takes the rest verbatim; a JSON string literal quotes spaces and escapes', () => {
    expect(parseToolCall('write notes.txt two words\nand a line\n', tools)).toMatchObject({ args: { path: 'notes.txt', text: 'two words\nand a line\n' } });
    expect(parseToolCall('write "my notes.txt" x', tools)).toMatchObject({ args: { path: 'my notes.txt', text: 'x' } });
    expect(parseToolCall('write a "tab\\tthen </tool_result>"', tools)).toMatchObject({ args: { path: 'a', text: 'tab\tthen </tool_result>' } });
    // A number-looking word for a string field stays text.
    expect(parseToolCall('write 007 1', tools)).toMatchObject({ args: { path: '007', text: '1' } });
  });

  it('names every broken call: syntax, unknown tool, schema violation', () => {
    expect(parseToolCall('  ', tools)).toEqual({ outcome: 'syntax', message: 'the tool call is empty; write <tool_call>name arguments</tool_call>' });
    expect(parseToolCall('ad 1 2', tools)).toEqual({ outcome: 'unknown_tool', message: 'there is no tool named "ad"; the tools are add, write, flag' });
    expect(parseToolCall('add 1 2 3', tools)).toEqual({ outcome: 'syntax', message: 'too many arguments; add takes 2: usage: add a b' });
    expect(parseToolCall('write "unclosed x', tools)).toEqual({
      outcome: 'syntax',
      message: 'the quoted argument starting at character 6 has no closing quote; usage: write path text',
    });
    expect(parseToolCall('write "a"b c', tools)).toMatchObject({ outcome: 'syntax', message: /text follows the closing quote at character 8/ });
    expect(parseToolCall('write "\\q" c', tools)).toMatchObject({ outcome: 'syntax', message: /is not a valid JSON string/ });
    expect(parseToolCall('add 1 two', tools)).toEqual({
      outcome: 'schema',
      message: 'argument b: Invalid input: expected number, received string; usage: add a b',
    });
    expect(parseToolCall('add 1.5 2', tools)).toMatchObject({ outcome: 'schema', message: /^argument a: .*integer/ });
    expect(parseToolCall('add 1', tools)).toMatchObject({ outcome: 'schema', message: /^argument b: / });
    expect(parseToolCall('flag "true"', tools)).toMatchObject({ outcome: 'schema', message: /^argument on: .*expected boolean/ });
  });

  it('finds the call in an action, and a call cut off by the budget', () => {
    expect(extractToolCall('let me add: <tool_call>add 1 2</tool_call>', 'stop')).toEqual({ body: 'add 1 2' });
    expect(extractToolCall('<tool_call>x</tool_call><tool_call>add 1 2</tool_call>', 'stop')).toEqual({ body: 'add 1 2' });
    expect(extractToolCall('add 1 2</tool_call>', 'stop')).toMatchObject({ outcome: 'syntax', message: /^<\/tool_call> without <tool_call>/ });
    expect(extractToolCall('<tool_call>add 1 2', 'length')).toEqual({
      outcome: 'missing_stop',
      message: "the tool call was not closed with </tool_call> before the turn's token budget ran out",
    });
    // An answer is not a call, whatever its ending.
    expect(extractToolCall('42', 'eos')).toBeUndefined();
    expect(extractToolCall('42', 'length')).toBeUndefined();
    expect(extractToolCall('<tool_call>add 1 2</tool_call> so 3', 'length')).toBeUndefined();
  });

  it('shows a model each tool as a JSON schema; the context is not in it', () => {
    expect(toolSpec(write)).toEqual({
      name: 'write',
      description: 'Writes text to a file.',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string', minLength: 1 }, text: { type: 'string' } },
        required: ['path', 'text'],
        additionalProperties: false,
      },
    });
    expect(toolUsage(flag)).toBe('flag on n');
    expect(() => defineTool({ ...add, name: 'two words' })).toThrow(/must be one word/);
  });
});

describe('running a call', () => {
  const limit = { limit: 64, keep: 'head' as const };
  const context = (sandbox: Files) => ({ sandbox, episode: { seed: 0, turn: 1, info: {} } });

  it('gives the tool its sandbox and a deadline, and returns its text and info', async () => {
    const files: Files = new Map();
    const call = parseToolCall('write a.txt hi', tools);
    if ('outcome' in call) throw new Error(call.message);
    expect(await runToolCall(call, context(files), 1000, limit)).toEqual({
      text: 'wrote 2 characters',
      outcome: 'ok',
      outputTruncated: false,
      info: { written: 'a.txt' },
    });
    expect(files.get('a.txt')).toBe('hi');
    let deadline = 0;
    const clock = defineTool<Files, z.ZodObject>({
      name: 'clock',
      description: 'Reads its deadline.',
      parameters: z.object({}),
      run: (_, ctx) => {
        deadline = ctx.deadline;
        return 'ok';
      },
    });
    const before = performance.now();
    await runToolCall({ tool: clock, args: {} }, context(files), 500, limit);
    expect(deadline).toBeGreaterThanOrEqual(before + 500);
    expect(deadline).toBeLessThanOrEqual(performance.now() + 500);
  });

  it('a tool that throws, returns no text or overruns its deadline is an error result, never a throw', async () => {
    const files: Files = new Map();
    const tool = (run: Tool<Files>['run']) => ({
      tool: defineTool<Files, z.ZodObject>({ name: 't', description: 'A test tool.', parameters: z.object({}), run }),
      args: {},
    });
    expect(
      await runToolCall(
        tool(() => {
          throw new Error('disk full');
        }),
        context(files),
        1000,
        limit,
      ),
    ).toEqual({ text: 'error: t failed: disk full', outcome: 'tool_error', outputTruncated: false });
    expect(
      await runToolCall(
        tool(() => Promise.reject(new Error('gone'))),
        context(files),
        1000,
        limit,
      ),
    ).toMatchObject({ outcome: 'tool_error' });
    expect(
      await runToolCall(
        tool(() => 7 as unknown as string),
        context(files),
        1000,
        limit,
      ),
    ).toEqual({
      text: 'error: t returned number, not text',
      outcome: 'tool_error',
      outputTruncated: false,
    });
    expect(
      await runToolCall(
        tool(() => new Promise<string>(() => {})),
        context(files),
        20,
        limit,
      ),
    ).toEqual({
      text: 'error: t did not return within 20 ms',
      outcome: 'timeout',
      outputTruncated: false,
    });
  });
});

describe('truncateText', () => {
  it('keeps the head or the tail within the limit, marker included, and says how much went', () => {
    const text = 'abcdefghij'.repeat(20);
    const head = truncateText(text, { limit: 64, keep: 'head' });
    expect(head.truncated).toBe(true);
    expect(head.text.length).toBeLessThanOrEqual(64);
    expect(head.text).toBe(`${text.slice(0, 41)}\n[… 159 characters cut]`);
    const tail = truncateText(text, { limit: 64, keep: 'tail' });
    expect(tail.text).toBe(`[… 159 characters cut]\n${text.slice(-41)}`);
    expect(truncateText('short', { limit: 64, keep: 'head' })).toEqual({ text: 'short', truncated: false });
  });

  it('cuts 10 MB to the limit, and never splits a surrogate pair', () => {
    const big = 'x'.repeat(10_000_000);
    const cut = truncateText(big, { limit: 2048, keep: 'tail' });
    expect(cut.text.length).toBeLessThanOrEqual(2048);
    expect(cut.text.startsWith('[… ')).toBe(true);
    const emoji = '😀'.repeat(100);
    for (const keep of ['head', 'tail'] as const) {
      const out = truncateText(emoji, { limit: 65, keep }).text;
      expect(out.length).toBeLessThanOrEqual(65);
      expect(out).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
    }
  });
});
