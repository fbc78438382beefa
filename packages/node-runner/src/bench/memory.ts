// Memory per recipe: a short run of each recipe through the trainer itself (core's Trainer: SFT
// warm start, then RL iterations), with the peak bytes of GPU storage buffers the run added (the
// runtime's peakTensorBytes less what was live before: every tensor and view base
// `gpu.tensor`/`upload` makes; the pooled staging and cached uniform buffers are not counted) beside
// recipe/fits.ts's estimate of the same, and the process's host RSS. Each RL iteration is its own
// window (the peak is reset after each), so the trace also says whether memory grows from one
// iteration to the next — what a leak looks like — and whether disposing the trainer gives back
// every buffer it made.
//
// Growth is judged between iterations of the same batch shapes only: the trainer keeps buffers per
// shape (rows × training positions) and sweeps the shapes an iteration did not use
// (util/shape-cache.ts), so an iteration whose longest rollout is longer holds more without
// leaking, and the iteration after a change of shape holds both shapes until the sweep. In the
// first bench runs, add-ppo's iteration 4 ended with 15.6 MiB more live than iteration 2 (a longer
// batch), and its iteration 5, back at iteration 2's shape after iteration 4's, peaked 55.2 MiB
// higher (both shapes at once) while ending with the same bytes live. So two windows are compared
// when they trained the same shape after the same shape.
//
// RSS is the whole process's (Node, V8's heap, Dawn, and on SwiftShader the device's buffers too),
// so it is "RSS while this recipe ran", not the recipe's own share. Each sample is taken after a full
// garbage collection where the runtime offers one (full-gc.ts), so it counts what the process holds,
// not what V8 has yet to collect.

import { checkRecipeFitsDevice, type Recipe, recipeVocabSize, resolveRecipe, Trainer, trainingLength } from '@horizon/core';
import type { Gpu } from '@horizon/kernels';
import { fullGc } from './full-gc.ts';
import { type BenchRow, makeRow } from './row.ts';
import type { BenchSection } from './section.ts';

const MiB = 2 ** 20;

/** One window: buffers live at its end, the most live during it, RSS at its end, and the batch shape it trained. */
export interface MemorySample {
  liveTensorBytes: number;
  peakTensorBytes: number;
  rssBytes: number;
  /** e.g. "64 rollouts × T 16"; empty for the warm start's window. */
  shape: string;
}

export interface RecipeMemory {
  /** Live bytes before the trainer was made, and after it was disposed. */
  baselineBytes: number;
  afterDisposeBytes: number;
  /** The SFT warm start's window, then one per RL iteration. */
  sft: MemorySample;
  iterations: MemorySample[];
  /** The peak after the last iteration's row: the final evaluation. */
  tailPeakBytes: number;
  /** Whether each RSS sample followed a full garbage collection (Node: yes; Deno: no). */
  rssAfterCollection: boolean;
}

/**
 * RSS may rise this much between two iterations of one shape without counting as growth. After a
 * full collection, 40 tiny PPO iterations of one process stayed within 228–246 MiB; without one,
 * V8's uncollected heap moves RSS by tens of MiB between identical iterations (66 MiB once in CI).
 */
export const RSS_SLACK_BYTES = 32 * MiB;
export const RSS_SLACK_UNCOLLECTED_BYTES = 96 * MiB;

/**
 * The bench's recipes: each algorithm family once, shortened (a warm start of a few steps, eval
 * off). PPO's critic warm-up is off, so every iteration runs both updates and iterations of one
 * shape are alike.
 */
const BENCH_RECIPES: readonly { preset: string; sets: string[] }[] = [
  { preset: 'add-ppo', sets: ['rl.criticWarmupSteps=0'] },
  { preset: 'add-grpo', sets: [] },
  { preset: 'add-kto', sets: [] },
  { preset: 'add-genac', sets: [] },
];

/**
 * The recipe as the bench runs it: `sftSteps` warm-start steps, `iterations` RL iterations, no
 * periodic evaluation or checkpoints; every rollout handed to onSamples, for the batch shape.
 */
export function shortRecipe(preset: string, sftSteps: number, iterations: number, extra: string[] = []): Recipe {
  const sets = [
    `sft.steps=${sftSteps}`,
    `rl.iterations=${iterations}`,
    'eval.interval=0',
    'eval.heldOutSize=8',
    'eval.oodSize=4',
    'log.allSamples=true',
    ...extra,
  ];
  return resolveRecipe({ preset, sets }).recipe;
}

function sample(gpu: Gpu): MemorySample {
  fullGc();
  return { liveTensorBytes: gpu.stats.liveTensorBytes, peakTensorBytes: gpu.stats.peakTensorBytes, rssBytes: process.memoryUsage().rss, shape: '' };
}

/** Runs the recipe to its end, sampling at the end of the warm start and of every RL iteration. */
export async function traceRecipeMemory(gpu: Gpu, recipe: Recipe): Promise<RecipeMemory> {
  const baselineBytes = gpu.stats.liveTensorBytes;
  gpu.resetPeakTensorBytes();
  const trainer = new Trainer(gpu, recipe);
  let sft: MemorySample | undefined;
  const iterations: MemorySample[] = [];
  let tailPeakBytes = 0;
  try {
    await trainer.run({
      onMetrics: (phase) => {
        if (phase !== 'rl') return;
        // The first RL row closes the warm start's window too: its peak is the larger of both.
        if (iterations.length === 0) sft = sample(gpu);
        iterations.push(sample(gpu));
        gpu.resetPeakTensorBytes();
      },
      // Called after the iteration's metrics row, with every rollout (log.allSamples).
      onSamples: (phase, _step, samples) => {
        const last = iterations.at(-1);
        if (phase !== 'rl' || !last) return;
        const longest = Math.max(...samples.map((s) => s.sample.tokens.length));
        last.shape = `${samples.length} rollouts × T ${trainingLength(longest, recipe.model.contextLength)}`;
      },
    });
    tailPeakBytes = gpu.stats.peakTensorBytes;
  } finally {
    trainer.dispose();
  }
  if (!sft) throw new Error(`memory bench: ${recipe.name} ran no RL iteration, so there is nothing to compare`);
  return { baselineBytes, afterDisposeBytes: gpu.stats.liveTensorBytes, sft, iterations, tailPeakBytes, rssAfterCollection: fullGc() };
}

/**
 * Pairs (first, later) of RL iterations that trained the same shape after the same shape (what
 * their windows hold), the first iteration left out (it makes the update buffers).
 */
export function sameShapePairs(m: RecipeMemory): [number, number][] {
  const pairs: [number, number][] = [];
  const firstOfShape = new Map<string, number>();
  m.iterations.forEach((it, i) => {
    if (i === 0) return;
    const key = `${m.iterations[i - 1].shape}\u0000${it.shape}`;
    const first = firstOfShape.get(key);
    if (first === undefined) firstOfShape.set(key, i);
    else pairs.push([first, i]);
  });
  return pairs;
}

/**
 * What grew, one sentence each; empty when nothing did. Of two iterations with one shape (after
 * the first), the later may end with no more GPU buffers live, peak no higher, and hold at most
 * the RSS slack more (RSS_SLACK_BYTES after collections, RSS_SLACK_UNCOLLECTED_BYTES without);
 * and disposing the trainer must give back every buffer it made.
 */
export function memoryGrowth(m: RecipeMemory): string[] {
  const problems: string[] = [];
  const rssSlack = m.rssAfterCollection ? RSS_SLACK_BYTES : RSS_SLACK_UNCOLLECTED_BYTES;
  for (const [a, b] of sameShapePairs(m)) {
    const [first, later] = [m.iterations[a], m.iterations[b]];
    const than = `iteration ${a + 1} (both ${first.shape} after ${m.iterations[a - 1].shape})`;
    if (later.liveTensorBytes > first.liveTensorBytes)
      problems.push(`iteration ${b + 1} ended with ${bytes(later.liveTensorBytes - first.liveTensorBytes)} more of GPU buffers live than ${than}`);
    if (later.peakTensorBytes > first.peakTensorBytes)
      problems.push(`iteration ${b + 1} peaked ${bytes(later.peakTensorBytes - first.peakTensorBytes)} of GPU buffers above ${than}`);
    if (later.rssBytes - first.rssBytes > rssSlack)
      problems.push(`host RSS rose ${((later.rssBytes - first.rssBytes) / MiB).toFixed(0)} MiB from ${than} to iteration ${b + 1}`);
  }
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

/** The most bytes of GPU buffers the run had live at once beyond what was live before it. */
export function peakTensorBytes(m: RecipeMemory): number {
  return Math.max(m.sft.peakTensorBytes, m.tailPeakBytes, ...m.iterations.map((i) => i.peakTensorBytes)) - m.baselineBytes;
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
      const pairs = sameShapePairs(m).length;
      const shapes = new Set(m.iterations.map((i) => i.shape)).size;
      const judged = `${pairs} pair${pairs === 1 ? '' : 's'} of iterations with the same shapes, ${shapes} shape${shapes === 1 ? '' : 's'} in all`;
      const growth = problems.length === 0 ? `no growth over ${judged}, all given back on dispose` : `grew (${judged}): ${problems.join('; ')}`;
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
