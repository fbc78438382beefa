// Attention at the agent tasks' lengths: at T = 64, 128 and 256 — the contexts of
// stream-ppo (64), hidden-ppo (192) and hidden-opid (256) — one training step's attention
// forward+backward (every layer), beside the same step's matmuls (every linear layer's forward,
// input gradient and weight gradient, and the head's) and the whole SFT step, so the table says
// whether attention dominates there. The model is the agent presets' policy (hidden-ppo's), the
// batch one update minibatch of theirs: 16 rollouts in 2 minibatches, 8 rows (hidden-opid trains 8).
// Every attention result is checked against the float64 reference before its time is reported.
//
// Shape legend: B batch · T tokens · D width · H heads · L layers · V vocabulary

import { CharTokenizer, type GptConfig, HIDDEN_TEST_FS_VOCABULARY, resolveRecipe } from '@horizon/core';
import {
  attentionBackwardRef,
  attentionForwardRef,
  compareArrays,
  describeMismatch,
  type Gpu,
  type Recorder,
  recordAttentionBackward,
  recordAttentionForward,
  recordMatmul,
  SeededRandom,
} from '@horizon/kernels';
import { sftStepCost } from './ours.ts';
import { type BenchRow, makeRow } from './row.ts';
import type { BenchSection } from './section.ts';
import { type BenchModelShape, describeModelShape, modelMatmulCases } from './shapes.ts';
import { type TimingOptions, timeGpu } from './timing.ts';

export const AGENT_LENGTHS = [64, 128, 256] as const;
/** One update minibatch of the agent presets: 16 rollouts per iteration in 2 minibatches. */
export const AGENT_BATCH = 8;
const TIMING: Record<'quick' | 'full', TimingOptions> = {
  quick: { warmup: 1, reps: 3, budgetMs: 2_000 },
  full: { warmup: 2, reps: 10, budgetMs: 5_000 },
};

/** The agent presets' policy at context T (width, heads and layers as hidden-ppo resolves them). */
export function agentShape(T: number): BenchModelShape {
  const { recipe } = resolveRecipe({ preset: 'hidden-ppo' });
  const model: GptConfig = {
    vocabSize: new CharTokenizer(HIDDEN_TEST_FS_VOCABULARY).vocabSize,
    contextLength: T,
    ...recipe.model.policy,
    head: 'lm',
  };
  return { model, batch: AGENT_BATCH };
}

export function attentionLengthNames(shape: BenchModelShape): { attention: string; matmuls: string; step: string } {
  const s = describeModelShape(shape);
  return {
    attention: `agent length: attention fwd+bwd, all layers ${s}`,
    matmuls: `agent length: linear layers of the same step (fwd, dX, dW; all layers and head) ${s}`,
    step: `agent length: whole SFT step (fwd+bwd+Adam) ${s}`,
  };
}

export const attentionLengthSection: BenchSection = {
  name: 'attention at agent lengths',
  async run(ctx) {
    const rows: BenchRow[] = [];
    const timing = ctx.quick ? TIMING.quick : TIMING.full;
    for (const T of AGENT_LENGTHS) {
      const shape = agentShape(T);
      const names = attentionLengthNames(shape);
      if (!Object.values(names).some((n) => ctx.wants(n))) continue;
      ctx.progress(`attention at agent lengths: T=${T}`);
      const attention = await attentionStepMs(ctx.gpu, shape, timing);
      const matmuls = await matmulStepMs(ctx.gpu, shape, timing);
      const step = ctx.wants(names.step) ? (await sftStepCost(ctx.gpu, shape, timing)).ms : null;
      const share = `${((100 * attention) / (attention + matmuls)).toFixed(0)}% of attention + matmul time`;
      const ofStep = step === null ? '' : `, ${((100 * attention) / step).toFixed(0)}% of the whole step`;
      if (ctx.wants(names.attention)) rows.push({ ...makeRow(names.attention, 'ms', attention), note: share + ofStep });
      if (ctx.wants(names.matmuls)) rows.push({ ...makeRow(names.matmuls, 'ms', matmuls), note: `${((100 * matmuls) / (attention + matmuls)).toFixed(0)}%` });
      if (step !== null) rows.push(makeRow(names.step, 'ms', step));
    }
    return rows;
  },
};

/** Every layer's attention forward and backward in one submit, after checking one layer's results against the float64 reference. */
async function attentionStepMs(gpu: Gpu, { model, batch: B }: BenchModelShape, timing: TimingOptions): Promise<number> {
  const { width: D, heads: H, contextLength: T, layers: L } = model;
  const s = { B, T, H, D };
  const rng = new SeededRandom(T);
  const qkvHost = rng.uniformArray(B * T * 3 * D, -2, 2);
  const doutHost = rng.uniformArray(B * T * D);
  const qkv = gpu.upload(qkvHost, [B, T, 3 * D], 'bench.qkv'); // [B, T, 3D]
  const out = gpu.tensor([B, T, D], 'f32', 'bench.out'); // [B, T, D]
  const att = gpu.tensor([B, H, T, T], 'f32', 'bench.att'); // [B, H, T, T]
  const dout = gpu.upload(doutHost, [B, T, D], 'bench.dout'); // [B, T, D]
  const dqkv = gpu.tensor([B, T, 3 * D], 'f32', 'bench.dqkv'); // [B, T, 3D]
  const layer = (rec: Recorder) => {
    recordAttentionForward(rec, gpu, { qkv, out, att }, s);
    recordAttentionBackward(rec, gpu, { qkv, att, out, dout, dqkv }, s);
  };
  try {
    gpu.run(layer, 'bench attention check');
    const want = attentionForwardRef(qkvHost, s);
    check(`attention out T=${T}`, await gpu.read(out), want.out);
    check(`attention dqkv T=${T}`, await gpu.read(dqkv), attentionBackwardRef(qkvHost, want.att, doutHost, s));
    const { medianMs } = await timeGpu(
      gpu,
      (rec) => {
        for (let l = 0; l < L; l++) layer(rec);
      },
      timing,
    );
    return medianMs;
  } finally {
    for (const t of [qkv, out, att, dout, dqkv]) gpu.destroy(t);
  }
}

function check(name: string, got: ArrayLike<number>, want: ArrayLike<number>): void {
  const m = compareArrays(got, want);
  if (!(m.relativeError <= 1e-4) || m.nonFinite > 0) throw new Error(`bench ${describeMismatch(name, m)}`);
}

/**
 * The step's matmuls in one submit: per layer the attention input (D → 3D) and output (D → D)
 * projections and the MLP's two (modelMatmulCases), each forward, dX and dW; the head once. Their
 * results are checked by the matmul rows (matmul.ts) and the model's golden tests.
 */
async function matmulStepMs(gpu: Gpu, shape: BenchModelShape, timing: TimingOptions): Promise<number> {
  const { width: D, layers: L } = shape.model;
  const N = shape.batch * shape.model.contextLength;
  const perLayer = [
    ...modelMatmulCases(shape).filter((c) => !c.role.startsWith('lm_head')),
    ...[3 * D, D].flatMap((out) => [
      { M: N, K: D, N: out, layout: 'nt' as const },
      { M: N, K: out, N: D, layout: 'nn' as const },
      { M: out, K: N, N: D, layout: 'tn' as const },
    ]),
  ];
  const head = modelMatmulCases(shape).filter((c) => c.role.startsWith('lm_head'));
  const cases = [...Array.from({ length: L }, () => perLayer).flat(), ...head];
  const rng = new SeededRandom(N);
  const buffers = cases.map((c) => ({
    a: gpu.upload(rng.uniformArray(c.M * c.K), [c.M * c.K], 'bench.A'), // op(A): [M, K] f32
    b: gpu.upload(rng.uniformArray(c.K * c.N), [c.K * c.N], 'bench.B'), // op(B): [K, N] f32
    c: gpu.tensor([c.M, c.N], 'f32', 'bench.C'), // C: [M, N] f32
  }));
  try {
    const { medianMs } = await timeGpu(
      gpu,
      (rec) => {
        cases.forEach((c, i) => {
          recordMatmul(rec, gpu, buffers[i], { M: c.M, K: c.K, N: c.N, layout: c.layout });
        });
      },
      timing,
    );
    return medianMs;
  } finally {
    for (const b of buffers) for (const t of Object.values(b)) gpu.destroy(t);
  }
}
