// Teachers for on-policy distillation in the browser (core's TeacherSource, core/src/train/teachers.ts):
// a `distill.teachers` entry names a run trained in this browser, by its id or its name, and its
// teacher is the policy of that run's latest checkpoint in IndexedDB — what `horizon train` reads
// from a run directory's newest committed checkpoint. Anything else is one sentence: no such run, a
// name that several runs share, a run with no checkpoint yet. Only reads.

import { InputError, type TeacherSource, type TeacherWeights } from '@horizon/core';
import type { RunStore } from '../storage/runs.ts';

export class StoredRunTeacherSource implements TeacherSource {
  constructor(private readonly store: Pick<RunStore, 'listRuns' | 'loadCheckpoint'>) {}

  async load(run: string): Promise<TeacherWeights> {
    const refuse = (why: string) =>
      new InputError(
        'run',
        `distill.teachers: "${run}" ${why}; name a run trained in this browser (its name or id, as the runs list shows it) that has a checkpoint.`,
      );
    const runs = (await this.store.listRuns()).filter((r) => r.source === 'live');
    const byId = runs.find((r) => r.id === run);
    const byName = runs.filter((r) => r.name === run);
    if (!byId && byName.length > 1) throw refuse(`is the name of ${byName.length} saved runs, so it does not say which`);
    const found = byId ?? byName[0];
    if (!found) throw refuse('is no run trained in this browser');
    const saved = await this.store.loadCheckpoint(found.id);
    if (!saved) throw refuse('has no checkpoint yet (train it for a few steps first)');
    const policy = saved.checkpoint.models.policy;
    return { run, step: saved.checkpoint.step, task: saved.checkpoint.recipe.task, config: policy.config, params: policy.params };
  }
}
