// `--checkpoint DIR` for `horizon eval` and `horizon sample`: a run directory (its newest committed
// checkpoint) or one checkpoint directory (runs/x/checkpoints/step-N).

import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { type Checkpoint, echo, InputError, loadCheckpoint } from '@horizon/core';
import { DirectoryCheckpointStore } from './checkpoint-store.ts';

export async function openCheckpoint(dir: string): Promise<{ checkpoint: Checkpoint; where: string }> {
  const path = resolve(dir);
  const step = /^step-(\d+)$/.exec(basename(path));
  if (step) {
    const store = new DirectoryCheckpointStore(dirname(path));
    return { checkpoint: await loadCheckpoint(store, { step: Number(step[1]) }), where: path };
  }
  if (existsSync(join(path, 'checkpoints'))) {
    const store = new DirectoryCheckpointStore(join(path, 'checkpoints'));
    const checkpoint = await loadCheckpoint(store);
    return { checkpoint, where: store.describe(checkpoint.step) };
  }
  throw new InputError('checkpoint', `${echo(dir)} is neither a run directory (with checkpoints/) nor a checkpoint directory (…/checkpoints/step-N).`);
}
