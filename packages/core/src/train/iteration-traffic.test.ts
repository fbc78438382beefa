// The host↔GPU traffic of one RL iteration (perf/submits, perf/uploads, perf/readbacks and their
// bytes), on the default recipe's shape (add-ppo: 128 prompts, 4 epochs × 2 minibatches) and on
// add-grpo's, through the real Trainer from untrained weights. The sampling share is measured
// around the Generator and taken out, so what is pinned is the rest of the iteration: scoring (one
// submit, one readback), the method's advantages (one submit, one readback) and the optimizer steps
// (one submit and one metrics readback each), with the batch uploaded once — per step only the
// optimizer's own hyperparameters go up (model/optimizer.ts). On the GPU (SwiftShader in CI).
//
// HORIZON_PRINT_TRAFFIC=1 prints the measured figures.

import { testGpu } from '@horizon/kernels/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { MetricName } from '../metrics/glossary.ts';
import { Generator } from '../model/generate.ts';
import { resolveRecipe } from '../recipe/resolve.ts';
import type { Recipe } from '../recipe/schema.ts';
import { Trainer } from './trainer.ts';

/** The preset's RL shape as it is; no warm start, two iterations, no evaluation in between, no critic-only iterations. */
const SHORT = ['sft.steps=0', 'rl.iterations=2', 'eval.interval=0', 'eval.heldOutSize=1', 'eval.oodSize=1'];
const SETS: Record<'add-ppo' | 'add-grpo', string[]> = { 'add-ppo': [...SHORT, 'rl.criticWarmupSteps=0'], 'add-grpo': SHORT };

interface Traffic {
  submits: number;
  uploads: number;
  uploadBytes: number;
  readbacks: number;
  readbackBytes: number;
}

const ZERO: Traffic = { submits: 0, uploads: 0, uploadBytes: 0, readbacks: 0, readbackBytes: 0 };

/** Each RL iteration's traffic: the whole iteration, and its sampling share. */
async function measure(recipe: Recipe): Promise<{ total: Traffic; sampling: Traffic; seconds: number }[]> {
  const gpu = await testGpu();
  let sampling = { ...ZERO };
  const generate = Generator.prototype.generate;
  vi.spyOn(Generator.prototype, 'generate').mockImplementation(async function (this: Generator, ...args) {
    const before = { ...gpu.stats };
    try {
      return await generate.apply(this, args);
    } finally {
      sampling = add(sampling, since(gpu.stats, before));
    }
  });
  const iterations: { total: Traffic; sampling: Traffic; seconds: number }[] = [];
  const trainer = new Trainer(gpu, recipe);
  try {
    await trainer.run({
      onMetrics: (phase, _step, m) => {
        if (phase !== 'rl') return;
        iterations.push({ total: fromMetrics(m), sampling, seconds: m['perf/iteration_s'] as number });
        sampling = { ...ZERO };
      },
    });
  } finally {
    trainer.dispose();
  }
  return iterations;
}

function fromMetrics(m: Partial<Record<MetricName, number>>): Traffic {
  return {
    submits: m['perf/submits'] as number,
    uploads: m['perf/uploads'] as number,
    uploadBytes: m['perf/upload_bytes'] as number,
    readbacks: m['perf/readbacks'] as number,
    readbackBytes: m['perf/readback_bytes'] as number,
  };
}

function since(now: Traffic, before: Traffic): Traffic {
  return {
    submits: now.submits - before.submits,
    uploads: now.uploads - before.uploads,
    uploadBytes: now.uploadBytes - before.uploadBytes,
    readbacks: now.readbacks - before.readbacks,
    readbackBytes: now.readbackBytes - before.readbackBytes,
  };
}

function add(a: Traffic, b: Traffic): Traffic {
  return since(a, since(ZERO, b));
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('host↔GPU traffic of an RL iteration', () => {
  for (const preset of ['add-ppo', 'add-grpo'] as const) {
    it(`${preset}: per iteration, sampling apart`, async () => {
      const { recipe } = resolveRecipe({ preset, sets: SETS[preset] });
      const { rl } = recipe;
      const B = rl.promptsPerIteration * rl.groupSize;
      const steps = rl.epochs * rl.minibatches * (rl.algorithm === 'ppo' ? rl.criticUpdates + 1 : 1);
      // Score: tokens in and out, mask, log π_roll; GAE: token rewards, bootstrap, λ, info; groups: rollout rewards, group ids; the scales.
      const batchUploads = 4 + (rl.algorithm === 'ppo' ? 4 : 2) + 1;
      const iterations = await measure(recipe);
      expect(iterations).toHaveLength(2);
      // The first iteration's sampling share also holds the evaluation before RL, outside the iteration.
      for (const [i, { total, sampling, seconds }] of iterations.entries()) {
        if (i === 0) continue;
        const rest = since(total, sampling);
        if (process.env.HORIZON_PRINT_TRAFFIC) {
          console.log(
            `TRAFFIC ${preset} iteration ${i}: ${seconds.toFixed(2)} s; total ${JSON.stringify(total)}; sampling ${JSON.stringify(sampling)}; rest ${JSON.stringify(rest)}`,
          );
        }
        expect(rest.submits).toBe(2 + 2 + 2 * steps);
        expect(rest.readbacks).toBe(1 + 1 + steps);
        expect(rest.uploads).toBe(batchUploads + steps);
        // A handful of [B, T] arrays at most, T ≤ the context length: not one set per minibatch.
        expect(rest.uploadBytes).toBeLessThan(6 * B * recipe.model.contextLength * 4);
      }
    }, 600_000);
  }
});
