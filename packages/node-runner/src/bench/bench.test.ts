// The bench's plumbing, without a GPU: row ratios and ceilings, timing statistics, the model's
// matmul shapes, the table, and the PyTorch peer's answer when there is no Python.

import { describe, expect, it } from 'vitest';
import { AGENT_LENGTHS, agentShape, attentionLengthNames } from './attention-lengths.ts';
import { type Ceilings, rooflineGflops } from './ceilings.ts';
import { memoryGrowth, peakTensorBytes, sameShapePairs } from './memory.ts';
import { jaxMissing } from './peers/jax.ts';
import { runTorchPeer } from './peers/pytorch.ts';
import { tfjsMissing } from './peers/tfjs.ts';
import { makeRow, withCeiling } from './row.ts';
import { DEFAULT_BENCH_MODEL, matmulBytes, matmulCaseName, modelMatmulCases, squareMatmulCases } from './shapes.ts';
import { formatNumber, formatTable } from './table.ts';
import { calibrate, median, timeRuns } from './timing.ts';
import { gptStepRows } from './train-steps.ts';

describe('bench rows', () => {
  it('ratio says how many times better ours is, for rates and for costs', () => {
    expect(makeRow('r', 'GFLOP/s', 6, { name: 'p', value: 2 }).ratio).toBe(3);
    expect(makeRow('c', 'ms', 2, { name: 'p', value: 6 }).ratio).toBe(3);
    expect(makeRow('c', 'ms', 6, { name: 'p', value: 2 }).ratio).toBeCloseTo(1 / 3);
  });

  it('an unavailable peer leaves peer and ratio empty and says why; a missing ours leaves the ratio empty', () => {
    const row = makeRow('m', 'GFLOP/s', 1, { name: 'pytorch cpu', unavailable: 'unavailable: install python3-torch' });
    expect(row).toMatchObject({ peer: null, ratio: null, peerName: 'pytorch cpu', note: 'unavailable: install python3-torch' });
    const [step] = gptStepRows(DEFAULT_BENCH_MODEL, null, [{ name: 'tfjs', value: 10 }]);
    expect(step).toMatchObject({ ours: null, peer: 10, ratio: null });
  });

  it('withCeiling adds our share of the ceiling (inverted for costs) and skips missing figures', () => {
    expect(withCeiling(makeRow('r', 'GB/s', 5), 20).fractionOfCeiling).toBe(0.25);
    expect(withCeiling(makeRow('c', 'ms', 8), 2).fractionOfCeiling).toBe(0.25);
    expect(withCeiling(makeRow('n', 'ms', null), 2).fractionOfCeiling).toBeUndefined();
  });

  it('the roofline is bandwidth-bound at low intensity and compute-bound at high', () => {
    const ceilings: Ceilings = { bandwidthGBs: 10, computeGflops: 50 };
    expect(rooflineGflops(ceilings, 1e9, 1e9)).toBe(10);
    expect(rooflineGflops(ceilings, 100e9, 1e9)).toBe(50);
  });
});

describe('bench timing', () => {
  it('median of odd and even counts', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow(RangeError);
  });

  it('runs the warm-up untimed, then stops at the repetition count or once the budget is spent', async () => {
    let calls = 0;
    const run = async () => {
      calls++;
    };
    expect((await timeRuns(run, { warmup: 2, reps: 4 })).runs).toBe(4);
    expect(calls).toBe(6);
    const slow = () => new Promise<void>((r) => setTimeout(r, 20));
    expect((await timeRuns(slow, { warmup: 0, reps: 50, budgetMs: 30 })).runs).toBeLessThan(5);
    await expect(timeRuns(run, { warmup: -1, reps: 1 })).rejects.toThrow(/warmup/);
    await expect(timeRuns(run, { warmup: 0, reps: 0 })).rejects.toThrow(/reps/);
  });

  it('calibrate doubles the size until a run is long enough, capped', async () => {
    expect(await calibrate(async (s) => s * 10, 35, 1024)).toBe(4);
    expect(await calibrate(async () => 0, 35, 64)).toBe(64);
  });
});

describe('bench shapes', () => {
  it("the agent-length rows use hidden-ppo's policy at one update minibatch, at each agent context", () => {
    expect(AGENT_LENGTHS).toEqual([64, 128, 256]);
    const shape = agentShape(128);
    expect(shape).toMatchObject({ batch: 8, model: { layers: 2, heads: 4, width: 32, contextLength: 128, head: 'lm' } });
    expect(attentionLengthNames(shape).attention).toBe(`agent length: attention fwd+bwd, all layers L2 H4 D32 T128 B8 V${shape.model.vocabSize}`);
  });

  it("the model's products are the forward, input-gradient and weight-gradient of each linear layer", () => {
    const cases = modelMatmulCases(DEFAULT_BENCH_MODEL);
    expect(cases.map(matmulCaseName)).toEqual([
      'matmul nt 768×32×128 (mlp.c_fc fwd)',
      'matmul nn 768×128×32 (mlp.c_fc dX)',
      'matmul tn 128×768×32 (mlp.c_fc dW)',
      'matmul nt 768×128×32 (mlp.c_proj fwd)',
      'matmul nn 768×32×128 (mlp.c_proj dX)',
      'matmul tn 32×768×128 (mlp.c_proj dW)',
      'matmul nt 768×32×13 (lm_head fwd)',
      'matmul nn 768×13×32 (lm_head dX)',
      'matmul tn 13×768×32 (lm_head dW)',
    ]);
    expect(squareMatmulCases(true).map((c) => c.M)).toEqual([512, 512, 512]);
    expect(squareMatmulCases(false).map((c) => c.M)).toEqual([512, 512, 512, 1024, 1024, 1024, 2048, 2048, 2048]);
    expect(matmulBytes({ M: 2, K: 3, N: 4, layout: 'nn', role: '' })).toBe(4 * (6 + 12 + 8));
  });
});

describe('bench table', () => {
  it('aligns columns, marks each unit’s direction and prints missing figures as dashes', () => {
    const lines = formatTable([
      withCeiling(makeRow('matmul nn 512×512×512', 'GFLOP/s', 4.18, { name: 'tfjs-webgpu 4.22.0', value: 0.314 }), 6.45),
      makeRow('step', 'ms', null, { name: 'pytorch', value: 23.2 }),
    ]);
    expect(lines[0]).toMatch(/^name\s+unit\s+ours\s+peer\s+peer name\s+ratio\s+ceiling\s+of ceiling\s+note$/);
    expect(lines[2]).toMatch(/^matmul nn 512×512×512\s+GFLOP\/s ↑\s+4\.18\s+0\.314\s+tfjs-webgpu 4\.22\.0\s+13\.3×\s+6\.45\s+65%$/);
    expect(lines[3]).toMatch(/^step\s+ms ↓\s+—\s+23\.2\s+pytorch\s+—\s+—\s+—$/);
    expect(lines[2].indexOf('GFLOP/s')).toBe(lines[3].indexOf('ms ↓'));
    expect(lines.some((l) => l.startsWith('ratio: how many times better ours is'))).toBe(true);
  });

  it('formats numbers to three significant figures, with k/M/G from ten thousand up', () => {
    const figures = [9_710_703, 12_345, 1234.5, 12.345, 1.2345, 0.012345, 0, null];
    expect(figures.map(formatNumber)).toEqual(['9.71M', '12.3k', '1235', '12.3', '1.23', '0.0123', '0', '—']);
  });
});

describe('PyTorch peer', () => {
  it('without the Python it was told to use, it answers "unavailable" with what to install', async () => {
    const previous = process.env.HORIZON_PYTHON;
    process.env.HORIZON_PYTHON = '/nonexistent/python3';
    try {
      const outcome = await runTorchPeer({ timing: { warmup: 0, reps: 1 }, matmul: [] });
      expect(outcome).toEqual({ unavailable: 'unavailable: no /nonexistent/python3; install python3-torch (bash scripts/setup.sh --bench)' });
    } finally {
      if (previous === undefined) delete process.env.HORIZON_PYTHON;
      else process.env.HORIZON_PYTHON = previous;
    }
  });
});

describe('tfjs peer', () => {
  it('without its packages (dev dependencies), it answers "tfjs not installed" naming what is missing', () => {
    expect(tfjsMissing((name) => name !== '@tensorflow/tfjs-core')).toBe(
      'unavailable: tfjs not installed (@tensorflow/tfjs-core: dev dependencies of @horizon/node-runner; pnpm install without --prod)',
    );
    expect(tfjsMissing(() => true)).toBeUndefined();
    // Here, a dev install, they are all present.
    expect(tfjsMissing()).toBeUndefined();
  });
});

describe('jax-js peer', () => {
  it('without @jax-js/jax (a dev dependency), it answers "jax-js not installed"; in a dev install it resolves', () => {
    expect(jaxMissing(() => false)).toBe(
      'unavailable: jax-js not installed (@jax-js/jax: a dev dependency of @horizon/node-runner; pnpm install without --prod)',
    );
    expect(jaxMissing()).toBeUndefined();
  });
});

describe('memory growth', () => {
  const MiB = 2 ** 20;
  const at = (live: number, peak: number, rss: number, shape = '8 rollouts × T 16') => ({
    liveTensorBytes: live,
    peakTensorBytes: peak,
    rssBytes: rss * MiB,
    shape,
  });
  const flat = {
    baselineBytes: 100,
    afterDisposeBytes: 100,
    sft: at(500, 900, 300, ''),
    iterations: [at(700, 1000, 310), at(800, 1200, 320), at(800, 1200, 330), at(790, 1100, 300)],
    tailPeakBytes: 900,
    rssAfterCollection: true,
  };

  it('a trace flat between iterations of one shape, given back on dispose, has nothing to report; its peak is net of the baseline', () => {
    expect(memoryGrowth(flat)).toEqual([]);
    expect(sameShapePairs(flat)).toEqual([
      [1, 2],
      [1, 3],
    ]);
    expect(peakTensorBytes(flat)).toBe(1100);
  });

  it('names each kind of growth: live buffers, the peak, RSS past the slack, and buffers left after dispose', () => {
    const leaking = { ...flat, afterDisposeBytes: 164, iterations: [at(700, 1000, 310), at(800, 1200, 320), at(900, 1200, 330), at(800, 1300, 420)] };
    expect(memoryGrowth(leaking)).toEqual([
      'iteration 3 ended with 100 bytes more of GPU buffers live than iteration 2 (both 8 rollouts × T 16 after 8 rollouts × T 16)',
      'iteration 4 peaked 100 bytes of GPU buffers above iteration 2 (both 8 rollouts × T 16 after 8 rollouts × T 16)',
      'host RSS rose 100 MiB from iteration 2 (both 8 rollouts × T 16 after 8 rollouts × T 16) to iteration 4',
      '64 bytes of GPU buffers were still live after the trainer was disposed',
    ]);
  });

  it('RSS sampled after collections may rise 32 MiB between iterations of one shape; without collections, 96 MiB', () => {
    const rise = (mib: number, rssAfterCollection: boolean) => ({
      ...flat,
      rssAfterCollection,
      iterations: [at(700, 1000, 310), at(800, 1200, 320), at(800, 1200, 320 + mib)],
    });
    const rose = (mib: number) => [`host RSS rose ${mib} MiB from iteration 2 (both 8 rollouts × T 16 after 8 rollouts × T 16) to iteration 3`];
    expect(memoryGrowth(rise(32, true))).toEqual([]);
    expect(memoryGrowth(rise(33, true))).toEqual(rose(33));
    expect(memoryGrowth(rise(66, false))).toEqual([]);
    expect(memoryGrowth(rise(97, false))).toEqual(rose(97));
  });

  it('a longer batch may hold more, and the one after it both shapes: only windows with the same shapes are compared', () => {
    const T24 = '8 rollouts × T 24';
    const longer = {
      ...flat,
      iterations: [at(700, 1000, 310), at(800, 1200, 320), at(5000, 9000, 400, T24), at(800, 9800, 330), at(800, 1200, 330), at(800, 1300, 330)],
    };
    expect(sameShapePairs(longer)).toEqual([
      [1, 4],
      [1, 5],
    ]);
    expect(memoryGrowth(longer)).toEqual(['iteration 6 peaked 100 bytes of GPU buffers above iteration 2 (both 8 rollouts × T 16 after 8 rollouts × T 16)']);
  });
});
