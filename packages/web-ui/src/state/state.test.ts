// Pure page state: URL round trips, the CLI line, latest-wins requests, the run-state badge.

import { describe, expect, it } from 'vitest';
import { LatestOnly } from './latest.ts';
import { firstNonFinite, loggedRunState, positionText } from './run-state.ts';
import { cliCommand, formatUrlState, parseUrlState } from './url-state.ts';

describe('URL state', () => {
  it('round-trips view, recipe, seed, edits, run and compared runs', () => {
    const state = { view: 'gae' as const, recipe: 'tiny', seed: 7, sets: ['rl.lambda=0.9', 'rl.gamma=0.99'], run: 'abc', compare: ['abc', 'bundled'] };
    const href = formatUrlState('http://127.0.0.1:5173/app/?old=1#dashboard', state);
    expect(href).toBe('http://127.0.0.1:5173/app/?recipe=tiny&seed=7&set=rl.lambda%3D0.9&set=rl.gamma%3D0.99&run=abc&cmp=abc&cmp=bundled#gae');
    expect(parseUrlState(href, 'add-ppo')).toEqual(state);
  });

  it('falls back to defaults for a bare or malformed URL', () => {
    expect(parseUrlState('http://x/?seed=-3&set=novalue#nowhere', 'add-ppo')).toEqual({
      view: 'dashboard',
      recipe: 'add-ppo',
      seed: undefined,
      sets: [],
      run: undefined,
      compare: [],
    });
  });

  it('writes the equivalent horizon train command, quoting what a shell would split', () => {
    expect(cliCommand('tiny', undefined, [])).toBe('horizon train --recipe tiny');
    expect(cliCommand('tiny', 3, ['rl.lambda=0.9', "name=my run's"])).toBe(
      `horizon train --recipe tiny --set seed=3 --set rl.lambda=0.9 --set 'name=my run'\\''s'`,
    );
  });
});

describe('LatestOnly', () => {
  it('computes the first and the newest request, dropping those superseded while it ran', async () => {
    const started: number[] = [];
    const delivered: number[] = [];
    let release: (() => void) | undefined;
    const queue = new LatestOnly(
      (n: number) => {
        started.push(n);
        return new Promise<number>((resolve) => {
          release = () => resolve(n * 10);
        });
      },
      (r) => delivered.push(r),
      (e) => {
        throw e;
      },
    );
    queue.request(1);
    queue.request(2);
    queue.request(3);
    release!();
    await new Promise((r) => setTimeout(r, 0));
    release!();
    await new Promise((r) => setTimeout(r, 0));
    expect(started).toEqual([1, 3]);
    expect(delivered).toEqual([30]); // 10 was stale by the time it arrived
  });

  it('reports a failure and keeps serving later requests', async () => {
    const errors: unknown[] = [];
    const delivered: number[] = [];
    const queue = new LatestOnly(
      async (n: number) => {
        if (n < 0) throw new RangeError('negative');
        return n;
      },
      (r) => delivered.push(r),
      (e) => errors.push(e),
    );
    queue.request(-1);
    await new Promise((r) => setTimeout(r, 0));
    queue.request(4);
    await new Promise((r) => setTimeout(r, 0));
    expect(errors).toHaveLength(1);
    expect(delivered).toEqual([4]);
  });
});

describe('run state', () => {
  const row = (step: number, kl: number) => ({ phase: 'rl' as const, step, time_s: step, metrics: { 'policy/kl': kl } });
  it('is idle without a run, finished for a finite log, diverged at the first non-finite number', () => {
    expect(loggedRunState(undefined).state).toBe('idle');
    expect(loggedRunState([row(0, 0.1), row(1, 0.2)]).state).toBe('finished');
    const bad = loggedRunState([row(0, 0.1), row(1, Number.POSITIVE_INFINITY), row(2, Number.NaN)]);
    expect(bad.state).toBe('diverged');
    expect(bad.why).toBe('Diverged: policy/kl = Infinity at rl step 1.');
    expect(firstNonFinite([row(0, 1)])).toBeUndefined();
  });

  it('is interrupted where a saved live run or a short log stops, and says where Resume continues', () => {
    const recipe = { sft: { steps: 300 }, rl: { iterations: 15 } };
    const sft = [1, 2, 3].map((step) => ({ phase: 'sft' as const, step, time_s: step, metrics: { 'sft/loss': 2 } }));
    const summary = { id: 'r', name: 'tiny', source: 'live' as const, origin: '', createdAt: 0, metricsRows: 3, samples: 0 };
    const live = loggedRunState(
      sft,
      { ...summary, progress: { state: 'running', position: { phase: 'sft', step: 3, total: 300 }, checkpoint: { phase: 'sft', step: 2, total: 300 } } },
      recipe,
    );
    expect(live).toEqual({
      state: 'interrupted',
      why: 'Stopped at SFT step 3 of 300. The page was reloaded or closed while it trained. Resume continues from its checkpoint at SFT step 2 of 300.',
    });
    expect(loggedRunState(sft, undefined, recipe).why).toBe(
      "The log stops at SFT step 3 of 300, before the recipe's end: the run was stopped or is still being written.",
    );
    expect(loggedRunState(sft, { ...summary, source: 'replay', tornTail: true }, recipe).state).toBe('interrupted');
    const done = [...sft, { phase: 'eval' as const, step: 15, time_s: 9, metrics: {} }];
    expect(loggedRunState(done, undefined, recipe).state).toBe('finished');
    expect(positionText({ phase: 'eval', step: 0, total: 15 })).toBe('evaluated after SFT');
  });
});
