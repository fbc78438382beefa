// /v1/completions and /v1/chat/completions: a checked request (validate.ts) becomes n choices sampled
// concurrently through the scheduler (choice.ts), answered as one JSON body or as server-sent events
// in OpenAI's shapes (API reference: "Completions", "Chat Completions", "Streaming"); top log-probs,
// when asked for, come from scoring each finished choice again (core's serve/top-logprobs.ts). The `horizon`
// extension field carries what a trainer needs and OpenAI's shape has no room for: the prompt's token
// ids, each choice's sampled token ids and their log-probs under the sampling distribution, the number
// of prompt characters that fell outside the vocabulary, and the session id.

import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { type ChatFunction, parseCompletion, renderChat, TemplateError, TOOL_CALL_CLOSE, TOOL_CALL_OPEN, UNK_TEXT } from '@horizon/core';
import { ApiError, invalid } from './api-error.ts';
import { type ChoiceResult, type ChoiceSettings, runChoice } from './choice.ts';
import { recordTurn, type ServedTurn, servedTurn } from './recorded-turn.ts';
import type { ServedModel } from './served-model.ts';
import { EventStream } from './sse.ts';
import type { ChatRequest, CompletionRequest, SamplingRequest } from './validate.ts';

export interface RequestContext {
  model: ServedModel;
  /** Most sequences (choices) waiting or sampling at once; more is a 429. */
  maxPending: number;
  /** The client went away. */
  signal: AbortSignal;
  /** The request's time is up. */
  deadline: AbortSignal;
  res: ServerResponse;
}

type Delta = (index: number, text: string, ids: number[], logprobs: number[]) => void;

/** The checks every request shares: the model, the queue, the prompt and budget against the context. */
function admit(req: SamplingRequest, ctx: RequestContext, prompt: number[], tokensParam: string, defaultMaxTokens = Number.POSITIVE_INFINITY): number {
  const { model } = ctx;
  if (req.model !== model.id)
    throw new ApiError(
      404,
      `The model ${JSON.stringify(req.model)} does not exist; this server serves ${JSON.stringify(model.id)}.`,
      'not_found_error',
      'model',
      'model_not_found',
    );
  if (prompt.length === 0) throw invalid('prompt', 'The prompt is empty; it needs at least one token.');
  const room = model.contextLength - prompt.length;
  const maxTokens = req.maxTokens ?? Math.min(defaultMaxTokens, room);
  if (room < 1 || maxTokens > room)
    throw invalid(
      req.maxTokens === undefined ? 'messages' : tokensParam,
      `This model's maximum context length is ${model.contextLength} tokens. However, you requested ${prompt.length + maxTokens} tokens (${prompt.length} in the prompt, ${maxTokens} in the completion). Please reduce the prompt or the completion length.`,
      'context_length_exceeded',
    );
  if (req.topLogprobs > 0 && !model.topLogprobs)
    throw invalid('top_logprobs', 'This server cannot score alternatives for top_logprobs.', 'unsupported_parameter');
  if (model.training?.records(req.temperature, req.topK) && req.n > 1)
    throw invalid(
      'n',
      'In training mode a request at the recipe’s sampling settings is one turn of one trajectory: ask for n = 1 and give each trajectory its own horizon.session_id.',
    );
  if (model.scheduler.pending + req.n > ctx.maxPending)
    throw new ApiError(
      429,
      `The server is busy: ${model.scheduler.pending} sequences are sampling (at most ${ctx.maxPending}); retry shortly.`,
      'rate_limit_error',
      null,
      'server_busy',
    );
  return maxTokens;
}

function choices(
  req: SamplingRequest,
  ctx: RequestContext,
  prompt: number[],
  maxTokens: number,
  extra: Partial<ChoiceSettings>,
  onDelta?: Delta,
): Promise<ChoiceResult[]> {
  return Promise.all(
    Array.from({ length: req.n }, (_, index) =>
      runChoice(ctx.model, prompt, {
        maxTokens,
        temperature: req.temperature,
        topK: req.topK,
        seed: req.seed,
        index,
        stop: [...req.stop, ...(extra.stop ?? [])],
        signal: ctx.signal,
        deadline: ctx.deadline,
        ...(extra.holdFrom !== undefined ? { holdFrom: extra.holdFrom } : {}),
        ...(onDelta ? { onDelta: (text, ids, logprobs) => onDelta(index, text, ids, logprobs) } : {}),
      }),
    ),
  );
}

/**
 * Token ids of a prompt's text. A vocabulary without <unk> (addition's: its text is all its own)
 * cannot take a character outside its set: that is the client's 400, naming the character.
 */
function encode(ctx: RequestContext, text: string, specials: boolean, param: string): number[] {
  try {
    return ctx.model.tokenizer.encode(text, { specials });
  } catch (error) {
    if (error instanceof RangeError) throw invalid(param, `The ${param} cannot be encoded for this model: ${error.message}.`, 'unencodable_text');
    throw error;
  }
}

const usage = (prompt: number[], results: readonly ChoiceResult[]) => {
  const completion = results.reduce((n, r) => n + r.ids.length, 0);
  return { prompt_tokens: prompt.length, completion_tokens: completion, total_tokens: prompt.length + completion };
};

const unknownCount = (ctx: RequestContext, prompt: number[]) => ctx.model.tokenizer.decode(prompt).split(UNK_TEXT).length - 1;

function extension(ctx: RequestContext, prompt: number[], turn: ServedTurn) {
  return { session_id: turn.sessionId, prompt_token_ids: prompt, prompt_unknown_characters: unknownCount(ctx, prompt), ...turn.recorded };
}

const choiceExtension = (r: ChoiceResult) => ({ completion_token_ids: r.ids, completion_logprobs: r.logprobs });

/** Writes the body, unless the client is gone (then there is nobody to answer). */
function sendJson(ctx: RequestContext, body: unknown): void {
  if (ctx.signal.aborted || ctx.res.destroyed) return;
  ctx.res.writeHead(200, { 'content-type': 'application/json' });
  ctx.res.end(JSON.stringify(body));
}

/** The k most likely tokens before each sampled token of every choice, when the request asks (non-streaming). */
async function alternatives(
  req: SamplingRequest,
  ctx: RequestContext,
  prompt: number[],
  results: readonly ChoiceResult[],
): Promise<{ token: string; logprob: number }[][][]> {
  const source = ctx.model.topLogprobs;
  if (req.topLogprobs === 0 || !source) return results.map(() => []);
  const decode = (id: number) => ctx.model.tokenizer.decode([id]);
  return Promise.all(
    results.map(async (r) =>
      (await source.topLogprobs(prompt, r.ids, req.topLogprobs)).map((row) => row.map((t) => ({ token: decode(t.id), logprob: t.logprob }))),
    ),
  );
}

function tokenPieces(ctx: RequestContext, ids: readonly number[]): string[] {
  return ids.map((id) => ctx.model.tokenizer.decode([id]));
}

export async function completions(req: CompletionRequest, ctx: RequestContext): Promise<void> {
  const { model } = ctx;
  // The raw endpoint: special tokens written by name are parsed, so a client can lay out an episode itself.
  const prompt = encode(ctx, req.prompt, true, 'prompt');
  // OpenAI's completions default to 16 tokens; a short context gets what it has room for.
  const maxTokens = admit(req, ctx, prompt, 'max_tokens', 16);
  const turn = servedTurn(req, ctx);
  const id = `cmpl-${randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const head = { id, object: 'text_completion', created, model: model.id };
  const logprobsOf = (ids: number[], logprobs: number[], top?: { token: string; logprob: number }[][]) =>
    req.logprobs
      ? {
          tokens: tokenPieces(ctx, ids),
          token_logprobs: logprobs,
          top_logprobs: top?.length ? top.map((row) => Object.fromEntries(row.map((t) => [t.token, t.logprob]))) : null,
          text_offset: null,
        }
      : null;
  if (!req.stream) {
    const results = await choices(req, ctx, prompt, maxTokens, {});
    recordTurn(turn, ctx, prompt, results);
    const top = await alternatives(req, ctx, prompt, results);
    sendJson(ctx, {
      ...head,
      choices: results.map((r, c) => ({
        index: r.index,
        text: r.text,
        logprobs: logprobsOf(r.ids, r.logprobs, top[c]),
        finish_reason: r.finishReason,
        horizon: choiceExtension(r),
      })),
      usage: usage(prompt, results),
      horizon: extension(ctx, prompt, turn),
    });
    return;
  }
  const stream = new EventStream(ctx.res);
  try {
    const results = await choices(req, ctx, prompt, maxTokens, {}, (index, text, ids, logprobs) =>
      stream.send({ ...head, choices: [{ index, text, logprobs: logprobsOf(ids, logprobs), finish_reason: null }] }),
    );
    recordTurn(turn, ctx, prompt, results);
    for (const r of results)
      stream.send({
        ...head,
        choices: [{ index: r.index, text: '', logprobs: null, finish_reason: r.finishReason, horizon: choiceExtension(r) }],
        horizon: extension(ctx, prompt, turn),
      });
    if (req.includeUsage) stream.send({ ...head, choices: [], usage: usage(prompt, results) });
  } catch (error) {
    stream.send(errorBody(error));
  }
  stream.end();
}

/** What an answered choice says: content, and the tool call when it ends in one the request's tools parse. */
function chatMessage(r: ChoiceResult, functions: readonly ChatFunction[]) {
  const text = r.stopString === TOOL_CALL_CLOSE ? r.text + TOOL_CALL_CLOSE : r.text;
  const parsed = parseCompletion(text, r.ending, functions);
  if (!parsed.toolCall) return { content: r.text, toolCalls: undefined, finishReason: r.finishReason };
  const call = {
    id: `call_${randomUUID().replaceAll('-', '')}`,
    type: 'function' as const,
    function: { name: parsed.toolCall.name, arguments: JSON.stringify(parsed.toolCall.arguments) },
  };
  return { content: parsed.content, toolCalls: [call], finishReason: 'tool_calls' as const };
}

export async function chatCompletions(req: ChatRequest, ctx: RequestContext): Promise<void> {
  const { model } = ctx;
  const { tokenizer } = model;
  let parts: ReturnType<typeof renderChat>;
  try {
    parts = renderChat(req.messages, req.functions, tokenizer);
  } catch (error) {
    if (error instanceof TemplateError) throw invalid('messages', error.message);
    throw error;
  }
  if (req.functions.length > 0 && !(tokenizer.has(TOOL_CALL_OPEN) && tokenizer.has(TOOL_CALL_CLOSE)))
    throw invalid('tools', `this model's vocabulary has no ${TOOL_CALL_OPEN} tokens, so it cannot call tools.`);
  // Message text cannot forge a tag: it is encoded without specials (chat-template.ts).
  const prompt = parts.flatMap((p) => (typeof p === 'string' ? encode(ctx, p, false, 'messages') : [tokenizer.id(p.special)]));
  const maxTokens = admit(req, ctx, prompt, 'max_completion_tokens');
  const turn = servedTurn(req, ctx);
  // With tools, a call ends at </tool_call>, as in an episode; its text is held back and sent as tool_calls.
  const extra: Partial<ChoiceSettings> = req.functions.length > 0 ? { stop: [TOOL_CALL_CLOSE], holdFrom: TOOL_CALL_OPEN } : {};
  const id = `chatcmpl-${randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const head = { id, object: req.stream ? 'chat.completion.chunk' : 'chat.completion', created, model: model.id, system_fingerprint: null };
  const bytes = (token: string) => [...new TextEncoder().encode(token)];
  const logprobsOf = (ids: number[], logprobs: number[], top?: { token: string; logprob: number }[][]) =>
    req.logprobs
      ? {
          content: tokenPieces(ctx, ids).map((token, i) => ({
            token,
            logprob: logprobs[i],
            bytes: bytes(token),
            top_logprobs: (top?.[i] ?? []).map((t) => ({ ...t, bytes: bytes(t.token) })),
          })),
          refusal: null,
        }
      : null;
  if (!req.stream) {
    const results = await choices(req, ctx, prompt, maxTokens, extra);
    recordTurn(turn, ctx, prompt, results);
    const top = await alternatives(req, ctx, prompt, results);
    sendJson(ctx, {
      ...head,
      choices: results.map((r, c) => {
        const m = chatMessage(r, req.functions);
        return {
          index: r.index,
          message: { role: 'assistant', content: m.content, refusal: null, ...(m.toolCalls ? { tool_calls: m.toolCalls } : {}) },
          logprobs: logprobsOf(r.ids, r.logprobs, top[c]),
          finish_reason: m.finishReason,
          horizon: choiceExtension(r),
        };
      }),
      usage: usage(prompt, results),
      horizon: extension(ctx, prompt, turn),
    });
    return;
  }
  const stream = new EventStream(ctx.res);
  const sent = new Array<number>(req.n).fill(0);
  try {
    for (let index = 0; index < req.n; index++)
      stream.send({ ...head, choices: [{ index, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] });
    const results = await choices(req, ctx, prompt, maxTokens, extra, (index, text, ids, logprobs) => {
      sent[index] += text.length;
      stream.send({ ...head, choices: [{ index, delta: { content: text }, logprobs: logprobsOf(ids, logprobs), finish_reason: null }] });
    });
    recordTurn(turn, ctx, prompt, results);
    for (const r of results) {
      const m = chatMessage(r, req.functions);
      // What was held back (a tool call that did not parse stays text) goes out before the finish.
      const rest = m.content.slice(sent[r.index]);
      if (rest !== '') stream.send({ ...head, choices: [{ index: r.index, delta: { content: rest }, logprobs: null, finish_reason: null }] });
      if (m.toolCalls)
        stream.send({
          ...head,
          choices: [{ index: r.index, delta: { tool_calls: m.toolCalls.map((c, k) => ({ index: k, ...c })) }, logprobs: null, finish_reason: null }],
        });
      stream.send({
        ...head,
        choices: [{ index: r.index, delta: {}, logprobs: null, finish_reason: m.finishReason, horizon: choiceExtension(r) }],
        horizon: extension(ctx, prompt, turn),
      });
    }
    if (req.includeUsage) stream.send({ ...head, choices: [], usage: usage(prompt, results) });
  } catch (error) {
    stream.send(errorBody(error));
  }
  stream.end();
}

/** The OpenAI error body for anything thrown while answering; an unexpected error is a 500 that names it. */
export function errorBody(error: unknown): ReturnType<ApiError['body']> {
  return asApiError(error).body();
}

export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ApiError(500, `The server failed while sampling: ${message}`, 'server_error');
}
