// The in-process QuickJS runner: each limit ends a run with its own status, results come back
// whole and deterministic, and a batch leaves no QuickJS object alive. Limits are small so each run
// stops within a few polls; assertions are on statuses, outcomes and counts, never on time.

import { describe, expect, it } from 'vitest';
import type { CodeLimits, CodeRequest } from './code-runner.ts';
import { HARD_WALL_FACTOR, QuickJsCodeRunner } from './quickjs-code-runner.ts';

const MiB = 1024 * 1024;
const LIMITS: CodeLimits = { steps: 200, memoryBytes: 32 * MiB, stackBytes: 256 * 1024, outputBytes: 4096 };

function evaluate(source: string, overrides: Partial<CodeRequest> = {}): CodeRequest {
  return { source, entry: { kind: 'evaluate' }, limits: LIMITS, seed: 1, ...overrides };
}

describe('QuickJsCodeRunner', () => {
  const runner = new QuickJsCodeRunner();

  it('calls f(x) = x * 3 + 1 on each test input and returns its values', async () => {
    const result = await runner.run({
      source: 'function f(x) { return x * 3 + 1; }',
      entry: { kind: 'call', name: 'f', cases: [[0], [1], [-4], [2.5], [1000]] },
      limits: LIMITS,
      seed: 0,
    });
    expect(result.status).toBe('ok');
    expect(result.outcomes).toEqual([1, 4, -11, 8.5, 3001].map((value) => ({ ok: true, value })));
  });

  it('finds a const arrow function, passes several JSON arguments and returns objects', async () => {
    const result = await runner.run({
      source: 'const pair = (a, b) => ({ sum: a + b, both: [a, b] });',
      entry: {
        kind: 'call',
        name: 'pair',
        cases: [
          [1, 2],
          ['x', 'y'],
        ],
      },
      limits: LIMITS,
      seed: 0,
    });
    expect(result.outcomes).toEqual([
      { ok: true, value: { sum: 3, both: [1, 2] } },
      { ok: true, value: { sum: 'xy', both: ['x', 'y'] } },
    ]);
  });

  it('evaluates a script to its completion value, and an async result to what it resolves to', async () => {
    expect((await runner.run(evaluate('const a = 20; a + 22'))).outcomes).toEqual([{ ok: true, value: 42 }]);
    expect((await runner.run(evaluate('(async () => 7)()'))).outcomes).toEqual([{ ok: true, value: 7 }]);
    const pending = await runner.run(evaluate('new Promise(() => {})'));
    expect(pending.status).toBe('error');
    expect(pending.message).toBe('The returned promise never settled.');
  });

  it('keeps a case that throws to itself: the other cases still run', async () => {
    const result = await runner.run({
      source: 'function f(x) { if (x < 0) throw new RangeError("negative input"); return Math.sqrt(x); }',
      entry: { kind: 'call', name: 'f', cases: [[4], [-1], [9]] },
      limits: LIMITS,
      seed: 0,
    });
    expect(result.status).toBe('error');
    expect(result.message).toBe('RangeError: negative input');
    expect(result.outcomes).toEqual([
      { ok: true, value: 2 },
      { ok: false, error: 'RangeError: negative input' },
      { ok: true, value: 3 },
    ]);
  });

  it('reports a syntax error and a missing entry as errors with a sentence', async () => {
    const syntax = await runner.run({ source: 'function f( {', entry: { kind: 'call', name: 'f', cases: [[1]] }, limits: LIMITS, seed: 0 });
    expect(syntax.status).toBe('error');
    expect(syntax.message).toMatch(/^SyntaxError: /);
    const missing = await runner.run({ source: 'function g() {}', entry: { kind: 'call', name: 'f', cases: [[1]] }, limits: LIMITS, seed: 0 });
    expect(missing.message).toBe('The code defines no global binding named f.');
  });

  it('supplies a message for thrown values that carry none', async () => {
    const messages = await Promise.all(
      ['throw undefined', 'throw Symbol("s")', 'throw new Proxy({}, {})', 'throw null', 'throw 3', 'throw new Error()'].map(
        async (code) => (await runner.run(evaluate(code))).message,
      ),
    );
    expect(messages).toEqual([
      'The code threw undefined, which carries no message.',
      'The code threw a Symbol, which carries no message.',
      'The code threw an object with no message: {}',
      'The code threw null, which carries no message.',
      'The code threw number 3.',
      'Error with no message.',
    ]);
    const trap = await runner.run(evaluate('throw new Proxy({}, { get() { throw 1; } })'));
    expect(trap.message).toBe('The code threw an object whose properties cannot be read (a Proxy that throws, perhaps).');
  });

  it('stops an infinite loop at the step limit, at the same poll every time', async () => {
    const first = await runner.run(evaluate('for (;;) {}'));
    const again = await runner.run(evaluate('for (;;) {}'));
    expect(first.status).toBe('step-limit');
    expect(first.steps).toBe(LIMITS.steps + 1);
    expect(again.steps).toBe(first.steps);
    const cases = await runner.run({
      source: 'function f(n) { while (n > 0) {} return n; }',
      entry: { kind: 'call', name: 'f', cases: [[0], [1], [0]] },
      limits: LIMITS,
      seed: 0,
    });
    expect(cases.status).toBe('step-limit');
    expect(cases.outcomes).toEqual([{ ok: true, value: 0 }]);
  });

  it('stops many 16 MiB ArrayBuffers at the memory limit; the WASM memory stays under its wall', async () => {
    const result = await runner.run(evaluate('const kept = []; for (let i = 0; i < 200; i++) kept.push(new ArrayBuffer(16 * 1024 * 1024)); kept.length'));
    expect(result.status).toBe('memory-limit');
    expect(result.heapBytes).toBeLessThanOrEqual(LIMITS.memoryBytes * HARD_WALL_FACTOR);
  });

  it('stops a 1 GB allocation, and code that catches its out-of-memory error and keeps allocating', async () => {
    const single = await runner.run(evaluate('new ArrayBuffer(1024 * 1024 * 1024).byteLength'));
    expect(single.status).toBe('memory-limit');
    const stubborn = await runner.run(
      evaluate('const kept = []; for (let i = 0; i < 50; i++) { try { kept.push(new ArrayBuffer(8 * 1024 * 1024)); } catch (_) {} } kept.length'),
    );
    // Fewer iterations than one poll takes: the check when the run ends still sees the grown memory.
    expect(stubborn.status).toBe('memory-limit');
    const stubbornLonger = await runner.run(
      evaluate('const kept = []; for (let i = 0; i < 1e6; i++) { try { kept.push(new ArrayBuffer(8 * 1024 * 1024)); } catch (_) {} } kept.length', {
        limits: { ...LIMITS, steps: 10_000 },
      }),
    );
    expect(stubbornLonger.status).toBe('memory-limit');
    expect(stubbornLonger.steps).toBeLessThan(10_000);
    expect(stubborn.heapBytes).toBeLessThanOrEqual(LIMITS.memoryBytes * HARD_WALL_FACTOR);
  });

  it('turns deep JavaScript recursion into an error', async () => {
    const result = await runner.run(evaluate('function down(n) { return down(n + 1) + 1; } down(0)', { limits: { ...LIMITS, steps: 100_000 } }));
    expect(result.status).toBe('error');
    expect(result.message).toBe('InternalError: stack overflow');
  });

  it('reports deep native recursion that overflows the host stack as crashed, discards the module and runs on', async () => {
    const crashRunner = new QuickJsCodeRunner();
    const result = await crashRunner.run(evaluate('JSON.parse("[".repeat(100000))'));
    expect(result.status).toBe('crashed');
    expect(result.message).toMatch(/^The sandbox's host side failed \(RangeError: .*\); the QuickJS module was discarded\.$/);
    expect(crashRunner.liveCounts()).toEqual({ runtimes: 0, contexts: 0, handles: 0, discardedModules: 1 });
    expect((await crashRunner.run(evaluate('6 * 7'))).outcomes).toEqual([{ ok: true, value: 42 }]);
  });

  it('keeps the result when disposal aborts after a promise job hit the memory wall, and discards the module', async () => {
    const jobRunner = new QuickJsCodeRunner();
    const result = await jobRunner.run(evaluate('Promise.resolve().then(() => { const kept = []; for (;;) kept.push(new ArrayBuffer(1 << 20)); }); 1'));
    expect(result.status).toBe('memory-limit');
    expect(result.outcomes).toEqual([{ ok: true, value: 1 }]);
    expect(jobRunner.liveCounts()).toEqual({ runtimes: 0, contexts: 0, handles: 0, discardedModules: 1 });
  });

  it('captures console output and caps a runaway console.log', async () => {
    const small = await runner.run(evaluate('console.log("a", 1, { b: [2] }); console.error("e"); 0'));
    expect(small.stdout).toBe('a 1 {"b":[2]}\ne\n');
    expect(small.stdoutTruncated).toBe(false);
    const runaway = await runner.run(evaluate('for (let i = 0; i < 2000; i++) console.log("line " + i + " " + "x".repeat(50)); "done"'));
    expect(runaway.status).toBe('ok');
    expect(new TextEncoder().encode(runaway.stdout).length).toBeLessThanOrEqual(LIMITS.outputBytes);
    expect(runaway.stdout.startsWith('line 0 x')).toBe(true);
    expect(runaway.stdoutTruncated).toBe(true);
    const nul = await runner.run(evaluate('console.log("a\\u0000b"); "c\\u0000d"'));
    expect(nul.stdout).toBe('a\u0000b\n');
    expect(nul.outcomes).toEqual([{ ok: true, value: 'c\u0000d' }]);
  });

  it('refuses a returned value whose JSON is over the output limit', async () => {
    const result = await runner.run(evaluate('"y".repeat(10000)'));
    expect(result.status).toBe('error');
    expect(result.message).toBe(`RangeError: The result is 10002 characters of JSON, over the output limit of ${LIMITS.outputBytes}.`);
  });

  it('seeds Math.random from the request and fixes Date', async () => {
    const draw = 'Array.from({ length: 5 }, () => Math.random())';
    const a = await runner.run(evaluate(draw, { seed: 7 }));
    const b = await runner.run(evaluate(draw, { seed: 7 }));
    const c = await runner.run(evaluate(draw, { seed: 8 }));
    expect(a.outcomes).toEqual(b.outcomes);
    expect(a.outcomes).not.toEqual(c.outcomes);
    const values = (a.outcomes[0] as { value: number[] }).value;
    expect(values.every((value) => value >= 0 && value < 1)).toBe(true);
    const date = await runner.run(evaluate('[Date.now(), new Date().toISOString(), new Date(0).getTime(), new Date() instanceof Date]'));
    expect(date.outcomes).toEqual([{ ok: true, value: [946684800000, '2000-01-01T00:00:00.000Z', 0, true] }]);
  });

  it('rejects a request whose limits cannot run, naming the field', async () => {
    await expect(runner.run(evaluate('1', { limits: { ...LIMITS, memoryBytes: MiB } }))).rejects.toThrow(/^limits\.memoryBytes must be/);
    await expect(runner.run(evaluate('1', { limits: { ...LIMITS, steps: 0 } }))).rejects.toThrow('limits.steps must be a positive whole number, got 0.');
    await expect(runner.run({ ...evaluate('1'), entry: { kind: 'call', name: 'f()', cases: [] } })).rejects.toThrow(/^entry\.name must be/);
  });

  it('leaves no runtime, context or handle alive after a batch of 50 mixed runs', async () => {
    const batchRunner = new QuickJsCodeRunner();
    const sources = [
      'function f(x) { return x * 3 + 1; }',
      'function f() { for (;;) {} }',
      'function f() { throw undefined; }',
      'function f() { const k = []; for (;;) k.push(new ArrayBuffer(1 << 24)); }',
      'function f(x) { console.log(x); return Promise.resolve(x); }',
      'function f() { return JSON.parse("[".repeat(100000)); }',
    ];
    const statuses: string[] = [];
    for (let i = 0; i < 50; i++) {
      const result = await batchRunner.run({
        source: sources[i % sources.length],
        entry: { kind: 'call', name: 'f', cases: [[i], [i + 1]] },
        limits: LIMITS,
        seed: i,
      });
      statuses.push(result.status);
    }
    expect(new Set(statuses)).toEqual(new Set(['ok', 'step-limit', 'error', 'memory-limit', 'crashed']));
    // Only the host stack overflows (on this thread) leave a module behind, dropped rather than disposed.
    const crashed = statuses.filter((status) => status === 'crashed').length;
    expect(crashed).toBe(8);
    expect(batchRunner.liveCounts()).toEqual({ runtimes: 0, contexts: 0, handles: 0, discardedModules: crashed });
  });
});
