// The code runner's contract: JavaScript an agent wrote (a function body it was asked to implement, a
// script) runs against test inputs under limits, and comes back as a status, per-case values and a
// capped console capture. Implementations: `QuickJsCodeRunner` (in process, any host that runs WASM)
// and node-runner's `WorkerCodeRunner` (the same runner inside a worker thread, under a wall-clock
// timer that can terminate it). What each limit really bounds is in docs/sandbox-code-runner.md.
//
// Every limit except the worker's safety timer is counted inside the VM, never read from a clock,
// so a rollout replays to the same status and values on any machine.

import type { JsonValue } from '../../envs/environment.ts';

/** What to run after `source` has been evaluated as a global script. */
export type CodeEntry =
  /** Call the global binding `name` once per case with the case's arguments (function declarations, `const f = …` and `var` all count). */
  | { kind: 'call'; name: string; cases: readonly (readonly JsonValue[])[] }
  /** The script's completion value is the single outcome (`1 + 2` evaluates to 3). */
  | { kind: 'evaluate' };

export interface CodeLimits {
  /**
   * Interrupt-handler polls the run may use, summed over the script and every case. QuickJS polls
   * on a countdown of interpreter ticks (function calls and backward jumps), so this counts work,
   * not time: a 1e6-iteration empty loop took 201 polls in quickjs-emscripten 0.32.0, one calling
   * an empty function each iteration 300. A single
   * builtin call does not poll; only the worker's timer stops one.
   */
  steps: number;
  /**
   * Bytes of the WASM linear memory the run may grow to (QuickJS's own heap, strings and buffers).
   * The module starts at 16 MiB, so this must be more than that.
   */
  memoryBytes: number;
  /** Bytes of QuickJS stack (`JS_SetMaxStackSize`): deep JavaScript recursion becomes a catchable error past it. */
  stackBytes: number;
  /** UTF-8 bytes of console output kept, and the most a returned value's JSON may take. */
  outputBytes: number;
}

export interface CodeRequest {
  /** The agent's code, evaluated once as a global (non-module) script. */
  source: string;
  entry: CodeEntry;
  limits: CodeLimits;
  /** Seeds the VM's `Math.random`: the same seed gives the same sequence, another seed another. */
  seed: number;
}

/**
 * How the run ended. `ok`: the script and every case completed without throwing. `error`: the
 * script or a case threw (the VM is fine; later cases still ran). `step-limit` and `memory-limit`:
 * a limit stopped the run (later cases did not run). `timeout`: the worker's wall-clock timer
 * terminated it, the trainer's 'aborted'. `crashed`: the host side failed (a host stack overflow, a
 * WASM abort, a worker that died); the module was discarded.
 */
export type CodeStatus = 'ok' | 'error' | 'step-limit' | 'memory-limit' | 'timeout' | 'crashed';

export const CODE_STATUSES: readonly CodeStatus[] = ['ok', 'error', 'step-limit', 'memory-limit', 'timeout', 'crashed'];

/** One case's result: the returned value as JSON (NaN and Infinity become null, as in `JSON.stringify`), or why there is none. */
export type CaseOutcome = { ok: true; value: JsonValue } | { ok: false; error: string };

export interface CodeResult {
  status: CodeStatus;
  /** One per case that ran, in order (one for 'evaluate'); cases after a limit stopped the run are absent. */
  outcomes: CaseOutcome[];
  /** One sentence when status is not 'ok': the first error, or which limit stopped the run. */
  message?: string;
  /** What `console.log` (and `.info`, `.warn`, `.error`) printed, one line per call, cut at `limits.outputBytes`. */
  stdout: string;
  /** True when console output was cut at the limit. */
  stdoutTruncated: boolean;
  /** Interrupt polls used (see `CodeLimits.steps`); null when a worker was terminated before it could report. */
  steps: number | null;
  /** Size of the WASM linear memory when the run ended, in bytes (it never shrinks, so this is the peak); null as for `steps`. */
  heapBytes: number | null;
}

export interface CodeRunner {
  run(request: CodeRequest): Promise<CodeResult>;
}

/** Smallest `memoryBytes` accepted: the 16 MiB the QuickJS module starts with plus 1 MiB to work in. */
export const MIN_MEMORY_BYTES = 17 * 1024 * 1024;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Throws one sentence naming the field when a request cannot run; called by every runner before it starts. */
export function checkCodeRequest(request: CodeRequest): void {
  const { limits } = request;
  const positive: (keyof CodeLimits)[] = ['steps', 'stackBytes', 'outputBytes'];
  for (const key of positive) {
    if (!Number.isSafeInteger(limits[key]) || limits[key] <= 0) throw new RangeError(`limits.${key} must be a positive whole number, got ${limits[key]}.`);
  }
  if (!Number.isSafeInteger(limits.memoryBytes) || limits.memoryBytes < MIN_MEMORY_BYTES) {
    throw new RangeError(
      `limits.memoryBytes must be a whole number of at least ${MIN_MEMORY_BYTES} (the module's own 16 MiB plus room), got ${limits.memoryBytes}.`,
    );
  }
  if (!Number.isSafeInteger(request.seed)) throw new RangeError(`seed must be a safe integer, got ${request.seed}.`);
  if (request.entry.kind === 'call' && !IDENTIFIER.test(request.entry.name)) {
    throw new RangeError(`entry.name must be a plain JavaScript identifier, got ${JSON.stringify(request.entry.name.slice(0, 80))}.`);
  }
}
