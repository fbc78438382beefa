// A rollout as something to read: its segments' tokens cut into display spans (the prompt, the
// carried-over context, each turn's action with its tool call, the observation, user or fabricated
// text that followed, a compaction summary), with the status and reward. `horizon sample` prints it
// in a terminal and the web UI's completions table draws it; both read this one model, so a trace
// looks the same in either. The spans follow the token kinds (sample.ts), never the turn texts: the
// kinds say what the context held and what trained, which is what a reader of a trace must see
// (slime's loss_mask, THUDM/slime `Sample.loss_mask`). A rollout with sub-agents (delegate.ts) is a
// tree: the root's segments are `segments`, each sub-agent's context is a `branch` linked to the
// delegate call that started it (that action span names the branch), so a front end can draw the
// child under the call. Left out: any per-token number (each front end shades tokens by its own channel).

import { KIND_LETTERS, type SampleRecord } from '../metrics/jsonl.ts';
import { branchOf, compareBranches, type ParentLink, ROOT_BRANCH } from './branches.ts';
import type { ActionEnding } from './environment.ts';
import type { RolloutStatus } from './rollout-status.ts';
import { type RolloutFailure, type Sample, TOKEN_KINDS, type TokenKind, TRAINABLE_KINDS, type Turn } from './sample.ts';
import { extractToolCall, TOOL_CALL_CLOSE, TOOL_CALL_OPEN } from './tool-call.ts';

/** One context of a rollout, as either front end has it: a Sample with a decoder, or a samples.jsonl record. */
export interface TraceSegmentInput {
  rolloutId: number;
  groupId: number;
  seed: number;
  /** [L] who wrote each token (TOKEN_KINDS). */
  kinds: readonly TokenKind[];
  /** [L] each token's text. */
  pieces: readonly string[];
  turns: readonly Turn[];
  reward: number;
  done: boolean;
  /** Absent where it was not recorded (samples.jsonl files written before status was kept have only `done`). */
  status?: RolloutStatus;
  /** Absent where it was not recorded; segments are then taken in the order given. */
  segmentIndex?: number;
  /** A non-final segment of a compacted rollout (Sample.compacted): it ended at a summary, not with the rollout. */
  compacted?: boolean;
  tokensAfter?: number;
  failure?: RolloutFailure;
  /** A sub-agent's context: its branch ('0.1') and where it was started (branches.ts). Absent on the root's. */
  branch?: string;
  parent?: ParentLink;
}

/** A tool call as the action wrote it: the tool's name and its positional arguments as text (tool-call.ts). */
export interface TraceToolCall {
  name: string;
  args: string;
  /** Why the call cannot run (no closing tag before the token budget ran out, a closing tag with no opening one). */
  problem?: string;
}

export interface TraceSpan {
  kind: TokenKind;
  /** Token positions [start, end) in the segment's context. */
  start: number;
  end: number;
  text: string;
  /** No loss is computed on it (every kind but action and summary): drawn greyed. */
  masked: boolean;
  /** 1-based turn of the trajectory (counted across segments) for actions, summaries and what followed them. */
  turn?: number;
  /** Action and summary spans: how the policy's turn ended, where the turn is known. */
  ending?: ActionEnding;
  /** Action spans that call a tool. */
  toolCall?: TraceToolCall;
  /** Summary spans: the index of the segment that continues from this summary (a compaction point). */
  continuedIn?: number;
  /** Context spans after the first segment: the index of the segment the carried tokens come from. */
  carriedFrom?: number;
  /** Action spans whose delegate call started a sub-agent: its branch (Trace.branches). */
  delegatedTo?: string;
}

export interface TraceSegment {
  /** 0-based segment index within the rollout. */
  index: number;
  /** Position of this segment among the inputs given to traceOf. */
  input: number;
  spans: TraceSpan[];
  /** [L] each token's text, for front ends that draw token by token. */
  pieces: readonly string[];
  reward: number;
  done: boolean;
  status?: RolloutStatus;
  /** Ended at a compaction summary: the rollout went on in the next segment. */
  compacted?: true;
  tokensAfter?: number;
}

/** One sub-agent's context, drawn under the delegate call that started it. */
export interface TraceBranch {
  /** '0.1', '0.1.2', … (branches.ts). */
  branch: string;
  parent: ParentLink;
  /** Its context (a sub-agent does not compact: one segment, index 0). */
  segment: TraceSegment;
  turns: number;
  failure?: RolloutFailure;
}

export interface Trace {
  rolloutId: number;
  groupId: number;
  seed: number;
  /** By segment index. */
  segments: TraceSegment[];
  /** Segments the trajectory had: the highest index seen + 1 (more than `segments.length` when some were not logged). */
  segmentCount: number;
  turns: number;
  /** The rollout's reward: its last segment's (with compaction every segment carries the verifier's outcome). */
  reward: number;
  /** The last segment's: how the trajectory ended. */
  status?: RolloutStatus;
  done: boolean;
  failure?: RolloutFailure;
  /** The sub-agents' contexts in tree order (a parent before its children); empty without sub-agents. */
  branches: TraceBranch[];
}

/** A Sample as a trace segment; `pieceOf` decodes one token id. */
export function segmentOfSample(sample: Sample, pieceOf: (id: number) => string): TraceSegmentInput {
  return {
    rolloutId: sample.rolloutId,
    groupId: sample.groupId,
    seed: sample.seed,
    kinds: Array.from(sample.tokenKinds, (code) => TOKEN_KINDS[code]),
    pieces: sample.tokens.map(pieceOf),
    turns: sample.turns,
    reward: sample.reward,
    done: sample.done,
    status: sample.status,
    segmentIndex: sample.segmentIndex,
    ...(sample.compacted ? { compacted: true } : {}),
    tokensAfter: sample.tokensAfter,
    ...(sample.failure ? { failure: sample.failure } : {}),
    ...(sample.parent && sample.branch ? { branch: sample.branch, parent: sample.parent } : {}),
  };
}

const KIND_OF_LETTER: Readonly<Record<string, TokenKind>> = Object.fromEntries(
  Object.entries(KIND_LETTERS).map(([kind, letter]) => [letter, kind as TokenKind]),
);
const KIND_OF_ROLE: Readonly<Record<string, TokenKind>> = { p: 'prompt', a: 'action', o: 'observation' };

/**
 * A samples.jsonl record as a trace segment. Records from before token kinds fall back to their
 * roles (p/a/o); records without pieces show each token's id.
 */
export function segmentOfRecord(record: SampleRecord): TraceSegmentInput {
  const letters = record.kinds ?? record.roles;
  const table = record.kinds === undefined ? KIND_OF_ROLE : KIND_OF_LETTER;
  return {
    rolloutId: record.rolloutId,
    groupId: record.groupId,
    seed: record.seed,
    kinds: Array.from(letters, (letter, t) => {
      const kind = table[letter];
      if (kind === undefined) throw new RangeError(`token ${t} of rollout ${record.rolloutId} has kind letter "${letter}", which is not a token kind`);
      return kind;
    }),
    pieces: record.tokens.map((id, t) => record.pieces?.[t] ?? `#${id}`),
    turns: record.turns,
    reward: record.reward,
    done: record.done,
    // Files written before status was recorded say only whether the episode was done.
    ...(record.status ? { status: record.status } : record.done ? { status: 'completed' as const } : {}),
    ...(record.segmentIndex !== undefined ? { segmentIndex: record.segmentIndex } : {}),
    ...(record.compacted ? { compacted: true } : {}),
    ...(record.tokensAfter !== undefined ? { tokensAfter: record.tokensAfter } : {}),
    ...(record.failure ? { failure: record.failure } : {}),
    ...(record.parent && record.branch ? { branch: record.branch, parent: record.parent } : {}),
  };
}

/** The tool call in an action's text, if it makes one (tool-call.ts's wire format, `<tool_call>name args…</tool_call>`). */
export function toolCallOf(action: string, ending: ActionEnding): TraceToolCall | undefined {
  const call = extractToolCall(action, ending);
  if (call === undefined) return undefined;
  const open = action.lastIndexOf(TOOL_CALL_OPEN);
  // A call cut off by the budget still names its tool; a closing tag with no opening one names none.
  const body = 'body' in call ? call.body : open < 0 ? '' : action.slice(open + TOOL_CALL_OPEN.length);
  const trimmed = body.trim();
  const gap = trimmed.search(/\s/);
  const name = gap < 0 ? trimmed : trimmed.slice(0, gap);
  const args = gap < 0 ? '' : trimmed.slice(gap + 1).trim();
  return 'body' in call ? { name, args } : { name, args, problem: call.message };
}

const TRAINABLE = new Set<TokenKind>(TRAINABLE_KINDS);

/** The spans of one segment; `firstTurn` is the number of turns in the segments before it. */
function spansOf(input: TraceSegmentInput, firstTurn: number): TraceSpan[] {
  const { kinds, pieces, turns } = input;
  if (pieces.length !== kinds.length) throw new RangeError(`rollout ${input.rolloutId} has ${pieces.length} token texts for ${kinds.length} token kinds`);
  const runs: { kind: TokenKind; start: number; end: number }[] = [];
  for (let t = 0; t < kinds.length; t++) {
    const last = runs.at(-1);
    if (last && last.kind === kinds[t]) last.end = t + 1;
    else runs.push({ kind: kinds[t], start: t, end: t + 1 });
  }
  // Each action or summary run is one turn of the Sample; the turn's own text and ending are used
  // only when the count matches (two actions with nothing between them would share one run).
  const actionRuns = runs.filter((r) => TRAINABLE.has(r.kind)).length;
  const aligned = actionRuns === turns.length;
  let turn = -1;
  return runs.map(({ kind, start, end }) => {
    const text = pieces.slice(start, end).join('');
    const span: TraceSpan = { kind, start, end, text, masked: !TRAINABLE.has(kind) };
    if (TRAINABLE.has(kind)) turn++;
    if (turn >= 0 && kind !== 'prompt' && kind !== 'context') span.turn = firstTurn + turn + 1;
    if (kind === 'action' || kind === 'summary') {
      const own = aligned ? turns[turn] : undefined;
      if (own) span.ending = own.ending;
      if (kind === 'action') {
        const call = toolCallOf(own?.action ?? text, own?.ending ?? (text.endsWith(TOOL_CALL_CLOSE) ? 'stop' : 'eos'));
        if (call) span.toolCall = call;
      }
    }
    return span;
  });
}

/** How many turns a segment has: its action and summary runs. */
function turnCount(spans: readonly TraceSpan[]): number {
  return spans.filter((s) => !s.masked).length;
}

/** One rollout's trace from its segments and its sub-agents' contexts (any order; all must share one rolloutId). */
export function traceOf(inputs: readonly TraceSegmentInput[]): Trace {
  if (inputs.length === 0) throw new RangeError('a trace needs at least one segment');
  const { rolloutId, groupId, seed } = inputs[0];
  for (const input of inputs)
    if (input.rolloutId !== rolloutId) throw new RangeError(`segments of rollouts ${rolloutId} and ${input.rolloutId} cannot form one trace`);
  const isRoot = (input: TraceSegmentInput) => (input.branch ?? ROOT_BRANCH) === ROOT_BRANCH;
  const rootInputs = inputs.flatMap((input, i) => (isRoot(input) ? [{ input, i }] : []));
  if (rootInputs.length === 0) throw new RangeError(`rollout ${rolloutId} has sub-agent contexts but no root context`);
  const order = rootInputs.map(({ input, i }) => ({ input, i, index: input.segmentIndex ?? i }));
  order.sort((a, b) => a.index - b.index || a.i - b.i);
  for (let k = 1; k < order.length; k++)
    if (order[k].index === order[k - 1].index) throw new RangeError(`rollout ${rolloutId} has two segments with index ${order[k].index}`);
  let turns = 0;
  const segments = order.map(({ input, i, index }): TraceSegment => {
    const segment = segmentOf(input, i, index, turns);
    turns += turnCount(segment.spans);
    return segment;
  });
  // Compaction points: a summary continues in the next segment, whose carried context comes from the
  // segment before it (sample.ts ContextOptions.carried), logged here or not.
  for (const [k, segment] of segments.entries()) {
    const next = segments[k + 1];
    for (const span of segment.spans) {
      if (span.kind === 'summary' && next?.index === segment.index + 1) span.continuedIn = next.index;
      if (span.kind === 'context' && segment.index > 0) span.carriedFrom = segment.index - 1;
    }
  }
  const last = segments[segments.length - 1];
  const failure = order.map(({ input }) => input.failure).find((f) => f !== undefined);
  const branches = branchesOf(inputs, segments);
  return {
    rolloutId,
    groupId,
    seed,
    segments,
    segmentCount: last.index + 1,
    turns,
    reward: last.reward,
    ...(last.status ? { status: last.status } : {}),
    done: last.done,
    ...(failure ? { failure } : {}),
    branches,
  };
}

/** One context of a trace: its spans numbered on from `turnsBefore`. */
function segmentOf(input: TraceSegmentInput, i: number, index: number, turnsBefore: number): TraceSegment {
  return {
    index,
    input: i,
    spans: spansOf(input, turnsBefore),
    pieces: input.pieces,
    reward: input.reward,
    done: input.done,
    ...(input.status ? { status: input.status } : {}),
    ...(input.compacted ? { compacted: true as const } : {}),
    ...(input.tokensAfter !== undefined ? { tokensAfter: input.tokensAfter } : {}),
  };
}

/** The sub-agents' contexts in tree order, each delegate call's action span marked with the branch it started. */
function branchesOf(inputs: readonly TraceSegmentInput[], rootSegments: readonly TraceSegment[]): TraceBranch[] {
  const children = inputs
    .map((input, i) => ({ input, i }))
    .filter(({ input }) => input.branch !== undefined && input.branch !== ROOT_BRANCH && input.parent)
    .sort((a, b) => compareBranches(branchOf(a.input), branchOf(b.input)));
  const branches: TraceBranch[] = [];
  const contexts = new Map<string, readonly TraceSegment[]>([[ROOT_BRANCH, rootSegments]]);
  for (const { input, i } of children) {
    const segment = segmentOf(input, i, 0, 0);
    const branch = branchOf(input);
    const parent = input.parent as ParentLink;
    branches.push({ branch, parent, segment, turns: turnCount(segment.spans), ...(input.failure ? { failure: input.failure } : {}) });
    contexts.set(branch, [segment]);
    // The parent's action of that turn (its turn-th trainable run in that segment) started it; a parent not logged is left unmarked.
    const parentSegment = contexts.get(parent.branch)?.find((s) => s.index === parent.segmentIndex);
    const call = parentSegment?.spans.filter((s) => !s.masked)[parent.turn - 1];
    if (call?.kind === 'action') call.delegatedTo = branch;
  }
  return branches;
}

/** Items grouped by `keyOf` (e.g. a rollout's id), groups in order of first appearance. */
export function groupSegments<T>(items: readonly T[], keyOf: (item: T) => string | number): T[][] {
  const groups = new Map<string | number, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return [...groups.values()];
}

/** How the trajectory (or one segment) ended in words: "compacted", its status, or "not completed" where only `done` was recorded. */
export function statusLabel(trace: Pick<Trace, 'status' | 'done'> & { compacted?: true }): string {
  if (trace.compacted) return 'compacted';
  return trace.status ?? (trace.done ? 'completed' : 'not completed');
}

/** A single-turn completion (a prompt and one answer in one context): the flat token strip says it all. */
export function isSingleTurn(trace: Trace): boolean {
  return trace.segments.length === 1 && trace.turns <= 1 && trace.segments[0].spans.every((s) => s.kind === 'prompt' || s.kind === 'action');
}
