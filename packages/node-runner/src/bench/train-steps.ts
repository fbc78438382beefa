// Whole training steps on the bench model: one SFT step (forward, backward, Adam) and one PPO
// minibatch update (policy and critic, clipped losses, AdamW), ms per step, ours (bench/ours.ts,
// the trainer's own code) beside tfjs and jax-js on the same device and PyTorch on the CPU; plus the steps'
// dispatch and submit counts, attention forward+backward and generation throughput.

import { attentionCost, generationTokensPerSecond, ppoStepCost, sftStepCost, stepPositions } from './ours.ts';
import { jaxPeer } from './peers/jax.ts';
import { jaxTinyGptStepMs } from './peers/jax-gpt.ts';
import { tfjsTinyGptStepMs } from './peers/tfjs-gpt.ts';
import { type BenchRow, makeRow, type PeerFigure } from './row.ts';
import type { BenchSection } from './section.ts';
import { type BenchModelShape, describeModelShape } from './shapes.ts';
import type { TimingOptions } from './timing.ts';

export function gptStepName(shape: BenchModelShape): string {
  return `tiny-GPT train step (fwd+bwd+Adam) ${describeModelShape(shape)}`;
}

export function ppoStepName(shape: BenchModelShape): string {
  return `PPO update step (policy+critic, clipped losses, AdamW) ${describeModelShape(shape)}`;
}

/** One row per peer; `oursMs` null while our step does not exist (the row says so). */
export function gptStepRows(shape: BenchModelShape, oursMs: number | null, peers: PeerFigure[]): BenchRow[] {
  return peers.map((peer) => stepRow(gptStepName(shape), oursMs, peer));
}

export function ppoStepRows(shape: BenchModelShape, oursMs: number | null, peers: PeerFigure[]): BenchRow[] {
  return peers.map((peer) => stepRow(ppoStepName(shape), oursMs, peer));
}

function stepRow(name: string, oursMs: number | null, peer: PeerFigure): BenchRow {
  return makeRow(name, 'ms', oursMs, peer);
}

/** tfjs took about 11 s per step here, so its steps are few (its checked first step is the warm-up); PyTorch's take milliseconds. */
const TFJS_TIMING: Record<'quick' | 'full', TimingOptions> = {
  quick: { warmup: 0, reps: 1 },
  full: { warmup: 0, reps: 3, budgetMs: 30_000 },
};
/** jax-js took about 2 s a step here, after a first step (jit's compilation) of about 30 s; its two checked steps are the warm-up. */
const JAX_TIMING: Record<'quick' | 'full', TimingOptions> = {
  quick: { warmup: 0, reps: 1 },
  full: { warmup: 0, reps: 5, budgetMs: 20_000 },
};
const TORCH_TIMING: TimingOptions = { warmup: 2, reps: 10, budgetMs: 3_000 };
const OUR_TIMING: Record<'quick' | 'full', TimingOptions> = {
  quick: { warmup: 1, reps: 3 },
  full: { warmup: 2, reps: 10, budgetMs: 10_000 },
};

export const trainStepSection: BenchSection = {
  name: 'training steps',
  async run(ctx) {
    const { shape } = ctx;
    const wantGpt = ctx.wants(gptStepName(shape));
    const wantPpo = ctx.wants(ppoStepName(shape));
    if (!wantGpt && !wantPpo && !ctx.wants('attention') && !ctx.wants('generation')) return [];
    ctx.progress('training steps: PyTorch peer');
    const torch = await ctx.torch({
      timing: TORCH_TIMING,
      matmul: [],
      ...(wantGpt ? { gptStep: shape } : {}),
      ...(wantPpo ? { ppoStep: shape } : {}),
    });
    const torchFigure = (step: 'gptStep' | 'ppoStep'): PeerFigure => {
      if ('unavailable' in torch) return { name: 'pytorch cpu', unavailable: torch.unavailable };
      const s = torch[step];
      return s ? { name: torch.name, value: s.ms } : { name: torch.name, unavailable: 'unavailable: the PyTorch peer returned no figure' };
    };
    const rows: BenchRow[] = [];
    const ourTiming = ctx.quick ? OUR_TIMING.quick : OUR_TIMING.full;
    if (wantGpt) {
      ctx.progress('training steps: ours (SFT step)');
      const sft = await sftStepCost(ctx.gpu, shape, ourTiming);
      const tokens = shape.batch * stepPositions(shape);
      ctx.progress('training steps: tfjs tiny GPT (about 10 s a step on SwiftShader)');
      const peer = await ctx.tfjs();
      const tfjs: PeerFigure =
        typeof peer === 'string'
          ? { name: 'tfjs-webgpu', unavailable: peer }
          : { name: peer.name, value: await tfjsTinyGptStepMs(peer, shape, ctx.quick ? TFJS_TIMING.quick : TFJS_TIMING.full) };
      ctx.progress('training steps: jax-js tiny GPT (a 30 s jit compile, then about 2 s a step on SwiftShader)');
      const jaxLoaded = await jaxPeer(ctx.gpu.report);
      const jax: PeerFigure =
        typeof jaxLoaded === 'string'
          ? { name: 'jax-js-webgpu', unavailable: jaxLoaded }
          : { name: jaxLoaded.name, value: await jaxTinyGptStepMs(jaxLoaded, shape, ctx.quick ? JAX_TIMING.quick : JAX_TIMING.full) };
      rows.push(
        ...gptStepRows(shape, sft.ms, [tfjs, jax, torchFigure('gptStep')]),
        makeRow(`SFT step throughput ${describeModelShape(shape)}`, 'tokens/s', tokens / (sft.ms / 1000)),
        makeRow(`dispatches per SFT step ${describeModelShape(shape)}`, 'count', sft.dispatches),
        makeRow(`submits per SFT step ${describeModelShape(shape)}`, 'count', sft.submits),
      );
    }
    if (wantPpo) {
      ctx.progress('training steps: ours (PPO update step)');
      const ppo = await ppoStepCost(ctx.gpu, shape, ourTiming);
      rows.push(
        ...ppoStepRows(shape, ppo.ms, [torchFigure('ppoStep')]),
        makeRow(`dispatches per PPO update step ${describeModelShape(shape)}`, 'count', ppo.dispatches),
        makeRow(`submits per PPO update step ${describeModelShape(shape)}`, 'count', ppo.submits),
      );
    }
    const attentionName = `attention fwd+bwd ${describeModelShape(shape)} H${shape.model.heads}`;
    if (ctx.wants(attentionName)) rows.push(makeRow(attentionName, 'ms', await attentionCost(ctx.gpu, shape, ourTiming)));
    const generationName = `generation with KV cache ${describeModelShape(shape)}`;
    if (ctx.wants(generationName)) rows.push(makeRow(generationName, 'tokens/s', await generationTokensPerSecond(ctx.gpu, shape, ourTiming)));
    return rows;
  },
};
