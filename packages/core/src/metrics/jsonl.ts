// The run log formats, shared by the Node runner (files), the browser (IndexedDB) and replay.
//
// metrics.jsonl: line 1 = {"kind":"recipe","format":"horizon.metrics/1","recipe":{…}} (the resolved
// recipe, docs/conventions.md §4); then one line per logged step:
//   {"kind":"metrics","phase":"rl","step":12,"global_step":312,"time_s":81.4,"metrics":{"rollout/reward":0.4,…}}
// `step` is the phase's own counter (SFT step, RL iteration; an eval carries the iteration it
// followed, 0 after SFT). `global_step` never goes backwards over a whole run, resumes included:
// SFT step s → s, an RL iteration k or the eval after it → sft.steps + k (globalStep below). Key a
// dashboard on it (wandb's `step=`): keyed on `step`, the RL points would land on the SFT ones
// (a fresh machine's dashboard showed this). `time_s` counts training seconds since the run started, carried across resumes.
// samples.jsonl: one SampleRecord per line.
// JSON has no NaN or Infinity; they are written as the strings "NaN", "Infinity", "-Infinity" and
// read back as numbers, because a NaN loss is exactly what a log must not lose.

import type { ParentLink } from '../envs/branches.ts';
import type { JsonValue } from '../envs/environment.ts';
import type { RolloutStatus } from '../envs/rollout-status.ts';
import { type RolloutFailure, type Sample, TOKEN_KINDS, type TokenKind, type Turn } from '../envs/sample.ts';
import { InputError } from '../errors.ts';
import { isMetricName, type MetricName } from './glossary.ts';

export const METRICS_FORMAT = 'horizon.metrics/1';

export type Phase = 'sft' | 'rl' | 'eval';
export const PHASES: readonly Phase[] = ['sft', 'rl', 'eval'];

export interface MetricsRecord {
  phase: Phase;
  /** SFT step or RL iteration (eval records carry the iteration they followed). */
  step: number;
  /**
   * Steps since the run started, non-decreasing across phases (globalStep). The Trainer supplies it
   * on every record; logs written before it existed lack it, and parseMetricsLog fills it in.
   */
  global_step?: number;
  /** Seconds of training since the run started, resumes included (wall clock; not part of bitwise-resume comparisons). */
  time_s: number;
  metrics: Partial<Record<MetricName, number>>;
}

export interface MetricsHeader {
  kind: 'recipe';
  format: typeof METRICS_FORMAT;
  /** The resolved recipe as saved (validate it with validateRecipe before use). */
  recipe: Record<string, unknown>;
}

/** The run-wide step of a record: SFT step s → s; RL iteration k, or the eval after it → sftSteps + k. */
export function globalStep(phase: Phase, step: number, sftSteps: number): number {
  return phase === 'sft' ? step : sftSteps + step;
}

const encodeNumber = (x: number): number | string => (Number.isFinite(x) ? x : String(x));
const decodeNumber = (x: unknown): number =>
  typeof x === 'number' ? x : x === 'NaN' ? Number.NaN : x === 'Infinity' ? Infinity : x === '-Infinity' ? -Infinity : Number.NaN;

/** Throws a RangeError for a record the glossary or the format does not allow (a programming error). */
export function checkMetricsRecord(record: MetricsRecord): void {
  if (!PHASES.includes(record.phase)) throw new RangeError(`metrics phase must be one of ${PHASES.join(', ')}, got "${record.phase}"`);
  if (!Number.isInteger(record.step) || record.step < 0) throw new RangeError(`metrics step must be a non-negative integer, got ${record.step}`);
  if (record.global_step !== undefined && (!Number.isInteger(record.global_step) || record.global_step < 0))
    throw new RangeError(`metrics global_step must be a non-negative integer, got ${record.global_step}`);
  if (!Number.isFinite(record.time_s) || record.time_s < 0) throw new RangeError(`metrics time_s must be a finite non-negative number, got ${record.time_s}`);
  for (const [name, value] of Object.entries(record.metrics)) {
    if (!isMetricName(name)) throw new RangeError(`metric "${name}" is not defined in metrics/glossary.ts; add it there with a unit and a one-line doc`);
    if (typeof value !== 'number') throw new RangeError(`metric "${name}" must be a number, got ${typeof value}`);
  }
}

export function formatHeaderLine(recipe: object): string {
  return `${JSON.stringify({ kind: 'recipe', format: METRICS_FORMAT, recipe })}\n`;
}

export function formatMetricsLine(record: MetricsRecord): string {
  checkMetricsRecord(record);
  const metrics: Record<string, number | string> = {};
  for (const [name, value] of Object.entries(record.metrics)) metrics[name] = encodeNumber(value as number);
  const line = { kind: 'metrics', phase: record.phase, step: record.step, ...(record.global_step !== undefined ? { global_step: record.global_step } : {}) };
  return `${JSON.stringify({ ...line, time_s: record.time_s, metrics })}\n`;
}

export interface MetricsLog {
  header: MetricsHeader;
  records: MetricsRecord[];
  /** Bytes (UTF-8) of the complete lines read; a torn last line starts here. */
  completeBytes: number;
  /** The text ended inside a line (a crash while appending); that line was ignored. */
  tornTail: boolean;
}

/**
 * Parses a metrics.jsonl text. A last line without its newline (a crash mid-append) is ignored and
 * reported in `tornTail`; any other malformed line is an InputError naming its line number.
 */
export function parseMetricsLog(text: string, fileName = 'metrics.jsonl'): MetricsLog {
  const lines = text.split('\n');
  const tail = lines.pop() ?? '';
  const tornTail = tail.length > 0;
  const bad = (n: number, why: string): never => {
    throw new InputError('run', `${fileName} line ${n} ${why}; the run log is damaged, so start a new run or restore the file.`);
  };
  if (lines.length === 0) bad(1, 'is missing (the recipe header)');
  let header: MetricsHeader | undefined;
  const records: MetricsRecord[] = [];
  for (const [i, line] of lines.entries()) {
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(line);
    } catch {
      bad(i + 1, 'is not valid JSON');
    }
    if (i === 0) {
      if (json.kind !== 'recipe' || json.format !== METRICS_FORMAT || typeof json.recipe !== 'object' || json.recipe === null)
        bad(1, `is not a ${METRICS_FORMAT} recipe header`);
      header = json as unknown as MetricsHeader;
      continue;
    }
    if (json.kind !== 'metrics' || typeof json.metrics !== 'object' || json.metrics === null) bad(i + 1, 'is not a metrics record');
    const metrics: Record<string, number> = {};
    for (const [name, value] of Object.entries(json.metrics as Record<string, unknown>)) metrics[name] = decodeNumber(value);
    const record = { phase: json.phase, step: json.step, time_s: json.time_s, metrics } as MetricsRecord;
    if (json.global_step !== undefined) record.global_step = json.global_step as number;
    try {
      checkMetricsRecord(record);
    } catch (error) {
      bad(i + 1, `is not a valid metrics record (${(error as Error).message})`);
    }
    if (record.global_step === undefined) {
      // A log from before global_step: derive it from the header's recipe.
      const sft = (header?.recipe as { sft?: { steps?: unknown } } | undefined)?.sft?.steps;
      if (typeof sft === 'number') record.global_step = globalStep(record.phase, record.step, sft);
    }
    records.push(record);
  }
  const completeBytes = new TextEncoder().encode(text).length - new TextEncoder().encode(tail).length;
  return { header: header as MetricsHeader, records, completeBytes, tornTail };
}

/** One rollout as samples.jsonl stores it: enough to redraw its token strip. */
export interface SampleRecord {
  phase: Phase;
  step: number;
  rolloutId: number;
  groupId: number;
  seed: number;
  prompt: string;
  turns: Turn[];
  reward: number;
  done: boolean;
  /**
   * How the rollout ended, its segment within a compacted rollout and the trainable tokens after it,
   * and why it failed if it did (Sample's fields of the same names). Optional: files written
   * before they were recorded lack them.
   */
  status?: RolloutStatus;
  segmentIndex?: number;
  /** Present (true) on a non-final segment of a compacted rollout (Sample.compacted). */
  compacted?: true;
  tokensAfter?: number;
  failure?: RolloutFailure;
  /** A sub-agent's context (Sample.branch, Sample.parent): present on those only, a root's record has neither. */
  branch?: string;
  parent?: ParentLink;
  tokens: number[];
  /** Decoded text of each token, for the strip. */
  pieces?: string[];
  /** "p" prompt, "a" action, "o" observation, one character per token. */
  roles: string;
  /**
   * Each token's kind (Sample v2), one KIND_LETTERS character per token: who wrote it into this
   * context. Finer than `roles` (a summary trains like an action; user, fabricated and carried
   * context tokens do not), which stays for readers of older files.
   */
  kinds?: string;
  /** Optional per-token channels (advantage, value, ratio, kl, logprob, …), aligned with tokens. */
  channels?: Record<string, (number | string)[]>;
  /**
   * GenAC's critique of this rollout (Sample.meta.genac, algorithms/genac/genac.ts): the critic's
   * prompt, its reasoning, the digit it wrote or why it was malformed, the value the baseline took
   * and the prompt's Monte-Carlo value. Present on GenAC's training rollouts only.
   */
  critique?: { [key: string]: JsonValue };
}

/** The letter of each token kind in a SampleRecord's `kinds`. */
export const KIND_LETTERS: Readonly<Record<TokenKind, string>> = {
  prompt: 'p',
  action: 'a',
  observation: 'o',
  user: 'u',
  fabricated: 'f',
  summary: 's',
  context: 'c',
};

export function sampleRecord(
  sample: Sample,
  where: { phase: Phase; step: number },
  extra: { pieces?: string[]; channels?: Record<string, ArrayLike<number>> } = {},
): SampleRecord {
  const roles = sample.tokens.map((_, t) => (sample.actionMask[t] ? 'a' : sample.observationMask[t] ? 'o' : 'p')).join('');
  const record: SampleRecord = {
    phase: where.phase,
    step: where.step,
    rolloutId: sample.rolloutId,
    groupId: sample.groupId,
    seed: sample.seed,
    prompt: sample.prompt,
    turns: sample.turns,
    reward: sample.reward,
    done: sample.done,
    status: sample.status,
    segmentIndex: sample.segmentIndex,
    ...(sample.compacted ? { compacted: true as const } : {}),
    tokensAfter: sample.tokensAfter,
    ...(sample.failure ? { failure: { ...sample.failure } } : {}),
    ...(sample.parent && sample.branch ? { branch: sample.branch, parent: { ...sample.parent } } : {}),
    tokens: sample.tokens,
    roles,
    kinds: Array.from(sample.tokenKinds, (code) => KIND_LETTERS[TOKEN_KINDS[code]]).join(''),
  };
  if (extra.pieces) record.pieces = extra.pieces;
  const critique = sample.meta.genac;
  if (critique && typeof critique === 'object' && !Array.isArray(critique)) record.critique = { ...critique };
  if (extra.channels) {
    record.channels = {};
    for (const [name, values] of Object.entries(extra.channels)) {
      if (values.length !== sample.tokens.length) throw new RangeError(`channel "${name}" has ${values.length} values for ${sample.tokens.length} tokens`);
      record.channels[name] = Array.from(values, encodeNumber);
    }
  }
  return record;
}

export function formatSampleLine(record: SampleRecord): string {
  return `${JSON.stringify(record)}\n`;
}
