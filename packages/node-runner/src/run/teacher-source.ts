// Teachers for on-policy distillation from run directories (core's TeacherSource,
// core/src/train/teachers.ts): a `distill.teachers` entry is a run directory, and its teacher is the
// policy of that run's newest committed checkpoint (as `horizon eval --checkpoint DIR` reads it).
// Anything else — no such directory, no checkpoints/, nothing committed yet — is one sentence, exit 2.
// Only reads: a refused teacher leaves nothing behind.

import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { echo, InputError, loadCheckpoint, type TeacherSource, type TeacherWeights } from '@horizon/core';
import { DirectoryCheckpointStore } from './checkpoint-store.ts';

export class RunDirTeacherSource implements TeacherSource {
  async load(run: string): Promise<TeacherWeights> {
    const dir = resolve(run);
    const notRun = (why: string) =>
      new InputError(
        'run',
        `distill.teachers: ${echo(run)} is not a committed run (${why}); name a run directory that \`horizon train\` has written a checkpoint into.`,
      );
    if (!existsSync(dir)) throw notRun('no such directory');
    if (!statSync(dir).isDirectory()) throw notRun('not a directory');
    if (!existsSync(join(dir, 'checkpoints'))) throw notRun('it has no checkpoints/');
    const store = new DirectoryCheckpointStore(join(dir, 'checkpoints'));
    if ((await store.list()).length === 0) throw notRun('none of its checkpoints is committed');
    const checkpoint = await loadCheckpoint(store);
    const policy = checkpoint.models.policy;
    return { run, step: checkpoint.step, task: checkpoint.recipe.task, config: policy.config, params: policy.params };
  }
}
