// A multi-turn trace (core's trace view) in a terminal, turn by turn: the action as a token strip
// shaded by a per-token number (token-shading.ts) with its tool call highlighted underneath; the
// observation, user or fabricated text that followed dimmed and cut to the terminal's width with a
// count of what was cut; a compaction summary and the context carried into the next segment marked;
// a `segment k/n` header per context; a sub-agent's context indented under the delegate call that
// started it, with a `sub-agent 0.1` header; the status and reward last. Without colour every mark is a word,
// so the trace reads the same piped into a file. The policy's own tokens are never cut: they are
// what the reader came to see.

import { statusLabel, type Trace, type TraceSegment, type TraceSpan } from '@horizon/core';
import { renderStrip, type StripToken } from './token-shading.ts';

const RESET = '\x1b[0m';
const DIM = '\x1b[2m';
const BOLD = '\x1b[1m';
const TOOL = '\x1b[1;36m'; // bold cyan: the tool's name
const MARK = '\x1b[1;35m'; // bold magenta: compaction (summary, carried context, segment headers)
const PROBLEM = '\x1b[1;31m';

/** Width of the label column, its separating space included ("turn 12 summary "). */
const LABEL = 16;

export interface TracePrintOptions {
  /** Terminal columns: environment text is cut to fit one line. */
  width: number;
  color: boolean;
  /** The number shading action token `position` of the segment given as `input` to traceOf; absent: no shading. */
  valueAt?: (input: number, position: number) => number;
  /** |value| drawn at full colour. */
  scale?: number;
}

/** Text on one line: newlines as ⏎, tabs as spaces. */
function oneLine(text: string): string {
  return text.replace(/\r?\n/g, '⏎').replace(/\t/g, ' ');
}

/** `text` on one line, cut to `room` characters with "… (+N chars)" saying how much went. */
export function cutToWidth(text: string, room: number): string {
  const flat = oneLine(text);
  const chars = [...flat];
  if (chars.length <= room) return flat;
  // The marker's own length depends on N; measure with the largest N it can say.
  const marker = (n: number) => `… (+${n} chars)`;
  const keep = Math.max(1, room - marker(chars.length).length);
  return `${chars.slice(0, keep).join('')}${marker(chars.length - keep)}`;
}

function label(text: string, color: boolean, style = ''): string {
  const padded = `${text.padEnd(LABEL - 1)} `;
  return color && style ? `${style}${padded}${RESET}` : padded;
}

const dim = (text: string, color: boolean) => (color ? `${DIM}${text}${RESET}` : text);

/** The policy's tokens of `span`, shaded when a number is given, else as plain text. */
function policyText(segment: TraceSegment, span: TraceSpan, options: TracePrintOptions): string {
  const { valueAt } = options;
  if (!valueAt) return oneLine(span.text);
  let out = '';
  for (let p = span.start; p < span.end; p++) {
    const token: StripToken = { text: segment.pieces[p], role: 'a', value: valueAt(segment.input, p) };
    // A non-finite number has no shade: it is spelled out, never drawn as a colour.
    out += Number.isFinite(token.value) ? renderStrip([token], options.scale || 1, options.color) : `${oneLine(token.text)}[${token.value}]`;
  }
  return out;
}

function spanLines(segment: TraceSegment, span: TraceSpan, options: TracePrintOptions): string[] {
  const { color, width } = options;
  const room = Math.max(20, width - LABEL - 2);
  const indent = '  ';
  switch (span.kind) {
    case 'prompt':
      return [`${indent}${label('prompt', color)}${dim(cutToWidth(span.text, room), color)}`];
    case 'context': {
      const from = span.carriedFrom === undefined ? 'carried over' : `carried from segment ${span.carriedFrom + 1}`;
      const head = `${indent}${label('context', color, MARK)}${color ? `${MARK}${from}${RESET}` : `[${from}]`} `;
      return [`${head}${dim(cutToWidth(span.text, Math.max(10, room - from.length - 3)), color)}`];
    }
    case 'action':
    case 'summary': {
      const name = span.kind === 'summary' ? `turn ${span.turn} summary` : `turn ${span.turn}`;
      const lines = [`${indent}${label(name, color, span.kind === 'summary' ? MARK : BOLD)}${policyText(segment, span, options)}`];
      const call = span.toolCall;
      if (call) {
        const shown = `${call.name || '(no tool named)'}${call.args ? ` ${oneLine(call.args)}` : ''}`;
        const text = color ? `${TOOL}${call.name || '(no tool named)'}${RESET}${BOLD}${call.args ? ` ${oneLine(call.args)}` : ''}${RESET}` : `[${shown}]`;
        lines.push(`${indent}${label('  tool call', color)}${text}`);
        if (call.problem) lines.push(`${indent}${label('', color)}${color ? `${PROBLEM}✗ ${call.problem}${RESET}` : `✗ ${call.problem}`}`);
      }
      if (span.ending === 'length') lines.push(`${indent}${label('', color)}${dim('(cut off: the turn ran out of tokens)', color)}`);
      if (span.continuedIn !== undefined) {
        const note = `compaction: segment ${span.continuedIn + 1} continues from this summary`;
        lines.push(`${indent}${label('', color)}${color ? `${MARK}⇢ ${note}${RESET}` : `⇢ ${note}`}`);
      }
      return lines;
    }
    default: {
      // observation, user, fabricated: written by the environment, no loss on it.
      const name = span.kind === 'fabricated' ? '  fabricated' : span.kind === 'user' ? '  user' : '  observation';
      return [`${indent}${label(name, color)}${dim(cutToWidth(span.text, room), color)}`];
    }
  }
}

/** A segment on one line with no numbers: what no loss is computed on dimmed, the policy's tokens plain. */
export function flatLine(segment: TraceSegment, color: boolean): string {
  return segment.spans.map((s) => (s.masked ? dim(oneLine(s.text), color) : oneLine(s.text))).join('');
}

/** The trace's header line: rollout, seed, turns and segments, how it ended and its reward. */
export function traceHeader(trace: Trace, color: boolean): string {
  const parts = [
    `rollout ${trace.rolloutId}`,
    `seed ${trace.seed}`,
    `${trace.turns} turn${trace.turns === 1 ? '' : 's'}`,
    ...(trace.segmentCount > 1 ? [`${trace.segmentCount} segments`] : []),
    statusLabel(trace),
    `reward ${trace.reward.toFixed(2)}`,
  ];
  const glyph = trace.reward >= 1 ? '✓' : '✗';
  return `${glyph} ${color ? `${BOLD}${parts.join(' · ')}${RESET}` : parts.join(' · ')}`;
}

/** The sub-agent a delegate call started, indented under it, and its own sub-agents under their calls. */
function branchLines(trace: Trace, span: TraceSpan, options: TracePrintOptions): string[] {
  const branch = span.delegatedTo === undefined ? undefined : trace.branches.find((b) => b.branch === span.delegatedTo);
  if (!branch) return [];
  const { segment } = branch;
  const head = `── sub-agent ${branch.branch} · ${segment.pieces.length} tokens · ${statusLabel(segment)}${branch.failure ? ` · ${branch.failure.message}` : ''} ──`;
  const lines = [`  ${options.color ? `${MARK}${head}${RESET}` : head}`];
  for (const s of segment.spans) lines.push(...spanLines(segment, s, options), ...branchLines(trace, s, options));
  return lines.map((line) => `    ${line}`);
}

/** Every line of one trace, header first, then each segment's spans. */
export function traceLines(trace: Trace, options: TracePrintOptions): string[] {
  const lines = [traceHeader(trace, options.color)];
  for (const segment of trace.segments) {
    if (trace.segmentCount > 1) {
      const tokens = segment.pieces.length;
      const head = `── segment ${segment.index + 1}/${trace.segmentCount} · ${tokens} tokens · ${statusLabel(segment)} ──`;
      lines.push(`  ${options.color ? `${MARK}${head}${RESET}` : head}`);
    }
    for (const span of segment.spans) lines.push(...spanLines(segment, span, options), ...branchLines(trace, span, options));
  }
  if (trace.failure) {
    const why = `${trace.failure.source}: ${trace.failure.message}`;
    lines.push(`  ${label('failure', options.color, PROBLEM)}${options.color ? `${PROBLEM}${why}${RESET}` : why}`);
  }
  lines.push(`  → ${statusLabel(trace)} · reward ${trace.reward.toFixed(2)}`);
  return lines;
}
