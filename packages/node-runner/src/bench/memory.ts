// Memory per recipe: a short run of each recipe through the trainer itself (core's Trainer: SFT
// warm start, then RL iterations), with the peak bytes of GPU storage buffers (the runtime's
// peakTensorBytes: every tensor and view base `gpu.tensor`/`upload` makes; the pooled staging and
// cached uniform buffers are not counted) beside recipe/fits.ts's estimate of the same, and the
// process's host RSS. Each RL iteration is its own window (the peak is reset after each), so the
// trace also says whether memory grows from one iteration to the next — what a leak looks like —
// and whether disposing the trainer gives back every buffer it made.
//
// RSS is the whole process's (Node, V8's heap, Dawn, and on SwiftShader the device's buffers too),
// so it is "RSS while this recipe ran", not the recipe's own share.

import { checkRecipeFitsDevice, type Recipe, recipeVocabSize, resolveRecipe, Trainer } from '@horizon/core';
import type { Gpu } from '@horizon/kernels';
import { type BenchRow, makeRow } from './row.ts';
import type { BenchSection } from './section.ts';

const MiB = 2 ** 20;

/** One RL iteration's window: buffers live at its end, the most live during it, RSS at its end. */
export interface MemorySample {
  liveTensorBytes: number;
  peakTensorBytes: number;
  rssBytes: number;
}

export interface RecipeMemory {
  /** Live bytes before the trainer was made, and after it was disposed. */
  baselineBytes: number;
  afterDisposeBytes: number;
  /** The SFT warm start's window, then one per RL iteration. */
  sft: MemorySample;
  iterations: MemorySample[];
}

/**
 * RSS may rise this much from the second iteration to the last without counting as growth: V8
 * collects its heap when it chooses, so RSS moves by tens of MiB between two identical iterations.
 */
export const RSS_SLACK_BYTES = 64 * MiB;

/**
 * The bench's recipes: each algorithm family once, shortened (a warm start of a few steps, eval
 * off). PPO's critic warm-up is off, so every iteration runs both updates and iteration 2 is a fair
 * baseline for the later ones.
 */
const BENCH_RECIPES: readonly { preset: string; sets: string[] }[] = [
  { preset: 'add-ppo', sets: ['rl.criticWarmupSteps=0'] },
  { preset: 'add-grpo', sets: [] },
  { preset: 'add-kto', sets: [] },
  { preset: 'add-genac', sets: [] },
];

/** The recipe as the bench runs it: `sftSteps` warm-start steps, `iterations` RL iterations, no evaluation or checkpoints. */
export function shortRecipe(preset: string, sftSteps: number, iterations: number, extra: string[] = []): Recipe {
  const sets = [`sft.steps=${sftSteps}`, `rl.iterations=${iterations}`, 'eval.interval=0', 'eval.heldOutSize=8', 'eval.oodSize=4', ...extra];
  return resolveRecipe({ preset, sets }).recipe;
}

function sample(gpu: Gpu): MemorySample {
  return { liveTensorBytes: gpu.stats.liveTensorBytes, peakTensorBytes: gpu.stats.peakTensorBytes, rssBytes: process.memoryUsage().rss };
}

/** Runs the recipe to its end, sampling at the end of the warm start and of every RL iteration. */
export async function traceRecipeMemory(gpu: Gpu, recipe: Recipe): Promise<RecipeMemory> {
  const baselineBytes = gpu.stats.liveTensorBytes;
  gpu.resetPeakTensorBytes();
  const trainer = new Trainer(gpu, recipe);
  let sft: MemorySample | undefined;
  const iterations: MemorySample[] = [];
  try {
    await trainer.run({
      onMetrics: (phase) => {
        if (phase !== 'rl') return;
        // The first RL row closes the warm start's window too: its peak is the larger of both.
        if (iterations.length === 0) sft = sample(gpu);
        iterations.push(sample(gpu));
        gpu.resetPeakTensorBytes();
      },
    });
  } finally {
    trainer.dispose();
  }
  if (!sft) throw new Error(`memory bench: ${recipe.name} ran no RL iteration, so there is nothing to compare`);
  return { baselineBytes, afterDisposeBytes: gpu.stats.liveTensorBytes, sft, iterations };
}

/**
 * What grew, one sentence each; empty when nothing did. From the second iteration on (the first
 * makes the scoring and update buffers), neither the buffers live at an iteration's end nor its peak
 * may exceed the second iteration's, RSS may not rise by more than RSS_SLACK_BYTES, and disposing
 * the trainer must give back every buffer it made.
 */
export function memoryGrowth(m: RecipeMemory): string[] {
  const problems: string[] = [];
  if (m.iterations.length < 3) return [`only ${m.iterations.length} RL iterations: growth needs at least 3 to be judged`];
  const [, second, ...later] = m.iterations;
  later.forEach((it, i) => {
    const n = i + 3;
    if (it.liveTensorBytes > second.liveTensorBytes)
      problems.push(`iteration ${n} ended with ${bytes(it.liveTensorBytes - second.liveTensorBytes)} more of GPU buffers live than iteration 2`);
    if (it.peakTensorBytes > second.peakTensorBytes)
      problems.push(`iteration ${n} peaked ${bytes(it.peakTensorBytes - second.peakTensorBytes)} of GPU buffers above iteration 2`);
  });
  const rssRise = m.iterations[m.iterations.length - 1].rssBytes - second.rssBytes;
  if (rssRise > RSS_SLACK_BYTES) problems.push(`host RSS rose ${(rssRise / MiB).toFixed(0)} MiB from iteration 2 to the last`);
  if (m.afterDisposeBytes !== m.baselineBytes)
    problems.push(`${bytes(m.afterDisposeBytes - m.baselineBytes)} of GPU buffers were still live after the trainer was disposed`);
  return problems;
}

function signedMiB(n: number): string {
  return `${n >= 0 ? '+' : '−'}${(Math.abs(n) / MiB).toFixed(0)} MiB`;
}

/** Bytes for a person: exact under a MiB (a small leak reads as what it is), MiB above. */
function bytes(n: number): string {
  return Math.abs(n) < MiB ? `${n} bytes` : `${(n / MiB).toFixed(1)} MiB`;
}

export function peakTensorBytes(m: RecipeMemory): number {
  return Math.max(m.sft.peakTensorBytes, ...m.iterations.map((i) => i.peakTensorBytes));
}

export function memoryRowNames(recipe: string): { gpu: string; rss: string } {
  return { gpu: `memory, ${recipe}: peak GPU buffers`, rss: `memory, ${recipe}: host RSS (whole process)` };
}

export const memorySection: BenchSection = {
  name: 'memory',
  async run(ctx) {
    const rows: BenchRow[] = [];
    const iterations = ctx.quick ? 3 : 5;
    for (const { preset, sets } of BENCH_RECIPES) {
      const names = memoryRowNames(preset);
      if (!ctx.wants(names.gpu) && !ctx.wants(names.rss)) continue;
      const recipe = shortRecipe(preset, 20, iterations, sets);
      ctx.progress(`memory: ${preset}, 20 SFT steps and ${iterations} RL iterations`);
      const footprint = checkRecipeFitsDevice(recipe, recipeVocabSize(recipe), ctx.gpu.report.limits, {
        hostMemoryBytes: Number.MAX_SAFE_INTEGER,
        deviceInHostMemory: ctx.gpu.report.isSoftware,
      });
      const m = await traceRecipeMemory(ctx.gpu, recipe);
      const problems = memoryGrowth(m);
      const growth = problems.length === 0 ? `flat over iterations 2–${m.iterations.length}, all given back on dispose` : `grew: ${problems.join('; ')}`;
      const peakRss = Math.max(m.sft.rssBytes, ...m.iterations.map((i) => i.rssBytes));
      rows.push(
        {
          ...makeRow(names.gpu, 'MiB', peakTensorBytes(m) / MiB, { name: 'recipe/fits.ts estimate', value: footprint.deviceBytes / MiB }),
          note: `${growth}; the peer is fits.ts's upper bound (a ratio under 1: the run went past it)`,
        },
        {
          ...makeRow(names.rss, 'MiB', peakRss / MiB),
          note: `${signedMiB(m.iterations[m.iterations.length - 1].rssBytes - m.iterations[1].rssBytes)} from iteration 2 to ${m.iterations.length}`,
        },
      );
    }
    return rows;
  },
};
