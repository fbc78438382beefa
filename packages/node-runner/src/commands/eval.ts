// `horizon eval --checkpoint DIR`: greedy success of a checkpoint's policy on the task's fixed
// held-out and out-of-distribution sets — the same evaluation `horizon train` logs.

import { Trainer } from '@horizon/core';
import { deviceLine } from '@horizon/kernels';
import { type Command, EXIT, UsageError } from '../cli/command.ts';
import { acquireGpu } from '../platform/acquire-gpu.ts';
import { openCheckpoint } from '../run/open-checkpoint.ts';
import { checkRecipeFits } from '../run/recipe-source.ts';

export const evalCommand: Command = {
  name: 'eval',
  summary: 'greedy success of a checkpoint on the held-out and out-of-distribution sets',
  flags: {
    checkpoint: { type: 'string', description: 'a run directory (its newest checkpoint) or a checkpoints/step-N directory', valueName: 'dir' },
    json: { type: 'boolean', description: 'print the result as JSON' },
  },
  async run({ flags, out }) {
    if (flags.checkpoint === undefined) throw new UsageError('--checkpoint DIR is required (a run directory or a checkpoints/step-N directory).');
    // A missing, partial or corrupt checkpoint is an InputError: main.ts prints it and exits 2.
    const { checkpoint, where } = await openCheckpoint(flags.checkpoint as string);
    const gpu = await acquireGpu();
    try {
      checkRecipeFits(checkpoint.recipe, gpu);
      const trainer = new Trainer(gpu, checkpoint.recipe);
      trainer.restore(checkpoint);
      const result = await trainer.evaluateAll({}, checkpoint.step);
      if (flags.json) out(JSON.stringify({ checkpoint: where, iteration: checkpoint.step, ...result }, null, 2));
      else {
        out(`device: ${deviceLine(gpu.report)}`);
        out(`checkpoint ${where} (after iteration ${checkpoint.step} of recipe ${checkpoint.recipe.name})`);
        out(
          `held-out success ${(100 * result.heldOut).toFixed(1)}% of ${checkpoint.recipe.eval.heldOutSize}, OOD success ${(100 * result.ood).toFixed(1)}% of ${checkpoint.recipe.eval.oodSize}`,
        );
      }
      return EXIT.ok;
    } finally {
      gpu.destroyDevice();
    }
  },
};
