// The chat template of `horizon serve`: how OpenAI-style chat messages become the token context of a
// Horizon policy, and how a completion's tool call becomes OpenAI's `tool_calls`.
//
// Horizon's policies are small character-level models trained on episode contexts, not on a chat
// format: an episode's context is the task prompt, then each action the policy wrote (an answer
// ending in <eos>, or `<tool_call>NAME ARGS</tool_call>`), each tool call followed by the
// environment's `<tool_result>…</tool_result>` (envs/episode.ts, envs/tool-call.ts). There are no
// role markers in training, so this template adds none: a model sees exactly the layout it learnt.
//   system, user   → their text, verbatim (encoded without specials, so a message cannot forge a tag)
//   assistant      → its text, then each tool call as <tool_call>NAME ARGS</tool_call>; an assistant
//                    message without tool calls ends with <eos>, as an answer does in training
//   tool           → <tool_result>TEXT</tool_result>
// and the model continues right after the last message. Characters outside the model's vocabulary
// become <unk> (tokenizer/char-tokenizer.ts); the server reports how many (an honest model of a
// 13-character vocabulary cannot read most English).
//
// Tool calls: the policy's markup is positional (`NAME arg1 arg2 …`, the arguments in the order of
// the schema's properties; tool-call.ts says why not JSON), so a request's `tools` give the order
// and types, and the same parser the episode runner uses reads the completion back.

import { z } from 'zod';
import type { EnvTextPart } from '../envs/environment.ts';
import { defineTool, type Tool } from '../envs/tool.ts';
import { extractToolCall, parseToolCall, TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from '../envs/tool-call.ts';
import type { SpecialToken } from '../tokenizer/char-tokenizer.ts';

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null;
  tool_calls?: readonly ChatToolCall[];
  tool_call_id?: string;
}

/** A request's function tool: its name and JSON schema (only `properties`, their order and `type`, and `required` are read). */
export interface ChatFunction {
  name: string;
  description?: string;
  parameters?: { properties?: Record<string, { type?: unknown }>; required?: readonly string[] };
}

/** What the template needs of the tokenizer. */
export interface TemplateVocabulary {
  has(special: SpecialToken): boolean;
}

/** A message the template cannot render for this model (its vocabulary lacks a tag it needs). */
export class TemplateError extends Error {}

const need = (vocabulary: TemplateVocabulary, special: SpecialToken, why: string): { special: SpecialToken } => {
  if (!vocabulary.has(special)) throw new TemplateError(`this model's vocabulary has no ${special} token, so it cannot take ${why}.`);
  return { special };
};

/** The fields of a function in call order, and whether each is a string. */
function fields(fn: ChatFunction): { name: string; isString: boolean }[] {
  return Object.entries(fn.parameters?.properties ?? {}).map(([name, p]) => ({ name, isString: p?.type === 'string' }));
}

/** One argument as the policy writes it: a bare word when that reads back the same, else a JSON literal. */
function writeArgument(value: unknown, isString: boolean, last: boolean): string {
  if (typeof value === 'string' && isString) {
    if (last && !value.startsWith('"')) return value;
    return value !== '' && !/[\s"]/.test(value) ? value : JSON.stringify(value);
  }
  return JSON.stringify(value);
}

/** `NAME ARGS` of a call, the arguments (a JSON object) positional in the schema's order. */
export function toolCallBody(call: ChatToolCall, functions: readonly ChatFunction[]): string {
  const fn = functions.find((f) => f.name === call.function.name);
  if (!fn) throw new TemplateError(`an assistant message calls ${JSON.stringify(call.function.name)}, which is not among the request's tools.`);
  let args: unknown;
  try {
    args = JSON.parse(call.function.arguments || '{}');
  } catch {
    throw new TemplateError(`the arguments of the call to ${fn.name} are not valid JSON.`);
  }
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    throw new TemplateError(`the arguments of the call to ${fn.name} must be a JSON object.`);
  const record = args as Record<string, unknown>;
  const list = fields(fn);
  const given = list.filter((f) => f.name in record);
  const words = given.map((f, k) => writeArgument(record[f.name], f.isString, k === given.length - 1 && f === list[list.length - 1]));
  return [fn.name, ...words].join(' ');
}

/** The context for `messages`, as text and special tokens, ready to encode. */
export function renderChat(messages: readonly ChatMessage[], functions: readonly ChatFunction[], vocabulary: TemplateVocabulary): EnvTextPart[] {
  const parts: EnvTextPart[] = [];
  for (const m of messages) {
    const text = m.content ?? '';
    if (m.role === 'system' || m.role === 'user') parts.push(text);
    else if (m.role === 'tool') parts.push(need(vocabulary, '<tool_result>', 'tool results'), text, need(vocabulary, '</tool_result>', 'tool results'));
    else {
      parts.push(text);
      for (const call of m.tool_calls ?? [])
        parts.push(need(vocabulary, TOOL_CALL_OPEN, 'tool calls'), toolCallBody(call, functions), need(vocabulary, TOOL_CALL_CLOSE, 'tool calls'));
      if (!m.tool_calls?.length) parts.push(need(vocabulary, '<eos>', 'assistant turns'));
    }
  }
  return parts.filter((p) => p !== '');
}

/** A stand-in Tool for a request's function, so the episode runner's parser reads calls to it. */
function asTool(fn: ChatFunction): Tool<unknown> {
  const required = new Set(fn.parameters?.required ?? []);
  const shape = Object.fromEntries(
    fields(fn).map((f) => {
      const type = f.isString ? z.string() : z.unknown();
      return [f.name, required.has(f.name) ? type : type.optional()];
    }),
  );
  return defineTool({ name: fn.name, description: fn.description ?? '', parameters: z.object(shape), run: () => '' });
}

/** What a completion says: its text, and the tool call it ends with when it makes one. */
export interface ParsedCompletion {
  content: string;
  toolCall?: { name: string; arguments: Record<string, unknown> };
}

/**
 * Reads a completion's text (specials written as their names). A call ending the completion at the
 * `</tool_call>` stop becomes a tool call when it parses against the request's functions; one that
 * does not parse stays text, as the episode runner would show the policy its error.
 */
export function parseCompletion(text: string, ending: 'eos' | 'stop' | 'length', functions: readonly ChatFunction[]): ParsedCompletion {
  if (functions.length === 0) return { content: text };
  const extracted = extractToolCall(text, ending);
  if (!extracted || !('body' in extracted)) return { content: text };
  const tools = new Map(functions.map((f) => [f.name, asTool(f)]));
  const parsed = parseToolCall(extracted.body, tools);
  if (!('tool' in parsed)) return { content: text };
  return { content: text.slice(0, text.lastIndexOf(TOOL_CALL_OPEN)), toolCall: { name: parsed.tool.name, arguments: parsed.args } };
}
