// One evaluation of an arm that is not running the trainer's own loop (SFT-only, expert-sft): the
// trainer's evaluation on the report's held-out and OOD sets, with a mixed task's success on each
// skill's problems picked out of the metrics row it emits.

import type { Trainer } from '@horizon/core';
import { skillSuccess } from './results.ts';

export async function evaluateWithSkills(trainer: Trainer, step: number): Promise<{ heldOut: number; ood: number; bySkill?: Record<string, number> }> {
  let bySkill: Record<string, number> | undefined;
  const result = await trainer.evaluateAll(
    {
      onMetrics: (_phase, _step, metrics) => {
        bySkill = skillSuccess(metrics);
      },
    },
    step,
  );
  return { heldOut: result.heldOut, ood: result.ood, ...(bySkill ? { bySkill } : {}) };
}
