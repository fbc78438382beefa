// Dispatch of the RL walkthroughs' requests (walk-api.ts) to their computations, each on the
// worker's GPU device or, without one, on the float64 reference; the anti-hack monitor's on the
// worker's CPU, where core's monitor runs.

import type { Gpu } from '@horizon/kernels';
import { computeAntihackReview } from './antihack-review.ts';
import { computeCompactionLab } from './compaction-lab.ts';
import { computeCompactionWalk } from './compaction-walk.ts';
import { computeDistillWalk } from './distill-walk.ts';
import { computeGenacWalk } from './genac-walk.ts';
import { computeGroupsWalk } from './groups-walk.ts';
import { computeKtoWalk, computeSpanKtoWalk } from './kto-walk.ts';
import { computeMonitorReview, computeMonitorWalk } from './monitor-walk.ts';
import { computeOpidWalk } from './opid-walk.ts';
import { computePpoWalk } from './ppo-walk.ts';
import type { WalkAnswer, WalkRequest } from './walk-api.ts';

export async function computeWalk(gpu: Gpu | null, request: WalkRequest, deviceLine: string): Promise<WalkAnswer> {
  switch (request.kind) {
    case 'ppo':
      return computePpoWalk(gpu, request, deviceLine);
    case 'groups':
      return computeGroupsWalk(gpu, request, deviceLine);
    case 'kto':
      return computeKtoWalk(gpu, request, deviceLine);
    case 'span-kto':
      return computeSpanKtoWalk(gpu, request, deviceLine);
    case 'distill':
      return computeDistillWalk(gpu, request, deviceLine);
    case 'compaction':
      return computeCompactionWalk(gpu, request, deviceLine);
    case 'opid':
      return computeOpidWalk(gpu, request, deviceLine);
    case 'genac':
      return computeGenacWalk(gpu, request, deviceLine);
    case 'monitor':
      return computeMonitorWalk(request);
    case 'monitor-review':
      return computeMonitorReview(request);
    case 'antihack-review':
      return computeAntihackReview(request);
    case 'compaction-lab':
      return computeCompactionLab(gpu, request, deviceLine);
    default:
      throw new RangeError(`walkthrough: no walkthrough is called "${String((request as { kind: unknown }).kind)}"`);
  }
}
