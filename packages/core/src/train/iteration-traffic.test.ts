// The host↔GPU traffic of one RL iteration (perf/submits, perf/uploads, perf/readbacks and their
// bytes), on the default recipe's shape (add-ppo: 128 prompts, 4 epochs × 2 minibatches) and on
// add-grpo's, through the real Trainer from untrained weights. The sampling share is measured
// around the Generator and taken out, so what is pinned is the rest of the iteration: scoring,
// advantages and the update steps. On the GPU (SwiftShader in CI).
//
// HORIZON_PRINT_TRAFFIC=1 prints the measured figures.

import { testGpu } from '@horizon/kernels/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { MetricName } from '../metrics/glossary.ts';
import { Generator } from '../model/generate.ts';
import { resolveRecipe } from '../recipe/resolve.ts';
import { Trainer } from './trainer.ts';

/** The preset's RL shape as it is; no warm start, three iterations, no evaluation in between, no critic-only iterations. */
const SHORT = ['sft.steps=0', 'rl.iterations=3', 'eval.interval=0', 'eval.heldOutSize=1', 'eval.oodSize=1'];
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
async function measure(preset: keyof typeof SETS): Promise<{ total: Traffic; sampling: Traffic; seconds: number }[]> {
  const gpu = await testGpu();
  const { recipe } = resolveRecipe({ preset, sets: SETS[preset] });
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
      const iterations = await measure(preset);
      expect(iterations).toHaveLength(3);
      // The first iteration's sampling share also holds the evaluation before RL, outside the iteration.
      for (const [i, { total, sampling, seconds }] of iterations.entries()) {
        if (i === 0) continue;
        const rest = since(total, sampling);
        if (process.env.HORIZON_PRINT_TRAFFIC) {
          console.log(
            `TRAFFIC ${preset} iteration ${i}: ${seconds.toFixed(2)} s; total ${JSON.stringify(total)}; sampling ${JSON.stringify(sampling)}; rest ${JSON.stringify(rest)}`,
          );
        }
        expect(rest.readbacks).toBeGreaterThan(0);
      }
    }, 600_000);
  }
});
