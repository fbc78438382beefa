// Dawn for Node waits for the GPU by polling: while a mapAsync or onSubmittedWorkDone is pending it
// calls the global setImmediate with a native callback that processes Dawn's events and schedules
// itself again (its AsyncRunner; "we probably want to reduce the frequency", crbug.com/dawn/1127).
// That keeps one core busy for the whole wait. On a GPU that costs nothing; on SwiftShader, whose
// worker threads are the GPU and share the same cores, it took the core they needed: with two
// cores, a tiny-GPT SFT step took 56–57 ms polling and 41 ms when the wait was a 35 ms sleep
// (2026-12-04, docs/experiments.md). So after a short spin (a wait that short is latency, not CPU)
// Dawn's callbacks are delayed by a 1 ms timer, and the event loop sleeps between polls.
// JavaScript callbacks are never touched: only native functions (Dawn's) are throttled.

/** How long a wait may poll at full speed before it backs off. */
export const DAWN_SPIN_MS = 0.25;
/** The polling interval after that. */
export const DAWN_POLL_MS = 1;
/** A gap this long between Dawn's polls means the previous wait ended; the next poll starts a new one. */
const NEW_WAIT_GAP_MS = 2 * DAWN_POLL_MS + 1;

let installed = false;

/** Installs the throttle once per process (Node only: browsers and Deno do not poll through setImmediate). */
export function calmDawnPolling(): void {
  if (installed) return;
  installed = true;
  const immediate = globalThis.setImmediate;
  let waitStart = 0;
  let lastPoll = Number.NEGATIVE_INFINITY;
  const throttled = (callback: (...args: unknown[]) => void, ...args: unknown[]) => {
    if (!isNative(callback)) return immediate(callback, ...args);
    const now = performance.now();
    if (now - lastPoll > NEW_WAIT_GAP_MS) waitStart = now;
    lastPoll = now;
    if (now - waitStart < DAWN_SPIN_MS) return immediate(callback, ...args);
    // Dawn ignores the handle; a Timeout stands in for the Immediate.
    return setTimeout(callback, DAWN_POLL_MS, ...args) as unknown as NodeJS.Immediate;
  };
  globalThis.setImmediate = Object.assign(throttled, { __promisify__: immediate.__promisify__ }) as typeof setImmediate;
}

function isNative(callback: unknown): boolean {
  return typeof callback === 'function' && Function.prototype.toString.call(callback).endsWith('{ [native code] }');
}
