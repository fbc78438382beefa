// Off-policy distillation, the baseline that on-policy distillation is measured against: the
// teachers write completions for the very prompts the distilled student sees, each prompt
// answered by the teacher `distill.route` sends it to, and the student learns them by next-token
// cross-entropy ("supervised KD" on teacher-generated outputs in Agarwal et al. 2024, GKD,
// arXiv:2306.13649). The updates are the distilled arm's: per iteration its `promptsPerIteration`
// completions, `rl.epochs` passes of `rl.minibatches` minibatches (shuffled by the same stream), a
// fresh AdamW at `rl.policyLr`; so who wrote the samples, and the loss, are the only differences.
//
// Left out: filtering the teachers' completions by correctness (rejection sampling). A completion
// the teacher did not end with <eos> has no end to imitate and is dropped; the page counts them.

import {
  AdamW,
  type Checkpoint,
  collectRollouts,
  Generator,
  GpuSampler,
  loadTeachers,
  minibatchBounds,
  mixSeed,
  rolloutLimits,
  type SftExample,
  SftStepper,
  STREAM,
  sftBatch,
  shuffled,
  Trainer,
} from '@horizon/core';
import type { Gpu } from '@horizon/kernels';
import { RunDirTeacherSource } from '../run/teacher-source.ts';
import { evaluateWithSkills } from './evaluate-skills.ts';
import type { PlannedRun } from './plan.ts';
import type { CurvePoint } from './results.ts';
import type { ArmOutcome } from './run-arm.ts';

/** Philox streams of the teachers' samplers (teacher k uses EXPERT_STREAM + k), apart from the trainer's. */
const EXPERT_STREAM = 40;

export async function runExpertSft(gpu: Gpu, run: PlannedRun, warm: Checkpoint): Promise<ArmOutcome> {
  const { recipe } = run;
  const { rl } = recipe;
  const trainer = new Trainer(gpu, recipe, { teachers: await loadTeachers(recipe, new RunDirTeacherSource()) });
  const router = trainer.teachers;
  if (!router) throw new RangeError(`arm ${run.arm.name} is expert-sft but its recipe's method (${rl.algorithm}) declares no teachers`);
  const { task, tokenizer } = trainer;
  const generators = router.models.map((model) => new Generator(model));
  const samplers = generators.map((g, k) => new GpuSampler(g, tokenizer, { temperature: rl.temperature, topK: rl.topK }, EXPERT_STREAM + k));
  const optimizer = new AdamW(trainer.policy);
  const stepper = new SftStepper(gpu, trainer.policy, optimizer);
  const options = { lr: rl.policyLr, ...recipe.optim, gradClip: rl.gradClip };
  const limits = rolloutLimits(recipe, 'train');
  const curve: CurvePoint[] = [];
  const totals = { kept: 0, dropped: 0 };
  let sampledTokens = 0;
  const started = performance.now();

  const evaluate = async (iteration: number) => {
    const point = await evaluateWithSkills(trainer, iteration);
    curve.push({ iteration, sampledTokens, ...point, seconds: (performance.now() - started) / 1000 });
  };

  /** The teachers' completions of iteration `iteration`'s prompts, each from its routed teacher. */
  const expertExamples = async (iteration: number): Promise<SftExample[]> => {
    const requests = () =>
      Array.from({ length: rl.promptsPerIteration }, (_, i) => ({
        env: task.createEnv('train'),
        seed: task.trainSeed(recipe.seed, iteration * rl.promptsPerIteration + i),
        rolloutId: i,
        groupId: i,
      }));
    // Every teacher answers every prompt (a prompt's skill is known once its episode ran); the routed one's answer is kept.
    const byTeacher = [];
    for (const [k, sampler] of samplers.entries()) {
      sampler.reseed(recipe.seed, EXPERT_STREAM + k, iteration);
      byTeacher.push(await collectRollouts(requests(), tokenizer, sampler, limits));
    }
    const examples: SftExample[] = [];
    for (const [i, first] of byTeacher[0].entries()) {
      const sample = byTeacher[router.indexFor(first)][i];
      const turn = sample.turns[0];
      if (sample.failure || !turn || turn.ending !== 'eos') {
        totals.dropped++;
        continue;
      }
      sampledTokens += sample.actionMask.reduce((a, m) => a + m, 0);
      examples.push({ prompt: sample.prompt, completion: turn.action });
    }
    totals.kept += examples.length;
    return examples;
  };

  try {
    trainer.restore(warm);
    await evaluate(0);
    for (let iteration = 0; iteration < rl.iterations; iteration++) {
      const examples = await expertExamples(iteration);
      for (let epoch = 0; epoch < rl.epochs && examples.length > 0; epoch++) {
        const order = shuffled(examples.length, mixSeed(recipe.seed, STREAM.shuffle, iteration, epoch));
        for (const [start, end] of minibatchBounds(examples.length, rl.minibatches)) {
          const batch = sftBatch(
            order.slice(start, end).map((j) => examples[j]),
            tokenizer,
            tokenizer.eosId,
            tokenizer.padId,
            recipe.model.contextLength,
          );
          await stepper.step(batch, options);
        }
      }
      const done = iteration + 1;
      if (done === rl.iterations || (recipe.eval.interval > 0 && done % recipe.eval.interval === 0)) await evaluate(done);
    }
  } finally {
    stepper.destroy();
    optimizer.destroy();
    for (const g of generators) g.destroy();
    trainer.dispose();
  }
  return { curve, sampledTokens, seconds: (performance.now() - started) / 1000, teacherSamples: totals };
}
