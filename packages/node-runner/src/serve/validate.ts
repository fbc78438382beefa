// Request bodies of /v1/completions and /v1/chat/completions, checked field by field into one shape
// the handlers sample from. A field OpenAI defines but the GPU sampler cannot honour (top_p below 1,
// penalties, logit_bias, top log-probs while streaming) is refused with a 400 naming it, never
// silently ignored, and a field nobody defines is refused as OpenAI refuses it ("Unrecognized request
// argument").

import type { ChatFunction, ChatMessage } from '@horizon/core';
import { invalid } from './api-error.ts';

export interface ServeLimits {
  /** Most choices per request. */
  maxN: number;
  /** Most stop strings per request (OpenAI allows 4). */
  maxStops: number;
}

export interface SamplingRequest {
  model: string;
  /** Undefined: as many as the context leaves. */
  maxTokens: number | undefined;
  temperature: number;
  topK: number;
  n: number;
  seed: number | undefined;
  stop: string[];
  logprobs: boolean;
  /** Most likely alternatives per token (0: none); non-streaming only. */
  topLogprobs: number;
  stream: boolean;
  includeUsage: boolean;
  sessionId: string | undefined;
}

export interface CompletionRequest extends SamplingRequest {
  prompt: string;
}

export interface ChatRequest extends SamplingRequest {
  messages: ChatMessage[];
  functions: ChatFunction[];
}

type Body = Record<string, unknown>;

const COMMON = [
  'model',
  'max_tokens',
  'temperature',
  'top_p',
  'top_k',
  'n',
  'stream',
  'stream_options',
  'seed',
  'stop',
  'user',
  'presence_penalty',
  'frequency_penalty',
  'logit_bias',
  'horizon',
];
const COMPLETION_FIELDS = new Set([...COMMON, 'prompt', 'logprobs', 'echo', 'suffix', 'best_of']);
const CHAT_FIELDS = new Set([
  ...COMMON,
  'messages',
  'max_completion_tokens',
  'logprobs',
  'top_logprobs',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
]);

const isObject = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkFields(body: unknown, known: Set<string>): Body {
  if (!isObject(body)) throw invalid('body', 'The request body must be a JSON object.');
  for (const key of Object.keys(body)) if (!known.has(key)) throw invalid(key, `Unrecognized request argument supplied: ${key}`, 'unknown_parameter');
  return body;
}

function number(body: Body, key: string, fallback: number, min: number, max: number, integer = false): number {
  const v = body[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || (integer && !Number.isInteger(v)) || v < min || v > max)
    throw invalid(key, `${key} must be ${integer ? 'an integer' : 'a number'} in [${min}, ${max}], got ${JSON.stringify(v)}.`);
  return v;
}

function boolean(body: Body, key: string): boolean {
  const v = body[key];
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw invalid(key, `${key} must be true or false, got ${JSON.stringify(v)}.`);
  return v;
}

/** A field the sampler has no use for, accepted only at its neutral value. */
function neutral(body: Body, key: string, isNeutral: (v: unknown) => boolean, why: string): void {
  const v = body[key];
  if (v !== undefined && v !== null && !isNeutral(v)) throw invalid(key, `${key} ${JSON.stringify(v)} is not supported: ${why}.`, 'unsupported_parameter');
}

function sampling(body: Body, limits: ServeLimits, maxTokensKey: string): SamplingRequest {
  if (typeof body.model !== 'string' || body.model === '') throw invalid('model', 'model must be the id of a served model (see /v1/models).');
  // top_p would need a sort of the distribution per draw; the GPU sampler (kernels/src/sampling) has top-k only.
  neutral(body, 'top_p', (v) => v === 1, 'the GPU sampler has no nucleus sampling; use top_k (a Horizon extension) or leave top_p at 1');
  neutral(body, 'presence_penalty', (v) => v === 0, 'the sampler applies no penalties');
  neutral(body, 'frequency_penalty', (v) => v === 0, 'the sampler applies no penalties');
  neutral(body, 'logit_bias', (v) => isObject(v) && Object.keys(v).length === 0, 'the sampler applies no logit bias');
  if (body.user !== undefined && typeof body.user !== 'string') throw invalid('user', 'user must be a string.');
  const stopField = body.stop ?? [];
  const stop = typeof stopField === 'string' ? [stopField] : stopField;
  if (!Array.isArray(stop) || !stop.every((s) => typeof s === 'string' && s !== ''))
    throw invalid('stop', 'stop must be a non-empty string or an array of non-empty strings.');
  if (stop.length > limits.maxStops) throw invalid('stop', `stop takes at most ${limits.maxStops} strings, got ${stop.length}.`);
  const streamOptions = body.stream_options;
  if (streamOptions !== undefined && streamOptions !== null && !isObject(streamOptions)) throw invalid('stream_options', 'stream_options must be an object.');
  const extension = body.horizon;
  if (extension !== undefined && !(isObject(extension) && Object.keys(extension).every((k) => k === 'session_id')))
    throw invalid('horizon', 'horizon (the extension field) takes only session_id.');
  const sessionId = isObject(extension) ? extension.session_id : undefined;
  if (sessionId !== undefined && (typeof sessionId !== 'string' || sessionId.length > 200))
    throw invalid('horizon.session_id', 'horizon.session_id must be a string of at most 200 characters.');
  const max = body[maxTokensKey] ?? body.max_tokens;
  return {
    model: body.model,
    maxTokens: max === undefined || max === null ? undefined : number({ [maxTokensKey]: max }, maxTokensKey, 0, 1, Number.MAX_SAFE_INTEGER, true),
    temperature: number(body, 'temperature', 1, 0, 2),
    topK: number(body, 'top_k', 0, 0, 1_000_000, true),
    n: number(body, 'n', 1, 1, limits.maxN, true),
    seed: body.seed === undefined || body.seed === null ? undefined : number(body, 'seed', 0, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, true),
    stop,
    logprobs: false,
    topLogprobs: 0,
    stream: boolean(body, 'stream'),
    includeUsage: isObject(streamOptions) && streamOptions.include_usage === true,
    sessionId,
  };
}

export function completionRequest(raw: unknown, limits: ServeLimits): CompletionRequest {
  const body = checkFields(raw, COMPLETION_FIELDS);
  const base = sampling(body, limits, 'max_tokens');
  if (typeof body.prompt !== 'string') throw invalid('prompt', 'prompt must be a string (one prompt per request here).');
  neutral(body, 'echo', (v) => v === false, 'the prompt is not echoed; its token ids are in the horizon extension field');
  neutral(body, 'suffix', () => false, 'the models here only continue text');
  neutral(body, 'best_of', (v) => v === 1, 'ask for n choices instead');
  // logprobs k (at most 5, as OpenAI's) also asks for the k most likely tokens at each position.
  const given = body.logprobs !== undefined && body.logprobs !== null;
  const topLogprobs = number(body, 'logprobs', 0, 0, 5, true);
  if (topLogprobs > 0 && base.stream)
    throw invalid('logprobs', 'logprobs above 0 (the most likely alternatives) is given in non-streaming responses only.', 'unsupported_parameter');
  return { ...base, logprobs: given, topLogprobs, prompt: body.prompt };
}

function message(v: unknown, i: number): ChatMessage {
  const param = `messages[${i}]`;
  if (!isObject(v)) throw invalid(param, `${param} must be an object.`);
  const role = v.role;
  if (role !== 'system' && role !== 'developer' && role !== 'user' && role !== 'assistant' && role !== 'tool')
    throw invalid(`${param}.role`, `${param}.role must be one of system, developer, user, assistant, tool.`);
  let content: string | null;
  if (typeof v.content === 'string') content = v.content;
  else if (v.content === null || v.content === undefined) content = null;
  else if (Array.isArray(v.content) && v.content.every((p) => isObject(p) && p.type === 'text' && typeof p.text === 'string'))
    content = v.content.map((p) => (p as { text: string }).text).join('');
  else throw invalid(`${param}.content`, `${param}.content must be a string or an array of text parts (the models here read text only).`);
  const toolCalls = v.tool_calls;
  if (toolCalls !== undefined && toolCalls !== null) {
    if (role !== 'assistant') throw invalid(`${param}.tool_calls`, 'only an assistant message carries tool_calls.');
    if (
      !Array.isArray(toolCalls) ||
      !toolCalls.every((c) => isObject(c) && isObject(c.function) && typeof c.function.name === 'string' && typeof (c.function.arguments ?? '') === 'string')
    )
      throw invalid(`${param}.tool_calls`, `${param}.tool_calls must be an array of {id, type: "function", function: {name, arguments}}.`);
    return { role, content, tool_calls: toolCalls as ChatMessage['tool_calls'] };
  }
  if (content === null && role !== 'assistant') throw invalid(`${param}.content`, `${param}.content is required for a ${role} message.`);
  return { role: role === 'developer' ? 'system' : role, content };
}

function functions(body: Body): ChatFunction[] {
  const tools = body.tools;
  const choice = body.tool_choice;
  if (choice !== undefined && choice !== null && choice !== 'auto' && choice !== 'none')
    throw invalid('tool_choice', 'tool_choice must be "auto" or "none": the sampler cannot force a call.');
  if (tools === undefined || tools === null || choice === 'none') return [];
  if (!Array.isArray(tools)) throw invalid('tools', 'tools must be an array.');
  return tools.map((t, i) => {
    if (
      !isObject(t) ||
      t.type !== 'function' ||
      !isObject(t.function) ||
      typeof t.function.name !== 'string' ||
      !/^[A-Za-z_][A-Za-z0-9_-]*$/.test(t.function.name)
    )
      throw invalid(`tools[${i}]`, `tools[${i}] must be {type: "function", function: {name, parameters}} with a one-word name.`);
    const parameters = t.function.parameters;
    if (parameters !== undefined && !(isObject(parameters) && (parameters.properties === undefined || isObject(parameters.properties))))
      throw invalid(`tools[${i}].function.parameters`, `tools[${i}].function.parameters must be a JSON schema object.`);
    return t.function as unknown as ChatFunction;
  });
}

export function chatRequest(raw: unknown, limits: ServeLimits): ChatRequest {
  const body = checkFields(raw, CHAT_FIELDS);
  const base = sampling(body, limits, 'max_completion_tokens');
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw invalid('messages', 'messages must be a non-empty array.');
  const topLogprobs = number(body, 'top_logprobs', 0, 0, 20, true);
  const logprobs = boolean(body, 'logprobs');
  if (topLogprobs > 0 && !logprobs) throw invalid('top_logprobs', 'top_logprobs needs logprobs: true.');
  if (topLogprobs > 0 && base.stream) throw invalid('top_logprobs', 'top_logprobs is given in non-streaming responses only.', 'unsupported_parameter');
  neutral(body, 'response_format', (v) => isObject(v) && v.type === 'text', 'the models here write plain text');
  if (body.parallel_tool_calls !== undefined) boolean(body, 'parallel_tool_calls');
  return { ...base, logprobs, topLogprobs, messages: body.messages.map(message), functions: functions(body) };
}
