// Every declared report keeps the protocol: at least 3 seeds, a final evaluation on at least 500
// held-out problems (or on all of them, for a task with fewer), a budget within 45 minutes that counts its runs, comparisons between arms it
// has, and arms that either resolve to valid recipes or say what they wait for. Planning pairs the
// arms of a seed on one warm start and keeps seeds apart.

import { validateRecipe } from '@horizon/core';
import { describe, expect, it } from 'vitest';
import { armRecipe, planRuns, recipeChanges, sftKeyOf, unrunnableReason } from './plan.ts';
import { REPORTS } from './reports/index.ts';

describe.each(REPORTS.map((r) => [r.name, r] as const))('report %s', (_name, report) => {
  it('declares ≥ 3 seeds, ≥ 500 held-out problems (or every one its task has) and a budget within 45 minutes', () => {
    expect(new Set(report.seeds).size).toBeGreaterThanOrEqual(3);
    expect(report.seeds.length).toBe(new Set(report.seeds).size);
    if (report.heldOutSize < 500) {
      // Fewer than 500 only when the task has no more: one more problem must be refused by the recipe check.
      const oneMore = { ...report, heldOutSize: report.heldOutSize + 1 };
      expect(() => armRecipe(oneMore, report.arms[0], report.seeds[0])).toThrow(/eval\.heldOutSize.*must be at most/);
    }
    expect(report.budget.minutes).toBeLessThanOrEqual(45);
    expect(report.budget.runs).toBe(report.arms.length * report.seeds.length);
  });

  it('compares arms it declares, with distinct arm names', () => {
    const names = report.arms.map((a) => a.name);
    expect(new Set(names).size).toBe(names.length);
    for (const c of report.comparisons) {
      expect(names).toContain(c.arm);
      expect(names).toContain(c.against);
      expect(c.claim).toMatch(/\S/);
    }
  });

  it('either plans paired runs or says what it needs', () => {
    const reason = unrunnableReason(report);
    if (reason) {
      expect(report.needs).toBeDefined();
      return;
    }
    const runs = planRuns(report, '/runs');
    expect(runs).toHaveLength(report.budget.runs);
    for (const seed of report.seeds) {
      const ofSeed = runs.filter((r) => r.seed === seed);
      expect(new Set(ofSeed.map((r) => r.sftKey)).size, `seed ${seed}: all arms share one warm start`).toBe(1);
      for (const r of ofSeed) {
        expect(r.recipe.seed).toBe(seed);
        expect(r.recipe.eval.heldOutSize).toBe(report.heldOutSize);
        expect(r.dir).toBe(`/runs/${report.name}/${r.arm.name}/${seed}`);
      }
    }
    expect(new Set(runs.map((r) => r.sftKey)).size, 'seeds do not share a warm start').toBe(report.seeds.length);
    expect(new Set(runs.map((r) => r.key)).size, 'every run has its own key').toBe(runs.length);
  });
});

describe('planning', () => {
  it('keys a run by what its recipe changes from the defaults, so fields added at their defaults keep it', () => {
    expect(recipeChanges(validateRecipe({}))).toEqual([]);
    const grpo = REPORTS.find((r) => r.name === 'rloo-vs-grpo');
    if (!grpo) throw new Error('rloo-vs-grpo is declared');
    const changes = new Map(recipeChanges(armRecipe(grpo, grpo.arms[2], 2)));
    expect(changes.get('seed')).toBe(2);
    expect(changes.get('rl.algorithm')).toBe('rloo');
    expect(changes.get('rl.klPlacement')).toBe('loss');
    expect(changes.get('eval.heldOutSize')).toBe(500);
    expect(changes.has('rl.gamma')).toBe(false); // at its default
  });

  it('leaves out fields the method does not read, so a preset dropping one keeps its runs finished', () => {
    const grpo = validateRecipe({ rl: { algorithm: 'grpo', groupSize: 4 } });
    const withUnread = validateRecipe({ rl: { algorithm: 'grpo', groupSize: 4, criticWarmupSteps: 0, criticLr: 0.5 } });
    expect(recipeChanges(withUnread)).toEqual(recipeChanges(grpo));
    // The same fields under a method that reads them are part of the key.
    const ppo = new Map(recipeChanges(validateRecipe({ rl: { criticWarmupSteps: 0 } })));
    expect(ppo.get('rl.criticWarmupSteps')).toBe(0);
  });

  it('points a learning arm at its own seed’s teacher runs, and keys runs apart from where they live', () => {
    const opd = REPORTS.find((r) => r.name === 'multi-teacher-opd');
    if (!opd) throw new Error('multi-teacher-opd is declared');
    const here = planRuns(opd, '/a/runs');
    const there = planRuns(opd, '/elsewhere/runs');
    expect(there.map((r) => r.key)).toEqual(here.map((r) => r.key));
    const student = here.find((r) => r.arm.name === 'student' && r.seed === 2);
    expect(student?.recipe.distill.teachers).toBe('/a/runs/multi-teacher-opd/add-expert/2,/a/runs/multi-teacher-opd/sub-expert/2');
    // An expert's key changes with its recipe, and so does every key of the arms it teaches.
    const changed = planRuns({ ...opd, common: [...opd.common, 'rl.policyLr=0.0001'] }, '/a/runs');
    expect(changed.find((r) => r.arm.name === 'student')?.key).not.toBe(here.find((r) => r.arm.name === 'student')?.key);
  });

  it('applies an arm’s after-warm-start overrides to its training recipe only', () => {
    const opd = REPORTS.find((r) => r.name === 'multi-teacher-opd');
    if (!opd) throw new Error('multi-teacher-opd is declared');
    const expert = planRuns(opd, '/runs').find((r) => r.arm.name === 'add-expert');
    expect(expert?.recipe.task.mix?.subtractionShare).toBe(0);
    expect(expert?.warmRecipe.task.mix?.subtractionShare).toBe(0.5);
  });

  it('refuses an arm that learns from an arm declared after it', () => {
    const opd = REPORTS.find((r) => r.name === 'multi-teacher-opd');
    if (!opd) throw new Error('multi-teacher-opd is declared');
    const reordered = { ...opd, arms: [...opd.arms].reverse() };
    expect(() => planRuns(reordered, '/runs')).toThrow(/arm expert-sft learns from add-expert, which must be an arm declared before it/);
  });

  it('shares a warm start across the training-stream-only task fields (broken tasks, the quality filter), which no SFT demonstration reads', () => {
    const filter = REPORTS.find((r) => r.name === 'task-filter');
    if (!filter) throw new Error('task-filter is declared');
    const [filtered, unfiltered] = planRuns(filter, '/runs');
    expect(filtered.recipe.task.hiddenTestFs.qualityFilter).toBe(true);
    expect(unfiltered.recipe.task.hiddenTestFs.qualityFilter).toBe(false);
    const clean = armRecipe({ ...filter, common: filter.common.filter((s) => !s.startsWith('task.hiddenTestFs.defects')) }, filter.arms[1], filter.seeds[0]);
    expect(clean.task.hiddenTestFs.defects.share).toBe(0);
    expect(sftKeyOf(clean)).toBe(filtered.sftKey);
    expect(sftKeyOf(clean)).toBe(unfiltered.sftKey);
    // A field SFT does read still changes it.
    expect(sftKeyOf({ ...clean, task: { ...clean.task, hiddenTestFs: { ...clean.task.hiddenTestFs, hackDemoShare: 0.5 } } })).not.toBe(filtered.sftKey);
  });

  it('a report whose arms set a field this version lacks is not runnable, naming the field', () => {
    const sao = REPORTS.find((r) => r.name === 'sao-lag');
    expect(sao).toBeDefined();
    if (sao) expect(unrunnableReason(sao) ?? 'runnable').toMatch(/rl\.rolloutLag|runnable/);
  });
});
