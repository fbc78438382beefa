// `horizon sample --samples PATH`: the rollouts a run logged (samples.jsonl, core's SampleRecord), read
// without a GPU so a finished or running run's traces can be printed. The file is read capped
// (read-file.ts); a last line without its newline is a run still appending and is left out; any
// other damaged line is one sentence naming it, since printing half a rollout would mislead.

import { statSync } from 'node:fs';
import { join } from 'node:path';
import { echo, InputError, PHASES, type SampleRecord } from '@horizon/core';
import { FileRefused, readCappedFile } from './read-file.ts';

/** A samples.jsonl bigger than this is refused rather than read into memory. */
export const MAX_SAMPLES_LOG_BYTES = 1024 * 1024 * 1024;

const isCount = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x) && x >= 0;

/** Why `json` cannot be printed as a rollout, or undefined when it can. */
function recordProblem(json: Record<string, unknown>): string | undefined {
  if (!PHASES.includes(json.phase as SampleRecord['phase'])) return `has phase ${JSON.stringify(json.phase)}`;
  for (const key of ['step', 'rolloutId', 'groupId', 'seed'] as const)
    if (!isCount(json[key])) return json[key] === undefined ? `has no ${key}` : `has ${key} ${JSON.stringify(json[key])}`;
  if (!Array.isArray(json.tokens) || !json.tokens.every(isCount)) return 'has no tokens array of ids';
  const n = json.tokens.length;
  if (typeof json.roles !== 'string' || !/^[pao]*$/.test(json.roles) || json.roles.length !== n) return `has roles that are not one of p/a/o per token (${n})`;
  if (json.kinds !== undefined && (typeof json.kinds !== 'string' || !/^[paoufsc]*$/.test(json.kinds) || json.kinds.length !== n))
    return `has kinds that are not one of p/a/o/u/f/s/c per token (${n})`;
  if (json.pieces !== undefined && (!Array.isArray(json.pieces) || json.pieces.length !== n || !json.pieces.every((p) => typeof p === 'string')))
    return `has pieces that are not ${n} strings`;
  if (!Array.isArray(json.turns)) return 'has no turns';
  if (typeof json.reward !== 'number' || typeof json.done !== 'boolean') return 'has no reward or done';
  return undefined;
}

/** The records of a run directory's samples.jsonl, or of that file named directly. */
export async function readSamplesLog(path: string): Promise<{ file: string; records: SampleRecord[] }> {
  let file = path;
  try {
    if (statSync(path).isDirectory()) file = join(path, 'samples.jsonl');
  } catch {
    // A path that does not exist is reported below, by the read.
  }
  let bytes: Uint8Array;
  try {
    ({ bytes } = await readCappedFile(file, { maxBytes: MAX_SAMPLES_LOG_BYTES }));
  } catch (error) {
    if (!(error instanceof FileRefused)) throw error;
    const why = {
      ENOENT: 'does not exist; give a run directory from `horizon train` or its samples.jsonl',
      EISDIR: 'is a directory, not a samples.jsonl',
      NOT_REGULAR: 'is not a regular file',
      TOO_LARGE: `is larger than ${MAX_SAMPLES_LOG_BYTES / 2 ** 30} GiB`,
      CHANGED: 'changed while it was read; try again',
    }[error.code];
    throw new InputError('run', `${echo(file)} ${why}.`);
  }
  const lines = new TextDecoder().decode(bytes).split('\n');
  lines.pop(); // "" after the last newline, or a line still being appended
  const records: SampleRecord[] = [];
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const bad = (why: string) => new InputError('run', `${echo(file)} line ${i + 1} ${why}; it is not a rollout samples.jsonl can hold.`);
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      throw bad('is not valid JSON');
    }
    if (typeof json !== 'object' || json === null || Array.isArray(json)) throw bad('is not a JSON object');
    const problem = recordProblem(json as Record<string, unknown>);
    if (problem) throw bad(problem);
    records.push(json as SampleRecord);
  }
  return { file, records };
}
