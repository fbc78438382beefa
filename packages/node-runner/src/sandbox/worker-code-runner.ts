// The code runner for Node with an outer kill: core's QuickJsCodeRunner inside a worker thread,
// under a wall-clock safety timer that terminates the thread. The in-VM limits (steps, memory,
// stack, output) are counted and deterministic; this timer is the one limit that reads a clock,
// and it exists because some code never reaches a poll: a single builtin call such as
// `Array.prototype.indexOf.call({ length: 2 ** 32 - 1 }, 1)` polled nothing and had not returned
// after 290 s in quickjs-emscripten 0.32.0. A terminated run is status 'timeout' (the trainer's
// 'aborted'), and the next run starts a fresh thread.
//
// The thread is also what makes deep native recursion safe: with `resourceLimits.stackSizeMb: 16`
// deep JSON.parse, JSON.stringify and parser nesting became QuickJS stack-overflow errors, where on
// the main thread they overflow the host's stack ('crashed'). `maxOldGenerationSizeMb` bounds the
// thread's JavaScript heap; the WASM memory is outside it and bounded by the runner's own wall.
// Runs go one at a time through the one thread, in the order they were asked for.

import { Worker } from 'node:worker_threads';
import { type CodeRequest, type CodeResult, type CodeRunner, type CodeStatus, checkCodeRequest, type QuickJsLiveCounts } from '@horizon/core';
import type { FromWorker } from './worker-protocol.ts';

export interface WorkerCodeRunnerOptions {
  /** Wall-clock milliseconds a run may take, from the request being posted to the result, before the thread is terminated. */
  safetyTimeoutMs: number;
  /** Wall-clock milliseconds a new thread may take to load tsx and QuickJS before the run fails as a host problem. */
  startupTimeoutMs: number;
  /** Host stack of the thread, in MiB (worker `resourceLimits.stackSizeMb`). */
  stackSizeMb: number;
  /** JavaScript heap of the thread, in MiB (worker `resourceLimits.maxOldGenerationSizeMb`). */
  maxOldGenerationSizeMb: number;
}

export const WORKER_CODE_RUNNER_DEFAULTS: WorkerCodeRunnerOptions = {
  safetyTimeoutMs: 10_000,
  startupTimeoutMs: 60_000,
  stackSizeMb: 16,
  maxOldGenerationSizeMb: 256,
};

const WORKER_ENTRY = new URL('./worker-entry.mjs', import.meta.url);

interface Started {
  thread: Worker;
  /** Settles when the thread has loaded QuickJS and said so. */
  ready: Promise<void>;
}

/** A result for a run whose thread died or was killed: nothing the VM did came back. */
function lostRun(status: CodeStatus, message: string): CodeResult {
  return { status, outcomes: [], message, stdout: '', stdoutTruncated: false, steps: null, heapBytes: null };
}

export class WorkerCodeRunner implements CodeRunner {
  readonly #options: WorkerCodeRunnerOptions;
  #worker: Started | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #nextId = 0;
  #threadsStarted = 0;
  #live: QuickJsLiveCounts | undefined;

  constructor(options: Partial<WorkerCodeRunnerOptions> = {}) {
    this.#options = { ...WORKER_CODE_RUNNER_DEFAULTS, ...options };
  }

  /** Threads started so far: one, plus one after each run that was terminated or crashed its thread. */
  get threadsStarted(): number {
    return this.#threadsStarted;
  }

  /** The thread's QuickJS objects after its last run (undefined before one finished there). */
  get liveCounts(): QuickJsLiveCounts | undefined {
    return this.#live;
  }

  async run(request: CodeRequest): Promise<CodeResult> {
    checkCodeRequest(request);
    const turn = this.#queue.then(() => this.#runNow(request));
    this.#queue = turn.catch(() => undefined);
    return turn;
  }

  /** Terminates the thread; a later run starts a new one. */
  async close(): Promise<void> {
    const started = this.#worker;
    this.#worker = undefined;
    if (started !== undefined) await started.thread.terminate();
  }

  async #runNow(request: CodeRequest): Promise<CodeResult> {
    const worker = await this.#thread();
    const id = ++this.#nextId;
    const { safetyTimeoutMs } = this.#options;
    return new Promise<CodeResult>((resolve, reject) => {
      const settle = (finish: () => void): void => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        finish();
      };
      const onMessage = (message: FromWorker): void => {
        if (message.kind === 'result' && message.id === id) {
          this.#live = message.live;
          settle(() => resolve(message.result));
        } else if (message.kind === 'failure' && message.id === id) {
          settle(() => reject(new Error(`The code-runner worker could not run the code: ${message.message}`)));
        }
      };
      const onError = (error: Error & { code?: string }): void => {
        this.#forget(worker);
        const status = error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'memory-limit' : 'crashed';
        settle(() => resolve(lostRun(status, `The code-runner worker failed (${error.message}); a new one starts for the next run.`)));
      };
      const onExit = (code: number): void => {
        this.#forget(worker);
        settle(() => resolve(lostRun('crashed', `The code-runner worker exited with code ${code} before it answered; a new one starts for the next run.`)));
      };
      const timer = setTimeout(() => {
        this.#forget(worker);
        settle(() => {
          const message = `The code ran past the ${safetyTimeoutMs} ms wall-clock safety timer and its worker was terminated.`;
          worker.terminate().then(
            () => resolve(lostRun('timeout', message)),
            () => resolve(lostRun('timeout', message)),
          );
        });
      }, safetyTimeoutMs);
      worker.on('message', onMessage);
      worker.once('error', onError);
      worker.once('exit', onExit);
      worker.postMessage({ id, request });
    });
  }

  /** The current thread once it is ready; a new one if the last was terminated or died. */
  async #thread(): Promise<Worker> {
    this.#worker ??= this.#start();
    const { thread, ready } = this.#worker;
    await ready;
    return thread;
  }

  #forget(thread: Worker): void {
    if (this.#worker?.thread === thread) this.#worker = undefined;
  }

  #start(): Started {
    const { stackSizeMb, maxOldGenerationSizeMb, startupTimeoutMs } = this.#options;
    this.#threadsStarted++;
    const thread = new Worker(WORKER_ENTRY, { resourceLimits: { stackSizeMb, maxOldGenerationSizeMb } });
    // An idle thread must not keep the process alive; a run in flight holds it through its timer.
    thread.unref();
    // A thread that dies between runs is replaced at the next run rather than thrown as unhandled.
    thread.on('error', () => this.#forget(thread));
    thread.on('exit', () => this.#forget(thread));
    const ready = new Promise<void>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        thread.off('message', onReady);
        thread.off('error', onStartError);
      };
      const fail = (why: string): void => {
        done();
        this.#forget(thread);
        thread.terminate().catch(() => undefined);
        reject(new Error(`The code-runner worker did not start: ${why}.`));
      };
      const onReady = (message: FromWorker): void => {
        if (message.kind !== 'ready') return;
        done();
        resolve();
      };
      const onStartError = (error: Error): void => fail(error.message);
      const timer = setTimeout(() => fail(`no ready message within ${startupTimeoutMs} ms`), startupTimeoutMs);
      thread.on('message', onReady);
      thread.on('error', onStartError);
    });
    return { thread, ready };
  }
}
