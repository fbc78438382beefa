// The live run's driving logic on Dawn (the same Trainer the worker runs): step budgets, pausing
// between steps, batched updates, and a storage failure that must not stop training.

import { resolveRecipe } from '@horizon/core';
import { testGpu } from '@horizon/kernels/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { CheckpointRecord } from '../storage/db.ts';
import type { RunStore } from '../storage/runs.ts';
import type { RunSummary, RunUpdate } from './api.ts';
import { Coalescer } from './coalescer.ts';
import { LiveRun } from './live-run.ts';

const recipe = resolveRecipe({
  preset: 'tiny',
  sets: ['sft.steps=2', 'rl.iterations=2', 'eval.interval=2', 'checkpoint.interval=2', 'eval.heldOutSize=4', 'eval.oodSize=2'],
}).recipe;
const summary: RunSummary = { id: 'r1', name: 'tiny', source: 'live', origin: 'test', createdAt: 0, metricsRows: 0, samples: 0 };

function harness(appendRows: RunStore['appendRows']) {
  const updates: RunUpdate[] = [];
  const notices: string[] = [];
  const checkpoints: CheckpointRecord[] = [];
  const store = { appendRows, saveCheckpoint: async (c: CheckpointRecord) => void checkpoints.push(c) } as unknown as RunStore;
  return {
    updates,
    notices,
    checkpoints,
    make: async (from?: CheckpointRecord) =>
      new LiveRun(
        await testGpu(),
        recipe,
        summary,
        store,
        (u) => updates.push(u),
        (m) => notices.push(m),
        from,
      ),
  };
}

const settle = async (run: LiveRun, state: string) => {
  await vi.waitFor(() => expect(run.state).toBe(state), { timeout: 120_000, interval: 20 });
  await new Promise((r) => setTimeout(r, 300)); // the last batch leaves within UPDATE_INTERVAL_MS
};

describe('LiveRun', () => {
  it('steps once, then plays to the end, saving every row in order', async () => {
    const saved: { first: number; n: number }[] = [];
    const h = harness(async (_s, _r, rows) => {
      saved.push({ first: rows.first, n: rows.records.length });
    });
    const run = await h.make();
    run.resume(1);
    await settle(run, 'paused');
    expect(run.position).toEqual({ phase: 'sft', step: 1, total: 2 });
    run.resume();
    await settle(run, 'finished');
    const records = h.updates.flatMap((u) => u.records);
    expect(records.map((r) => `${r.phase}${r.step}`)).toEqual(['sft1', 'sft2', 'eval0', 'rl1', 'rl2', 'eval2']);
    expect(h.updates.at(-1)?.state).toBe('finished');
    expect(h.updates.flatMap((u) => u.samples).some((s) => s.phase === 'rl' && s.channels.advantage?.length === s.tokens.length)).toBe(true);
    // Appended at consecutive sequence numbers, nothing twice, nothing missing.
    let next = 0;
    for (const s of saved) {
      expect(s.first).toBe(next);
      next += s.n;
    }
    expect(next).toBe(records.length);
    expect(h.notices).toEqual([]);
    // A checkpoint at the pause (SFT step 1, one row logged) and at the recipe's last iteration;
    // between them, time-based ones (every CHECKPOINT_EVERY_MS), each counting the rows before it.
    const taken = h.checkpoints.map((c) => [c.position.phase, c.position.step, c.records]);
    expect(taken[0]).toEqual(['sft', 1, 1]);
    expect(taken.at(-1)).toEqual(['eval', 2, 6]);
    for (const c of h.checkpoints) {
      const last = records[c.records - 1];
      expect([last.phase, last.step]).toEqual([c.position.phase, c.position.step]);
    }
  });

  it('resumes from a pause checkpoint and logs what the uninterrupted run logged after it', async () => {
    const h = harness(async () => {});
    const first = await h.make();
    first.resume(1);
    await settle(first, 'paused');
    const from = h.checkpoints[0];
    await first.dispose();
    const resumed = await h.make(from);
    const before = h.updates.length;
    resumed.resume();
    await settle(resumed, 'finished');
    const records = h.updates.slice(before).flatMap((u) => u.records);
    expect(records.map((r) => `${r.phase}${r.step}`)).toEqual(['sft2', 'eval0', 'rl1', 'rl2', 'eval2']);
    await resumed.dispose();
  });

  it('keeps training when storage fails, and says so once', async () => {
    const h = harness(async () => {
      throw new Error('Could not save run "tiny": storage full.');
    });
    const run = await h.make();
    run.resume();
    await settle(run, 'finished');
    expect(h.notices).toEqual(['Could not save run "tiny": storage full. Training continues, but this run will not be restored after a reload.']);
    expect(h.updates.flatMap((u) => u.records).filter((r) => r.phase === 'rl')).toHaveLength(2);
  });
});

describe('Coalescer', () => {
  afterEach(() => vi.useRealTimers());

  it('runs once per interval however often asked, and at once on demand', () => {
    vi.useFakeTimers();
    let runs = 0;
    const c = new Coalescer(250, () => runs++);
    for (let i = 0; i < 10; i++) c.schedule();
    expect(runs).toBe(0);
    vi.advanceTimersByTime(250);
    expect(runs).toBe(1);
    c.schedule();
    c.now();
    expect(runs).toBe(2);
    vi.advanceTimersByTime(1000);
    expect(runs).toBe(2); // the scheduled run was cancelled by now()
    expect(() => new Coalescer(-1, () => {})).toThrow(/intervalMs must be non-negative, got -1/);
  });
});
