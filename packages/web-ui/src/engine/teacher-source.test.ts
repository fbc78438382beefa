// Teachers from runs trained in this browser: found by id or by a name only one run has, read from
// the run's latest checkpoint; an unknown run, a shared name, a replay and a run without a checkpoint
// are each one sentence naming the entry.

import { type Checkpoint, isInputError, resolveRecipe } from '@horizon/core';
import { describe, expect, it } from 'vitest';
import type { CheckpointRecord } from '../storage/db.ts';
import type { RunSummary } from './api.ts';
import { StoredRunTeacherSource } from './teacher-source.ts';

const summary = (id: string, name: string, source: RunSummary['source'] = 'live'): RunSummary => ({
  id,
  name,
  source,
  origin: 'test',
  createdAt: 0,
  metricsRows: 0,
  samples: 0,
});

const { recipe } = resolveRecipe({ preset: 'mix-add-expert' });
const config = { vocabSize: 15, contextLength: 32, layers: 2, heads: 4, width: 32, head: 'lm' as const };
const record = (runId: string, step: number): CheckpointRecord => ({
  runId,
  checkpoint: { step, recipe, models: { policy: { config, params: new Float32Array([runId.length, step]) } } } as unknown as Checkpoint,
  position: { phase: 'rl', step, total: 10 },
  records: 0,
  samples: 0,
  savedAt: 0,
});

const store = {
  listRuns: async () => [summary('a1', 'add'), summary('s1', 'sub'), summary('s2', 'sub'), summary('r1', 'replayed', 'replay'), summary('n1', 'fresh')],
  loadCheckpoint: async (id: string) => ({ a1: record('a1', 7), s1: record('s1', 3), s2: record('s2', 4) })[id],
};
const source = new StoredRunTeacherSource(store);

async function refusal(run: string): Promise<string> {
  try {
    await source.load(run);
  } catch (error) {
    expect(isInputError(error)).toBe(true);
    return (error as Error).message;
  }
  throw new Error(`expected ${run} to be refused`);
}

describe('StoredRunTeacherSource', () => {
  it('finds a run by a name only it has, or by id, and hands over its checkpoint’s policy', async () => {
    const byName = await source.load('add');
    expect(byName).toMatchObject({ run: 'add', step: 7, task: recipe.task, config });
    expect(Array.from(byName.params)).toEqual([2, 7]);
    expect((await source.load('s2')).step).toBe(4);
  });

  it('refuses an unknown run, a name two runs share, a replay and a run with no checkpoint', async () => {
    expect(await refusal('nope')).toBe(
      'distill.teachers: "nope" is no run trained in this browser; name a run trained in this browser (its name or id, as the runs list shows it) that has a checkpoint.',
    );
    expect(await refusal('sub')).toMatch(/"sub" is the name of 2 saved runs, so it does not say which/);
    expect(await refusal('replayed')).toMatch(/"replayed" is no run trained in this browser/);
    expect(await refusal('fresh')).toMatch(/"fresh" has no checkpoint yet/);
  });
});
