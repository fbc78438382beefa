// Whole training steps on the bench model: one SFT step (forward, backward, Adam) and one PPO
// minibatch update (policy and critic, clipped losses, AdamW), ms per step. Ours runs on the GPU
// once the GPT training step exists (issue 3; the lead is assembling it): until then these rows
// carry the peers' figures alone, and plugging ours in is passing its ms to `gptStepRows` /
// `ppoStepRows`.

import { tfjsTinyGptStepMs } from './peers/tfjs-gpt.ts';
import { type BenchRow, makeRow, type PeerFigure } from './row.ts';
import type { BenchSection } from './sections.ts';
import { type BenchModelShape, describeModelShape } from './shapes.ts';
import type { TimingOptions } from './timing.ts';

const NOT_BUILT = 'ours: the GPU training step is not built yet (issue 3)';

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
  const row = makeRow(name, 'ms', oursMs, peer);
  if (oursMs === null) row.note = row.note ? `${NOT_BUILT}; ${row.note}` : NOT_BUILT;
  return row;
}

/** tfjs took about 11 s per step here, so its steps are few (its checked first step is the warm-up); PyTorch's take milliseconds. */
const TFJS_TIMING: Record<'quick' | 'full', TimingOptions> = {
  quick: { warmup: 0, reps: 1 },
  full: { warmup: 0, reps: 3, budgetMs: 30_000 },
};
const TORCH_TIMING: TimingOptions = { warmup: 2, reps: 10, budgetMs: 3_000 };

export const trainStepSection: BenchSection = {
  name: 'training steps',
  async run(ctx) {
    const { shape } = ctx;
    const wantGpt = ctx.wants(gptStepName(shape));
    const wantPpo = ctx.wants(ppoStepName(shape));
    if (!wantGpt && !wantPpo) return [];
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
    if (wantGpt) {
      ctx.progress('training steps: tfjs tiny GPT (about 10 s a step on SwiftShader)');
      const peer = await ctx.tfjs();
      const tfjs: PeerFigure =
        typeof peer === 'string'
          ? { name: 'tfjs-webgpu', unavailable: peer }
          : { name: peer.name, value: await tfjsTinyGptStepMs(peer, shape, ctx.quick ? TFJS_TIMING.quick : TFJS_TIMING.full) };
      rows.push(...gptStepRows(shape, null, [tfjs, torchFigure('gptStep')]));
    }
    if (wantPpo) rows.push(...ppoStepRows(shape, null, [torchFigure('ppoStep')]));
    return rows;
  },
};
