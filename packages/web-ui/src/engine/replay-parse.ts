// Reading a run written by `horizon train`: metrics.jsonl through core's own parser (one format,
// one reader), samples.jsonl line by line against core's SampleRecord. A torn last line (a crash
// mid-append) is dropped and reported, as core's metrics reader does. A damaged line in the middle
// (line 301 of 400 used to reject the whole run) is skipped and named in a remark, and
// the rest of the run opens; only a damaged recipe header, or a file that is mostly damage, is
// refused. Which file is which is read from the content first, then the name, so swapped names
// still open, with a remark.

import { InputError, isBranch, type MetricsLog, PHASES, parseMetricsLog, ROLLOUT_STATUSES, ROOT_BRANCH, type SampleRecord } from '@horizon/core';
import type { ReplaySample } from './api.ts';

export interface SamplesLog {
  samples: ReplaySample[];
  tornTail: boolean;
  /** Damaged lines skipped (with `skipDamaged`), as "line N why". */
  skipped: string[];
}

/** More damaged lines than this (or than half the file) and the file is refused, not half-read. */
export const MAX_SKIPPED_LINES = 20;

const ROLES = /^[pao]*$/;
/** KIND_LETTERS of core's samples.jsonl records (optional: files written before token kinds lack it). */
const KINDS = /^[paoufsc]*$/;

const decodeNumber = (x: unknown): number =>
  typeof x === 'number' ? x : x === 'NaN' ? Number.NaN : x === 'Infinity' ? Infinity : x === '-Infinity' ? -Infinity : Number.NaN;

function isCount(x: unknown): x is number {
  return typeof x === 'number' && Number.isInteger(x) && x >= 0;
}

/** Why `json` is not a SampleRecord, or undefined when it is one. */
function sampleProblem(json: Record<string, unknown>): string | undefined {
  if (!PHASES.includes(json.phase as SampleRecord['phase'])) return `has phase ${JSON.stringify(json.phase)}, expected one of ${PHASES.join(', ')}`;
  for (const key of ['step', 'rolloutId', 'groupId'] as const)
    if (!isCount(json[key])) return `has ${key} ${JSON.stringify(json[key])}, expected a non-negative integer`;
  if (typeof json.prompt !== 'string') return 'has no prompt text';
  if (typeof json.reward !== 'number') return `has reward ${JSON.stringify(json.reward)}, expected a number`;
  if (!Array.isArray(json.tokens) || !json.tokens.every(isCount)) return 'has no tokens array of ids';
  const n = json.tokens.length;
  if (typeof json.roles !== 'string' || json.roles.length !== n || !ROLES.test(json.roles))
    return `has roles ${JSON.stringify(json.roles)}, expected one of p/a/o per token (${n})`;
  if (json.kinds !== undefined && (typeof json.kinds !== 'string' || json.kinds.length !== n || !KINDS.test(json.kinds)))
    return `has kinds ${JSON.stringify(json.kinds)}, expected one of p/a/o/u/f/s/c per token (${n})`;
  if (json.status !== undefined && !ROLLOUT_STATUSES.includes(json.status as (typeof ROLLOUT_STATUSES)[number]))
    return `has status ${JSON.stringify(json.status)}, expected one of ${ROLLOUT_STATUSES.join(', ')}`;
  for (const key of ['segmentIndex', 'tokensAfter'] as const)
    if (json[key] !== undefined && !isCount(json[key])) return `has ${key} ${JSON.stringify(json[key])}, expected a non-negative integer`;
  if (json.compacted !== undefined && json.compacted !== true) return `has compacted ${JSON.stringify(json.compacted)}, expected true or nothing`;
  if ((json.branch === undefined) !== (json.parent === undefined))
    return 'has a branch without a parent or a parent without a branch (a sub-agent context has both)';
  if (json.branch !== undefined) {
    if (!isBranch(json.branch) || json.branch === ROOT_BRANCH) return `has branch ${JSON.stringify(json.branch)}, expected a sub-agent's like "0.1"`;
    const p = json.parent as Record<string, unknown> | null;
    if (typeof p !== 'object' || p === null || !isBranch(p.branch) || !isCount(p.segmentIndex) || !isCount(p.turn) || p.turn < 1)
      return 'has a parent that is not {branch, segmentIndex, turn ≥ 1}';
    if (!json.branch.startsWith(`${p.branch}.`) || json.branch.split('.').length !== p.branch.split('.').length + 1)
      return `has branch ${json.branch} whose parent is given as ${p.branch}`;
  }
  if (json.failure !== undefined) {
    const f = json.failure as Record<string, unknown> | null;
    if (typeof f !== 'object' || f === null || typeof f.message !== 'string' || !['environment', 'verifier', 'sampler'].includes(f.source as string))
      return 'has a failure that is not {source: environment | verifier | sampler, message}';
  }
  if (json.pieces !== undefined && (!Array.isArray(json.pieces) || json.pieces.length !== n || !json.pieces.every((s) => typeof s === 'string')))
    return `has pieces that are not ${n} strings`;
  if (json.channels !== undefined) {
    if (typeof json.channels !== 'object' || json.channels === null) return 'has channels that are not an object';
    for (const [name, values] of Object.entries(json.channels)) {
      if (!Array.isArray(values) || values.length !== n)
        return `has channel "${name}" with ${Array.isArray(values) ? values.length : 'no'} values for ${n} tokens`;
    }
  }
  return undefined;
}

/** Parses samples.jsonl text; throws an InputError naming the file and line of a damaged record. */
export function parseSamplesLog(text: string, fileName = 'samples.jsonl', options: { skipDamaged?: boolean } = {}): SamplesLog {
  const lines = text.split('\n');
  const tail = lines.pop() ?? '';
  const samples: ReplaySample[] = [];
  const skipped: string[] = [];
  const bad = (n: number, why: string) => new InputError('run', `${fileName} line ${n} ${why}; open an undamaged samples.jsonl or only the metrics.jsonl.`);
  const damaged = (n: number, why: string): void => {
    if (!options.skipDamaged || skipped.length >= MAX_SKIPPED_LINES || skipped.length + 1 > lines.length / 2) throw bad(n, why);
    skipped.push(`line ${n} ${why}`);
  };
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(line);
    } catch {
      damaged(i + 1, 'is not valid JSON');
      continue;
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) {
      damaged(i + 1, 'is not a JSON object');
      continue;
    }
    const problem = sampleProblem(json);
    if (problem) {
      damaged(i + 1, problem);
      continue;
    }
    const record = json as unknown as SampleRecord;
    const channels: Record<string, number[]> = {};
    for (const [name, values] of Object.entries(record.channels ?? {})) channels[name] = values.map(decodeNumber);
    samples.push({ ...record, channels });
  }
  return { samples, tornTail: tail.trim().length > 0, skipped };
}

export interface ParsedReplay {
  metrics: MetricsLog;
  samples: ReplaySample[];
  remarks: string[];
}

/** What a file holds, read from its first line: a metrics log starts with its recipe header, a samples log with a rollout. */
export function contentKind(text: string): 'metrics' | 'samples' | undefined {
  const first = text.slice(0, Math.min(text.length, 200_000)).split('\n', 1)[0] ?? '';
  try {
    const json = JSON.parse(first) as Record<string, unknown>;
    if (json?.kind === 'recipe' || json?.kind === 'metrics') return 'metrics';
    if (typeof json?.rolloutId === 'number' || Array.isArray(json?.tokens)) return 'samples';
  } catch {
    if (first.trimStart().startsWith('{"kind":"recipe"')) return 'metrics';
  }
  return undefined;
}

const nameKind = (name: string): 'metrics' | 'samples' | undefined => {
  const base = name.split('/').pop() ?? name;
  return base.startsWith('metrics') ? 'metrics' : base.startsWith('samples') ? 'samples' : undefined;
};

/** Which of the given texts is which: by content, else by name; `remarks` notes a name that says otherwise. */
export function classifyReplayTexts(
  files: { name: string; text: string }[],
  remarks: string[] = [],
): {
  metrics?: { name: string; text: string };
  samples?: { name: string; text: string };
} {
  const out: { metrics?: { name: string; text: string }; samples?: { name: string; text: string } } = {};
  for (const f of files) {
    const byContent = contentKind(f.text);
    const byName = nameKind(f.name);
    const key = byContent ?? byName ?? 'samples';
    if (byContent && byName && byContent !== byName)
      remarks.push(
        `${f.name} holds ${byContent === 'metrics' ? 'a metrics log (it starts with the recipe header)' : 'rollouts (samples.jsonl records)'}, so it was read as the ${byContent} file.`,
      );
    if (out[key]) throw new InputError('run', `two ${key} files were given (${out[key].name} and ${f.name}); open one run at a time.`);
    out[key] = f;
  }
  return out;
}

/**
 * Core's metrics reader, skipping damaged lines after the header: each failure names its line,
 * which is dropped and the rest parsed again (at most MAX_SKIPPED_LINES, and never half the file).
 */
export function parseMetricsSkippingDamage(text: string, fileName: string): { log: MetricsLog; skipped: string[] } {
  const lines = text.split('\n');
  const tail = lines.pop() ?? '';
  let kept = lines.map((line, i) => ({ line, n: i + 1 }));
  const skipped: string[] = [];
  for (;;) {
    try {
      return { log: parseMetricsLog([...kept.map((k) => k.line), tail].join('\n'), fileName), skipped };
    } catch (error) {
      const at = /line (\d+) (.*?);/.exec((error as Error).message);
      const k = at ? Number(at[1]) : 0;
      if (!at || k <= 1 || k > kept.length) throw error;
      skipped.push(`line ${kept[k - 1].n} ${at[2]}`);
      if (skipped.length > MAX_SKIPPED_LINES || skipped.length > lines.length / 2)
        throw new InputError(
          'run',
          `${fileName} has too many damaged lines to open (${skipped.slice(0, 3).join('; ')}${skipped.length > 3 ? '; …' : ''}); the run log is damaged, so restore the file or open another run.`,
        );
      kept = kept.filter((_, i) => i !== k - 1);
    }
  }
}

const skippedRemark = (name: string, skipped: string[], what: string): string =>
  `${name}: ${skipped.length} damaged line${skipped.length === 1 ? ' was' : 's were'} skipped (${skipped.slice(0, 3).join('; ')}${skipped.length > 3 ? '; …' : ''}); the other ${what} are shown.`;

/** Parses a run's files: metrics.jsonl is required, samples.jsonl optional. */
export function parseReplay(files: { name: string; text: string }[]): ParsedReplay {
  const remarks: string[] = [];
  const { metrics, samples } = classifyReplayTexts(files, remarks);
  if (!metrics)
    throw new InputError(
      'run',
      `no metrics.jsonl among ${files.map((f) => f.name).join(', ') || 'the files'}; a run directory from \`horizon train\` has one.`,
    );
  const { log, skipped } = parseMetricsSkippingDamage(metrics.text, metrics.name);
  if (skipped.length > 0) remarks.push(skippedRemark(metrics.name, skipped, 'rows'));
  if (log.tornTail) remarks.push(`${metrics.name}: the last line was cut off (the run stopped while writing it) and was skipped.`);
  let parsedSamples: ReplaySample[] = [];
  if (samples) {
    const s = parseSamplesLog(samples.text, samples.name, { skipDamaged: true });
    parsedSamples = s.samples;
    if (s.skipped.length > 0) remarks.push(skippedRemark(samples.name, s.skipped, 'rollouts'));
    if (s.tornTail) remarks.push(`${samples.name}: the last line was cut off and was skipped.`);
  } else {
    remarks.push('No samples.jsonl was opened, so the completions table is empty.');
  }
  return { metrics: log, samples: parsedSamples, remarks };
}
