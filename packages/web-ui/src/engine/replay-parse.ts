// Reading a run written by `horizon train`: metrics.jsonl through core's own parser (one format,
// one reader), samples.jsonl line by line against core's SampleRecord. A damaged line is an error
// naming the file and line; a torn last line (a crash mid-append) is dropped and reported, as
// core's metrics reader does.

import { InputError, type MetricsLog, PHASES, parseMetricsLog, type SampleRecord } from '@horizon/core';
import type { ReplaySample } from './api.ts';

export interface SamplesLog {
  samples: ReplaySample[];
  tornTail: boolean;
}

const ROLES = /^[pao]*$/;

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
export function parseSamplesLog(text: string, fileName = 'samples.jsonl'): SamplesLog {
  const lines = text.split('\n');
  const tail = lines.pop() ?? '';
  const samples: ReplaySample[] = [];
  const bad = (n: number, why: string) => new InputError('run', `${fileName} line ${n} ${why}; open an undamaged samples.jsonl or only the metrics.jsonl.`);
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    let json: Record<string, unknown>;
    try {
      json = JSON.parse(line);
    } catch {
      throw bad(i + 1, 'is not valid JSON');
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) throw bad(i + 1, 'is not a JSON object');
    const problem = sampleProblem(json);
    if (problem) throw bad(i + 1, problem);
    const record = json as unknown as SampleRecord;
    const channels: Record<string, number[]> = {};
    for (const [name, values] of Object.entries(record.channels ?? {})) channels[name] = values.map(decodeNumber);
    samples.push({ ...record, channels });
  }
  return { samples, tornTail: tail.trim().length > 0 };
}

export interface ParsedReplay {
  metrics: MetricsLog;
  samples: ReplaySample[];
  remarks: string[];
}

/** Which of the given texts is which: by name, else by content (a metrics log starts with its recipe header). */
export function classifyReplayTexts(files: { name: string; text: string }[]): {
  metrics?: { name: string; text: string };
  samples?: { name: string; text: string };
} {
  const out: { metrics?: { name: string; text: string }; samples?: { name: string; text: string } } = {};
  for (const f of files) {
    const base = f.name.split('/').pop() ?? f.name;
    const looksLikeMetrics = base.startsWith('metrics') || f.text.trimStart().startsWith('{"kind":"recipe"');
    const key = looksLikeMetrics ? 'metrics' : 'samples';
    if (out[key]) throw new InputError('run', `two ${key} files were given (${out[key].name} and ${f.name}); open one run at a time.`);
    out[key] = f;
  }
  return out;
}

/** Parses a run's files: metrics.jsonl is required, samples.jsonl optional. */
export function parseReplay(files: { name: string; text: string }[]): ParsedReplay {
  const { metrics, samples } = classifyReplayTexts(files);
  if (!metrics)
    throw new InputError(
      'run',
      `no metrics.jsonl among ${files.map((f) => f.name).join(', ') || 'the files'}; a run directory from \`horizon train\` has one.`,
    );
  const log = parseMetricsLog(metrics.text, metrics.name);
  const remarks: string[] = [];
  if (log.tornTail) remarks.push(`${metrics.name}: the last line was cut off (the run stopped while writing it) and was skipped.`);
  let parsedSamples: ReplaySample[] = [];
  if (samples) {
    const s = parseSamplesLog(samples.text, samples.name);
    parsedSamples = s.samples;
    if (s.tornTail) remarks.push(`${samples.name}: the last line was cut off and was skipped.`);
  } else {
    remarks.push('No samples.jsonl was opened, so the completions table is empty.');
  }
  return { metrics: log, samples: parsedSamples, remarks };
}
