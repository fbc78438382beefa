// The advantage estimators by recipe name.

import type { AdvantageEstimator } from './algorithm.ts';
import { grpo } from './grpo.ts';
import { ppo } from './ppo.ts';
import { rloo } from './rloo.ts';

export const ALGORITHM_BY_NAME: Record<AdvantageEstimator['name'], AdvantageEstimator> = { ppo, grpo, rloo };
