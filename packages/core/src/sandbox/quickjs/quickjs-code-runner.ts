// The portable code runner: QuickJS compiled to WASM (quickjs-emscripten 0.32.0, release-sync
// variant) driven by plain TypeScript, so the same file runs in Node, Deno and the web UI's engine
// worker (the HiddenTestFS parity test grades episodes through it in all three). Each run gets a fresh WASM module with its own linear memory (a three-case run
// took 9.6 ms, median of 30, in Node 20), so nothing one run does, leaks or corrupts reaches the
// next, and replay does not depend on run order.
//
// Limits, and what each really bounds (measured on 0.32.0; docs/sandbox-code-runner.md):
// - steps: the interrupt handler counts polls; no clock is read, so a replay stops at the same poll.
// - memory: `setMemoryLimit` alone does not bound total memory (under Emscripten quickjs's usable-size
//   hook returns 0, so it refuses only single allocations bigger than the limit: 60 × 16 MiB
//   ArrayBuffers under a 32 MiB limit grew the memory to 965 MiB). So the module gets an imported
//   `WebAssembly.Memory` whose maximum is HARD_WALL_FACTOR × memoryBytes, which no allocation can
//   pass, even inside a builtin that never polls; and the interrupt handler stops the run once the
//   memory has grown past memoryBytes, which also catches code that catches its own out-of-memory
//   error and carries on; a run that ends with the memory past memoryBytes is 'memory-limit' too.
// - stack: `setMaxStackSize` turns deep JavaScript recursion into a catchable error. Deep native
//   recursion (JSON.parse of deep nesting, the parser) overflows the host's stack first; that is a
//   host RangeError, reported as 'crashed'. Only a worker with a larger host stack turns those into
//   QuickJS errors (node-runner's WorkerCodeRunner).
// Not bounded here: wall-clock time. A single builtin call does not poll (`Array.prototype.indexOf`
// over 2^32 - 1 holes had not returned after 290 s), so this runner on the main thread is not a security boundary;
// the worker's timer is the outer kill.
//
// Every handle is disposed in `finally`. After a host exception the module is discarded instead:
// disposing after a host stack overflow, or after some allocation in a promise job, aborts the WASM.

import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSContext, type QuickJSHandle, type QuickJSRuntime, RELEASE_SYNC } from 'quickjs-emscripten';
import type { JsonValue } from '../../envs/environment.ts';
import { type CaseOutcome, type CodeRequest, type CodeResult, type CodeRunner, type CodeStatus, checkCodeRequest } from './code-runner.ts';
import { OutputCapture } from './output-capture.ts';
import { VM_PRELUDE } from './vm-prelude.ts';

const PAGE_BYTES = 65_536;
/** The release-sync module declares 256 pages (16 MiB) as its initial memory and refuses less. */
const INITIAL_PAGES = 256;
/** The WASM memory's maximum over memoryBytes: room for the allocations between two polls. */
export const HARD_WALL_FACTOR = 1.25;
/** What QuickJS throws when an allocation fails (a refused single allocation or a full WASM memory). */
const OUT_OF_MEMORY = 'InternalError: out of memory';

/** QuickJS objects a runner holds now; all zero between runs unless one leaked. */
export interface QuickJsLiveCounts {
  runtimes: number;
  contexts: number;
  handles: number;
  /** Modules dropped without disposal after a host exception, since this runner was made. */
  discardedModules: number;
}

interface Helpers {
  describe: QuickJSHandle;
  invoke: QuickJSHandle;
  encode: QuickJSHandle;
}

type Stop = 'step-limit' | 'memory-limit';

export class QuickJsCodeRunner implements CodeRunner {
  #runtimes = 0;
  #contexts = 0;
  #handles = 0;
  #discarded = 0;

  liveCounts(): QuickJsLiveCounts {
    return { runtimes: this.#runtimes, contexts: this.#contexts, handles: this.#handles, discardedModules: this.#discarded };
  }

  async run(request: CodeRequest): Promise<CodeResult> {
    checkCodeRequest(request);
    const { limits } = request;
    const memory = new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum: Math.ceil((limits.memoryBytes * HARD_WALL_FACTOR) / PAGE_BYTES) });
    const module = await newQuickJSWASMModuleFromVariant(newVariant(RELEASE_SYNC, { wasmMemory: memory }));

    const owned: QuickJSHandle[] = [];
    const own = (handle: QuickJSHandle): QuickJSHandle => {
      owned.push(handle);
      this.#handles++;
      return handle;
    };
    const output = new OutputCapture(limits.outputBytes);
    let steps = 0;
    let stop: Stop | null = null;
    let runtime: QuickJSRuntime | undefined;
    let context: QuickJSContext | undefined;
    let hostFailure: unknown;
    const outcomes: CaseOutcome[] = [];
    let firstError: string | undefined;

    try {
      runtime = module.newRuntime();
      this.#runtimes++;
      runtime.setMemoryLimit(limits.memoryBytes);
      runtime.setMaxStackSize(limits.stackBytes);
      runtime.setInterruptHandler(() => {
        steps++;
        if (stop === null && steps > limits.steps) stop = 'step-limit';
        if (stop === null && memory.buffer.byteLength > limits.memoryBytes) stop = 'memory-limit';
        return stop !== null;
      });
      context = runtime.newContext();
      this.#contexts++;
      const ctx = context;
      const rt = runtime;

      const write = own(ctx.newFunction('write', (line) => ctx.newNumber(output.write(JSON.parse(ctx.getString(line)) as string | null))));
      const prelude = own(ctx.unwrapResult(ctx.evalCode(VM_PRELUDE, 'prelude.js')));
      const helperObject = own(
        ctx.unwrapResult(ctx.callFunction(prelude, ctx.undefined, write, own(ctx.newNumber(request.seed)), own(ctx.newNumber(limits.outputBytes)))),
      );
      const helpers: Helpers = {
        describe: own(ctx.getProp(helperObject, 'describe')),
        invoke: own(ctx.getProp(helperObject, 'invoke')),
        encode: own(ctx.getProp(helperObject, 'encode')),
      };

      // Once a limit has stopped the run every call into the VM is interrupted, so nothing is asked of it.
      const describe = (thrown: QuickJSHandle): string => {
        if (stop !== null) return 'The run was stopped by a limit.';
        const described = ctx.callFunction(helpers.describe, ctx.undefined, thrown);
        if (described.error) {
          own(described.error);
          return 'The code threw a value that could not be described within the limits.';
        }
        return JSON.parse(ctx.getString(own(described.value))) as string;
      };
      // A returned promise is settled by running the job queue (polled like any other code); a
      // promise still pending after that can never settle, since the VM has no timers or I/O.
      const settle = (result: ReturnType<QuickJSContext['evalCode']>): CaseOutcome => {
        if (result.error) return { ok: false, error: describe(own(result.error)) };
        let value = own(result.value);
        drainJobs(rt, own);
        const state = ctx.getPromiseState(value);
        if (state.type === 'pending') return { ok: false, error: 'The returned promise never settled.' };
        if (state.type === 'rejected') return { ok: false, error: describe(own(state.error)) };
        if (!state.notAPromise) value = own(state.value);
        const encoded = ctx.callFunction(helpers.encode, ctx.undefined, value);
        if (encoded.error) return { ok: false, error: describe(own(encoded.error)) };
        return { ok: true, value: JSON.parse(ctx.getString(own(encoded.value))) as JsonValue };
      };
      // The run's first error; QuickJS running out of memory is the memory limit, not the agent's error.
      const fail = (error: string): void => {
        if (stop === null && error === OUT_OF_MEMORY) stop = 'memory-limit';
        firstError ??= error;
      };
      // Records a finished outcome; false when a limit stopped the run, whose unfinished case is dropped.
      const record = (outcome: CaseOutcome): boolean => {
        if (!outcome.ok) fail(outcome.error);
        if (stop !== null) return false;
        outcomes.push(outcome);
        return true;
      };

      const script = ctx.evalCode(request.source, 'agent.js', { type: 'global' });
      const { entry } = request;
      if (entry.kind === 'evaluate') record(settle(script));
      else if (script.error) fail(describe(own(script.error)));
      else {
        own(script.value);
        drainJobs(rt, own);
        const found = ctx.evalCode(entry.name, 'entry.js');
        if (found.error) {
          own(found.error);
          fail(`The code defines no global binding named ${entry.name}.`);
        } else {
          const fn = own(found.value);
          for (const args of entry.cases) {
            const argsJson = own(ctx.newString(JSON.stringify(args)));
            if (!record(settle(ctx.callFunction(helpers.invoke, ctx.undefined, fn, argsJson)))) break;
          }
        }
      }
    } catch (error) {
      hostFailure = error;
    } finally {
      if (hostFailure === undefined) this.#release(owned, context, runtime);
      else this.#discard(owned, context, runtime);
    }

    // Memory grown past the limit between the last poll and the end of the run counts too, so the
    // status does not depend on where the polls happened to fall; it is the cause when the host
    // side then failed as well.
    if (stop === null && memory.buffer.byteLength > limits.memoryBytes) stop = 'memory-limit';
    const status: CodeStatus = stop ?? (hostFailure !== undefined ? 'crashed' : firstError !== undefined ? 'error' : 'ok');
    const message = stopMessage(status, request, firstError, hostFailure);
    return {
      status,
      outcomes,
      ...(message === undefined ? {} : { message }),
      stdout: output.text(),
      stdoutTruncated: output.truncated,
      steps,
      heapBytes: memory.buffer.byteLength,
    };
  }

  /**
   * Disposes every handle, then the context and runtime. A disposal that throws discards the rest
   * and leaves the run's result as it was: everything was read out before. Measured: a promise job
   * stopped by the memory wall leaves objects QuickJS cannot free, and `JS_FreeRuntime` then aborts
   * the WASM (`Assertion failed: list_empty(&rt->gc_obj_list)`).
   */
  #release(owned: QuickJSHandle[], context: QuickJSContext | undefined, runtime: QuickJSRuntime | undefined): void {
    let contextLeft = context;
    let runtimeLeft = runtime;
    try {
      for (let i = owned.length - 1; i >= 0; i--) {
        if (owned[i].alive) owned[i].dispose();
        owned.pop();
        this.#handles--;
      }
      if (contextLeft !== undefined) {
        contextLeft.dispose();
        contextLeft = undefined;
        this.#contexts--;
      }
      if (runtimeLeft !== undefined) {
        runtimeLeft.dispose();
        runtimeLeft = undefined;
        this.#runtimes--;
      }
    } catch {
      this.#discard(owned, contextLeft, runtimeLeft);
    }
  }

  /** Forgets a module's objects without touching the WASM, which may be in a state where disposal aborts. */
  #discard(owned: QuickJSHandle[], context: QuickJSContext | undefined, runtime: QuickJSRuntime | undefined): void {
    this.#handles -= owned.length;
    owned.length = 0;
    if (context !== undefined) this.#contexts--;
    if (runtime !== undefined) this.#runtimes--;
    this.#discarded++;
  }
}

/** Runs queued promise jobs until none is left or one throws (an interrupted job does). */
function drainJobs(runtime: QuickJSRuntime, own: (handle: QuickJSHandle) => QuickJSHandle): void {
  const jobs = runtime.executePendingJobs();
  if (jobs.error) own(jobs.error);
}

function stopMessage(status: CodeStatus, request: CodeRequest, firstError: string | undefined, hostFailure: unknown): string | undefined {
  const { limits } = request;
  switch (status) {
    case 'ok':
      return undefined;
    case 'error':
      return firstError;
    case 'step-limit':
      return `The code used more than its ${limits.steps} interpreter steps (an endless or very long loop, perhaps).`;
    case 'memory-limit':
      return `The code needed more than its ${limits.memoryBytes} bytes of memory.`;
    case 'crashed':
      return `The sandbox's host side failed (${hostFailure instanceof Error ? `${hostFailure.name}: ${hostFailure.message}` : String(hostFailure)}); the QuickJS module was discarded.`;
    case 'timeout':
      return 'The code ran past the wall-clock safety timer.';
  }
}
