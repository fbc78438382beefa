// Kill a tiny `horizon train` at random moments (kill -9 of its whole process group) and with
// SIGINT / SIGTERM in SFT and in RL, resume each until it finishes, and check that every run ends
// exactly as an uninterrupted one: the final checkpoint's tensor files (SHA-256), samples.jsonl, and
// metrics.jsonl minus wall-clock fields (time_s, perf/*), with no row lost or duplicated (docs/reliability.md §6).
//
//   pnpm tsx tools/reliability/kill-resume.ts [--kills 10] [--seed 1] [--no-signals] [--keep DIR]
//
// Prints one row per trial and exits 1 if any differs. tests/cli/train-lifecycle.test.ts runs a small
// version of the same (two kills, two signals).

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const main = join(root, 'packages', 'node-runner', 'src', 'main.ts');
// `node --import tsx`, not the tsx CLI: the CLI relays a signal to its child and SIGKILLs it when the
// child, busy in a GPU step, has not acknowledged within ~60 ms (tsx 4.23, relaySignalToChild).
export const NODE_TSX = [process.execPath, '--import', 'tsx'] as const;

/** The recipe of every trial: the tiny one cut to ~20 s, with a checkpoint every 2 iterations. */
export const TRIAL_SETS = ['sft.steps=40', 'rl.iterations=6', 'rl.promptsPerIteration=16', 'eval.interval=2', 'eval.heldOutSize=20', 'checkpoint.interval=2'];

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Starts `horizon train` in its own process group (so kill -9 reaches tsx and node alike). */
export function startTrain(args: string[]): { child: ChildProcess; done: Promise<Exit> } {
  const [node, ...flags] = NODE_TSX;
  const child = spawn(node, [...flags, main, 'train', '--quiet', ...args], { cwd: root, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => {
    stdout += d;
  });
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const done = new Promise<Exit>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { child, done };
}

export const newRun = (dir: string, sets = TRIAL_SETS) => ['--recipe', 'tiny', ...sets.flatMap((s) => ['--set', s]), '--out', dir];

/** Sends `signal` to the whole group, as a terminal's Ctrl-C does. */
export function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-(child.pid as number), signal);
  } catch {
    // Already gone.
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Metrics rows of a run so far (complete lines only). */
export function metricsRows(dir: string): Record<string, unknown>[] {
  const path = join(dir, 'metrics.jsonl');
  if (!existsSync(path)) return [];
  const lines = readFileSync(path, 'utf8').split('\n').slice(1, -1);
  const rows: Record<string, unknown>[] = [];
  for (const l of lines) {
    try {
      rows.push(JSON.parse(l));
    } catch {
      break;
    }
  }
  return rows;
}

/** Waits until a row satisfies `ready` (polling metrics.jsonl), or the process ends. */
export async function waitForRow(dir: string, ready: (row: Record<string, unknown>) => boolean, done: Promise<Exit>): Promise<boolean> {
  let ended = false;
  void done.then(() => {
    ended = true;
  });
  while (!ended) {
    if (metricsRows(dir).some(ready)) return true;
    await sleep(100);
  }
  return false;
}

/**
 * Resumes until the run exits 0 (at most `limit` times); returns every exit. A run killed before it
 * created its directory (while loading the CLI or the device) is started again with the same command.
 */
export async function resumeToEnd(dir: string, limit = 3): Promise<Exit[]> {
  const exits: Exit[] = [];
  for (let i = 0; i < limit; i++) {
    const exit = await startTrain(existsSync(join(dir, 'metrics.jsonl')) ? ['--resume', dir] : newRun(dir)).done;
    exits.push(exit);
    if (exit.code === 0) break;
  }
  return exits;
}

/** What must be identical between two runs: the final checkpoint's files, samples, and metrics minus wall-clock fields. */
export function fingerprint(dir: string): { checkpoint: Record<string, string>; metrics: string[]; samples: string } {
  const steps = readdirSync(join(dir, 'checkpoints'))
    .filter((n) => /^step-\d+$/.test(n))
    .sort((a, b) => Number(a.slice(5)) - Number(b.slice(5)));
  const last = steps.at(-1) as string;
  const state = JSON.parse(readFileSync(join(dir, 'checkpoints', last, 'state.json'), 'utf8'));
  const checkpoint: Record<string, string> = { step: last };
  for (const [file, { sha256 }] of Object.entries(state.files as Record<string, { sha256: string }>)) checkpoint[file] = sha256;
  const metrics = metricsRows(dir).map((r) => {
    const { time_s: _, ...rest } = r as { time_s: number; metrics: Record<string, unknown> };
    const metrics = Object.fromEntries(Object.entries(rest.metrics).filter(([k]) => !k.startsWith('perf/')));
    return JSON.stringify({ ...rest, metrics });
  });
  return { checkpoint, metrics, samples: readFileSync(join(dir, 'samples.jsonl'), 'utf8') };
}

/** "" when equal, else what differs first. */
export function difference(a: ReturnType<typeof fingerprint>, b: ReturnType<typeof fingerprint>): string {
  for (const k of new Set([...Object.keys(a.checkpoint), ...Object.keys(b.checkpoint)]))
    if (a.checkpoint[k] !== b.checkpoint[k]) return `checkpoint ${k}: ${a.checkpoint[k]} vs ${b.checkpoint[k]}`;
  if (a.metrics.length !== b.metrics.length) return `metrics rows: ${a.metrics.length} vs ${b.metrics.length}`;
  const i = a.metrics.findIndex((row, j) => row !== b.metrics[j]);
  if (i >= 0) return `metrics row ${i + 1}: ${a.metrics[i].slice(0, 120)} vs ${b.metrics[i].slice(0, 120)}`;
  if (a.samples !== b.samples) return 'samples.jsonl differs';
  return '';
}

/** Where a run's log stood: "sft 23", "rl 4", "eval 2". */
export function lastRow(dir: string): string {
  const r = metricsRows(dir).at(-1);
  return r ? `${r.phase} ${r.step}` : 'none';
}

export interface TrialResult {
  trial: string;
  /** Where the log stood when it was interrupted. */
  at: string;
  /** Exit codes: the interrupted process, then each resume. */
  exits: string;
  /** Rows logged after the newest checkpoint when the run was interrupted: cut on resume and logged again. */
  dropped: number;
  same: boolean;
  why: string;
}

/**
 * kill -9 once the log has `rows` rows and `extraMs` more have passed (rows = 0: `extraMs` after the
 * start, while the CLI and the device load), then resume to the end and compare with `reference`.
 * Keying the moment on progress, not on seconds, spreads the kills over the run however loaded the machine is.
 */
export async function killTrial(dir: string, rows: number, extraMs: number, reference: ReturnType<typeof fingerprint>): Promise<TrialResult> {
  const { child, done } = startTrain(newRun(dir));
  const started = performance.now();
  if (rows > 0) await waitForRow(dir, () => metricsRows(dir).length >= rows, done);
  await Promise.race([done, sleep(extraMs)]);
  const seconds = (performance.now() - started) / 1000;
  signalGroup(child, 'SIGKILL');
  const first = await done;
  return finish(`kill -9 at ${seconds.toFixed(1)} s`, dir, first, reference);
}

/** `signal` (once, or twice in a row) once a row matching `when` is logged, then resume and compare. */
export async function signalTrial(
  dir: string,
  signal: 'SIGINT' | 'SIGTERM',
  phase: 'sft' | 'rl',
  reference: ReturnType<typeof fingerprint>,
  twice = false,
): Promise<TrialResult> {
  const { child, done } = startTrain(newRun(dir));
  const step = phase === 'sft' ? 15 : 3;
  await waitForRow(dir, (r) => r.phase === phase && (r.step as number) >= step, done);
  signalGroup(child, signal);
  if (twice) {
    await sleep(500);
    signalGroup(child, signal);
  }
  const first = await done;
  return finish(`${signal}${twice ? ' ×2' : ''} in ${phase.toUpperCase()}`, dir, first, reference);
}

async function finish(trial: string, dir: string, first: Exit, reference: ReturnType<typeof fingerprint>): Promise<TrialResult> {
  const at = lastRow(dir);
  const dropped = first.code === 0 ? 0 : metricsRows(dir).length - keptRecords(dir);
  const exits = first.code === 0 ? [] : await resumeToEnd(dir);
  const codes = [first.code ?? first.signal, ...exits.map((e) => e.code)].join(' → ');
  const last = exits.at(-1) ?? first;
  if (last.code !== 0) return { trial, at, exits: codes, dropped, same: false, why: last.stderr.trim().split('\n').at(-1) ?? '' };
  const why = difference(fingerprint(dir), reference);
  return { trial, at, exits: codes, dropped, same: why === '', why };
}

/** Metrics records the newest committed checkpoint saw (0 without one): what a resume keeps. */
export function keptRecords(dir: string): number {
  const steps = existsSync(join(dir, 'checkpoints'))
    ? readdirSync(join(dir, 'checkpoints')).filter((n) => /^step-\d+$/.test(n) && existsSync(join(dir, 'checkpoints', n, 'COMMIT')))
    : [];
  const last = steps.sort((a, b) => Number(a.slice(5)) - Number(b.slice(5))).at(-1);
  if (!last) return 0;
  return JSON.parse(readFileSync(join(dir, 'checkpoints', last, 'state.json'), 'utf8')).extra.metricsRecords;
}

/**
 * A kill moment uniform over the reference run's time (RL iterations and checkpoint writes take
 * most of it, SFT steps little), with one in eleven before the first row (the CLI and the device
 * loading): the row count to wait for, then a random part of the gap to the next row.
 */
export function killMoment(reference: readonly { time_s: number }[], rand: () => number): { rows: number; extraMs: number } {
  const end = (reference.at(-1) as { time_s: number }).time_s;
  const t = (rand() * 1.1 - 0.1) * end;
  if (t < 0) return { rows: 0, extraMs: 500 + rand() * 2500 };
  const next = reference.findIndex((r) => r.time_s > t);
  const rows = next < 0 ? reference.length : next;
  const gap = next <= 0 ? 0.4 : reference[next].time_s - reference[next - 1].time_s;
  return { rows, extraMs: rand() * Math.min(gap, 3) * 1000 };
}

/** A small deterministic generator for the kill moments (mulberry32). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function cli(): Promise<number> {
  const { values } = parseArgs({
    options: { kills: { type: 'string', default: '10' }, seed: { type: 'string', default: '1' }, 'no-signals': { type: 'boolean' }, keep: { type: 'string' } },
  });
  const scratch = values.keep ?? mkdtempSync(join(tmpdir(), 'horizon-kill-resume-'));
  const t0 = performance.now();
  const reference = await startTrain(newRun(join(scratch, 'reference'))).done;
  const referenceSeconds = (performance.now() - t0) / 1000;
  if (reference.code !== 0) throw new Error(`the uninterrupted run failed: ${reference.stderr}`);
  const ref = fingerprint(join(scratch, 'reference'));
  const referenceRows = metricsRows(join(scratch, 'reference')) as { time_s: number }[];
  console.log(`uninterrupted run: ${referenceSeconds.toFixed(1)} s, ${ref.metrics.length} metrics rows, final ${ref.checkpoint.step}`);
  const rand = random(Number(values.seed));
  const results: TrialResult[] = [];
  for (let i = 0; i < Number(values.kills); i++) {
    const { rows, extraMs } = killMoment(referenceRows, rand);
    results.push(await killTrial(join(scratch, `kill-${i + 1}`), rows, extraMs, ref));
    print(results.at(-1) as TrialResult, i === 0);
  }
  if (!values['no-signals']) {
    for (const [signal, phase, twice] of [
      ['SIGINT', 'sft', false],
      ['SIGTERM', 'sft', false],
      ['SIGINT', 'rl', false],
      ['SIGTERM', 'rl', false],
      ['SIGINT', 'rl', true],
    ] as const) {
      results.push(await signalTrial(join(scratch, `${signal}-${phase}${twice ? '-twice' : ''}`), signal, phase, ref, twice));
      print(results.at(-1) as TrialResult, results.length === 1);
    }
  }
  const bad = results.filter((r) => !r.same);
  console.log(`${results.length - bad.length}/${results.length} trials identical to the uninterrupted run`);
  if (!values.keep) rmSync(scratch, { recursive: true, force: true });
  return bad.length === 0 ? 0 : 1;
}

function print(r: TrialResult, header: boolean): void {
  if (header) console.log(`${'trial'.padEnd(22)} ${'log at'.padEnd(9)} ${'redone'.padEnd(7)} ${'exits'.padEnd(16)} identical`);
  console.log(`${r.trial.padEnd(22)} ${r.at.padEnd(9)} ${String(r.dropped).padEnd(7)} ${r.exits.padEnd(16)} ${r.same ? 'yes' : `NO: ${r.why}`}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exit(await cli());
