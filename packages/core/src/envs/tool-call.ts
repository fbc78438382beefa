// The tool-call wire format, its parser, the call itself, and the output limit. Everything that can
// go wrong with a call — no opening tag, an unclosed quote, an unknown tool, arguments the schema
// refuses, a call cut off by the token budget, a tool that throws or overruns its deadline — becomes
// an error observation for the policy to read and an outcome the runner counts, never an exception:
// a policy learning to call tools writes many broken calls, and each must cost one turn, not a rollout.
//
// Format: the policy writes `<tool_call>name arg1 arg2 …</tool_call>`, the tags being special tokens
// and `</tool_call>` the episode's stop string. Arguments are positional, in the order the tool's
// schema declares its fields; separated by whitespace; a bare word is a number, boolean or null when
// the field is not a string (parsed as JSON), else the text; a JSON string literal ("a b\n") is
// text with spaces or escapes; and when the last field is a string, everything after the previous
// field is its value verbatim (spaces and newlines kept), so `write notes.txt two words` needs no
// quoting. Why not JSON (`{"name":"write","arguments":{"path":…}}`): a character-level model spends
// one token per character, so JSON's braces, quotes, colons and key names triple the length of a
// short call and give the policy that many more places to go wrong; the positional form has one
// separator and no keys, and the schema still checks every value.
//
// Output: a tool's text is cut to `limit` UTF-16 code units (an upper bound on a character
// tokenizer's tokens), keeping the head or the tail, with a marker saying how much went.

import type { MetricName } from '../metrics/glossary.ts';
import type { EnvTextPart, Info, ToolCallOutcome } from './environment.ts';
import type { Sample } from './sample.ts';
import { type Tool, type ToolContext, toolSpec } from './tool.ts';

export const TOOL_CALL_OPEN = '<tool_call>';
export const TOOL_CALL_CLOSE = '</tool_call>';

/** Which end of a long output survives: `head` keeps the start (a file, a listing), `tail` the end (a log, a test run). */
export type KeepSide = 'head' | 'tail';

export interface OutputLimit {
  /** Most UTF-16 code units of a tool's output the context takes, marker included; at least 64. */
  limit: number;
  keep: KeepSide;
}

/** What a tool call gave the episode: observation text, how it went, and info a tool added. */
export interface ToolCallResult {
  text: string;
  outcome: ToolCallOutcome;
  outputTruncated: boolean;
  info?: Info;
}

/** A call that parsed and passed its schema. */
export interface ParsedToolCall<S> {
  tool: Tool<S>;
  args: Record<string, unknown>;
}

type Failure = { outcome: Exclude<ToolCallOutcome, 'ok'>; message: string };

/**
 * The call in an action, if the action makes one: `stop` ending with `</tool_call>` (the text after
 * the last `<tool_call>`), or a `length` ending inside an unclosed `<tool_call>`, which is a
 * `missing_stop` failure. Undefined when the action is not a tool call (an answer).
 */
export function extractToolCall(action: string, ending: 'eos' | 'stop' | 'length'): { body: string } | Failure | undefined {
  const open = action.lastIndexOf(TOOL_CALL_OPEN);
  if (ending === 'stop' && action.endsWith(TOOL_CALL_CLOSE)) {
    if (open < 0)
      return { outcome: 'syntax', message: `${TOOL_CALL_CLOSE} without ${TOOL_CALL_OPEN} before it; write ${TOOL_CALL_OPEN}name arguments${TOOL_CALL_CLOSE}` };
    return { body: action.slice(open + TOOL_CALL_OPEN.length, action.length - TOOL_CALL_CLOSE.length) };
  }
  if (ending === 'length' && open >= 0 && action.indexOf(TOOL_CALL_CLOSE, open) < 0)
    return { outcome: 'missing_stop', message: `the tool call was not closed with ${TOOL_CALL_CLOSE} before the turn's token budget ran out` };
  return undefined;
}

/** The positional fields of a tool: names in schema order, and whether each is a string. */
function fieldsOf<S>(tool: Tool<S>): { name: string; isString: boolean }[] {
  let fields = FIELDS.get(tool);
  if (!fields) {
    const properties = (toolSpec(tool).parameters.properties ?? {}) as Record<string, { type?: unknown }>;
    fields = Object.entries(properties).map(([name, p]) => ({ name, isString: p.type === 'string' }));
    FIELDS.set(tool, fields);
  }
  return fields;
}
const FIELDS = new WeakMap<object, { name: string; isString: boolean }[]>();

/** `name a b …` as the policy would write it for this tool (for error messages and prompts). */
export function toolUsage<S>(tool: Tool<S>): string {
  return [tool.name, ...fieldsOf(tool).map((f) => f.name)].join(' ');
}

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';

/** Reads one argument at `i` (no leading space): a JSON string literal or a bare word. */
function readWord(text: string, i: number): { value: string; quoted: boolean; end: number } | { error: string } {
  if (text[i] !== '"') {
    let end = i;
    while (end < text.length && !isSpace(text[end])) end++;
    return { value: text.slice(i, end), quoted: false, end };
  }
  let end = i + 1;
  while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
  if (end >= text.length) return { error: `the quoted argument starting at character ${i} has no closing quote` };
  let value: string;
  try {
    value = JSON.parse(text.slice(i, end + 1)) as string;
  } catch {
    return { error: `the quoted argument starting at character ${i} is not a valid JSON string` };
  }
  if (end + 1 < text.length && !isSpace(text[end + 1])) return { error: `text follows the closing quote at character ${end} without a space` };
  return { value, quoted: true, end: end + 1 };
}

/** Parses a call's body (between the tags) against the tools; a failure says what is wrong in one sentence. */
export function parseToolCall<S>(body: string, tools: ReadonlyMap<string, Tool<S>>): ParsedToolCall<S> | Failure {
  let i = 0;
  const skip = () => {
    while (isSpace(body[i])) i++;
  };
  skip();
  if (i >= body.length) return { outcome: 'syntax', message: `the tool call is empty; write ${TOOL_CALL_OPEN}name arguments${TOOL_CALL_CLOSE}` };
  const start = i;
  while (i < body.length && !isSpace(body[i])) i++;
  const name = body.slice(start, i);
  const tool = tools.get(name);
  if (!tool) return { outcome: 'unknown_tool', message: `there is no tool named ${JSON.stringify(name)}; the tools are ${[...tools.keys()].join(', ')}` };
  const fields = fieldsOf(tool);
  const args: Record<string, unknown> = {};
  for (const [k, field] of fields.entries()) {
    skip();
    if (i >= body.length) break;
    if (k === fields.length - 1 && field.isString && body[i] !== '"') {
      args[field.name] = body.slice(i);
      i = body.length;
      break;
    }
    const word = readWord(body, i);
    if ('error' in word) return { outcome: 'syntax', message: `${word.error}; usage: ${toolUsage(tool)}` };
    i = word.end;
    args[field.name] = field.isString || word.quoted ? word.value : jsonOrText(word.value);
  }
  skip();
  if (i < body.length) return { outcome: 'syntax', message: `too many arguments; ${name} takes ${fields.length}: usage: ${toolUsage(tool)}` };
  const checked = tool.parameters.safeParse(args);
  if (!checked.success) {
    const issues = checked.error.issues.map((issue) => `${issue.path.length > 0 ? `argument ${issue.path.join('.')}: ` : ''}${issue.message}`);
    return { outcome: 'schema', message: `${issues.join('; ')}; usage: ${toolUsage(tool)}` };
  }
  return { tool, args: checked.data as Record<string, unknown> };
}

/** A bare word for a non-string field: its JSON value (1, true, null, [1,2]), or the text for the schema to refuse. */
function jsonOrText(word: string): unknown {
  try {
    return JSON.parse(word);
  } catch {
    return word;
  }
}

/** Cuts `text` to at most `limit` code units, keeping one side and saying how much was cut. */
export function truncateText(text: string, { limit, keep }: OutputLimit): { text: string; truncated: boolean } {
  if (text.length <= limit) return { text, truncated: false };
  const marker = (cut: number) => (keep === 'head' ? `\n[… ${cut} characters cut]` : `[… ${cut} characters cut]\n`);
  // The marker's digits bound the cut's, so a marker sized for the whole text leaves room for the real one.
  let kept = Math.max(0, limit - marker(text.length).length);
  // Never split a surrogate pair: that would leave half a character, which no tokenizer can encode.
  const boundary = keep === 'head' ? kept : text.length - kept;
  const code = text.charCodeAt(boundary);
  if (kept > 0 && boundary > 0 && boundary < text.length && code >= 0xdc00 && code <= 0xdfff) kept--;
  const cut = text.length - kept;
  return { text: keep === 'head' ? text.slice(0, kept) + marker(cut) : marker(cut) + text.slice(text.length - kept), truncated: true };
}

/** An error observation for a call that failed before or while running. */
export function failedCall(failure: Failure, output: OutputLimit): ToolCallResult {
  const { text, truncated } = truncateText(`error: ${failure.message}`, output);
  return { text, outcome: failure.outcome, outputTruncated: truncated };
}

/** What the deadline's timer resolves to: no tool output can equal it. */
const OVERRUN = Symbol('overrun');

/** Runs a parsed call under its deadline; a throw, a non-text result or an overrun becomes an error result. */
export async function runToolCall<S>(
  call: ParsedToolCall<S>,
  context: Omit<ToolContext<S>, 'deadline'>,
  timeoutMs: number,
  output: OutputLimit,
): Promise<ToolCallResult> {
  const { tool } = call;
  const ctx: ToolContext<S> = { ...context, deadline: performance.now() + timeoutMs };
  let timer: ReturnType<typeof setTimeout> | undefined;
  // No timer for an unlimited tool: setTimeout would fire an infinite delay at once.
  const overrun = Number.isFinite(timeoutMs)
    ? new Promise<typeof OVERRUN>((resolve) => {
        timer = setTimeout(() => resolve(OVERRUN), timeoutMs);
      })
    : new Promise<typeof OVERRUN>(() => {});
  let result: Awaited<ReturnType<Tool<S>['run']>> | typeof OVERRUN;
  try {
    result = await Promise.race([Promise.resolve().then(() => tool.run(call.args, ctx)), overrun]);
  } catch (error) {
    return failedCall({ outcome: 'tool_error', message: `${tool.name} failed: ${error instanceof Error ? error.message : String(error)}` }, output);
  } finally {
    clearTimeout(timer);
  }
  if (result === OVERRUN) return failedCall({ outcome: 'timeout', message: `${tool.name} did not return within ${timeoutMs} ms` }, output);
  const text = typeof result === 'string' ? result : result?.text;
  if (typeof text !== 'string') return failedCall({ outcome: 'tool_error', message: `${tool.name} returned ${typeof result}, not text` }, output);
  const cut = truncateText(text, output);
  return { text: cut.text, outcome: 'ok', outputTruncated: cut.truncated, ...(typeof result === 'object' && result.info ? { info: result.info } : {}) };
}

/** The observation for a call's result: the text between `<tool_result>` and `</tool_result>`, written as special tokens. */
export function toolResultText(text: string): EnvTextPart[] {
  return [{ special: '<tool_result>' }, text, { special: '</tool_result>' }];
}

/** The iteration's tool-call metrics over `samples`; none when no sample made a tool call (single-turn tasks log nothing new). */
export function toolCallMetrics(samples: readonly Sample[]): Partial<Record<MetricName, number>> {
  const counted = samples.flatMap((s) => (s.toolCalls ? [s.toolCalls] : []));
  if (counted.length === 0) return {};
  const sum = (pick: (c: (typeof counted)[number]) => number) => counted.reduce((n, c) => n + pick(c), 0);
  return {
    'rollout/tool_calls': sum((c) => c.ok + c.syntax + c.unknown_tool + c.schema + c.missing_stop + c.tool_error + c.timeout),
    'rollout/tool_malformed_calls': sum((c) => c.syntax + c.unknown_tool + c.schema + c.missing_stop),
    'rollout/tool_failures': sum((c) => c.tool_error + c.timeout),
    'rollout/tool_truncated_outputs': sum((c) => c.outputTruncated),
  };
}
