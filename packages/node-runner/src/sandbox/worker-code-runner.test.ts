// The worker-thread code runner: what the in-VM limits cannot stop, the thread and its timer do.
// A builtin that never polls is terminated as 'timeout', deep native recursion is a QuickJS error
// in the thread's larger stack, and after each of these the next run gets a fresh thread and this
// process is unharmed. Assertions are on statuses and counts, never on how long anything took.

import type { CodeLimits, CodeRequest } from '@horizon/core';
import { afterAll, describe, expect, it } from 'vitest';
import { WorkerCodeRunner } from './worker-code-runner.ts';

const MiB = 1024 * 1024;
const LIMITS: CodeLimits = { steps: 200, memoryBytes: 32 * MiB, stackBytes: 256 * 1024, outputBytes: 4096 };

function evaluate(source: string): CodeRequest {
  return { source, entry: { kind: 'evaluate' }, limits: LIMITS, seed: 3 };
}

describe('WorkerCodeRunner', () => {
  // The timer must outlast a normal run (a cold thread instantiates QuickJS in it) on a loaded
  // machine, and be far below the minutes the non-polling builtin takes (not done after 290 s).
  const runner = new WorkerCodeRunner({ safetyTimeoutMs: 2_000 });
  afterAll(() => runner.close());

  it('runs f(x) = x * 3 + 1 on each test input in the thread', async () => {
    const result = await runner.run({
      source: 'const f = (x) => x * 3 + 1;',
      entry: { kind: 'call', name: 'f', cases: [[2], [5], [-1]] },
      limits: LIMITS,
      seed: 0,
    });
    expect(result.status).toBe('ok');
    expect(result.outcomes).toEqual([7, 16, -2].map((value) => ({ ok: true, value })));
    expect(runner.liveCounts).toEqual({ runtimes: 0, contexts: 0, handles: 0, discardedModules: 0 });
  });

  it('turns deep native recursion into QuickJS errors instead of a host crash', async () => {
    // On the main thread both overflow the host's stack (core's test sees 'crashed'). Deep
    // JSON.stringify does too, but it is left out here: 20 000 levels took 3.5 s in 5 polls.
    const sources = ['JSON.parse("[".repeat(100000))', 'eval("(".repeat(100000))'];
    const results = [];
    for (const source of sources) results.push(await runner.run({ ...evaluate(source), limits: { ...LIMITS, steps: 100_000 } }));
    expect(results.map((result) => result.status)).toEqual(['error', 'error']);
    expect(results.map((result) => result.message)).toEqual(['SyntaxError: stack overflow', 'SyntaxError: stack overflow']);
    expect(runner.liveCounts?.discardedModules).toBe(0);
  });

  it('terminates a builtin that never polls as timeout, and the next run gets a fresh thread', async () => {
    const before = runner.threadsStarted;
    const hung = await runner.run(evaluate('Array.prototype.indexOf.call({ length: 2 ** 32 - 1 }, 1)'));
    expect(hung.status).toBe('timeout');
    expect(hung.message).toBe('The code ran past the 2000 ms wall-clock safety timer and its worker was terminated.');
    expect(hung.steps).toBeNull();
    const next = await runner.run(evaluate('6 * 7'));
    expect(next.outcomes).toEqual([{ ok: true, value: 42 }]);
    expect(runner.threadsStarted).toBe(before + 1);
  });

  it('still stops loops and allocation with the in-VM limits, and this process stays within a bound', async () => {
    const rssBefore = process.memoryUsage().rss;
    expect((await runner.run(evaluate('for (;;) {}'))).status).toBe('step-limit');
    const buffers = await runner.run(evaluate('const kept = []; for (let i = 0; i < 200; i++) kept.push(new ArrayBuffer(16 * 1024 * 1024)); kept.length'));
    expect(buffers.status).toBe('memory-limit');
    expect((await runner.run(evaluate('new ArrayBuffer(1024 * 1024 * 1024).byteLength'))).status).toBe('memory-limit');
    // Unbounded, 200 such buffers grew the WASM memory to its 2 GiB maximum; here the wall is 40 MiB.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(512 * MiB);
  });

  it('runs requests in the order they were asked for, one at a time', async () => {
    const results = await Promise.all([1, 2, 3, 4].map((n) => runner.run(evaluate(`console.log(${n}); ${n} * 10`))));
    expect(results.map((result) => result.outcomes)).toEqual([10, 20, 30, 40].map((value) => [{ ok: true, value }]));
    expect(results.map((result) => result.stdout)).toEqual(['1\n', '2\n', '3\n', '4\n']);
  });

  it('rejects a request whose limits cannot run before it reaches the thread', async () => {
    await expect(runner.run({ ...evaluate('1'), limits: { ...LIMITS, outputBytes: -1 } })).rejects.toThrow(
      'limits.outputBytes must be a positive whole number, got -1.',
    );
  });
});
