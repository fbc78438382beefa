// Every `horizon` command, in the order the usage text lists them.

import { bench } from '../commands/bench.ts';
import { doctor } from '../commands/doctor.ts';
import { evalCommand } from '../commands/eval.ts';
import { experiment } from '../commands/experiment.ts';
import { explain } from '../commands/explain.ts';
import { exportCommand } from '../commands/export.ts';
import { recipe } from '../commands/recipe.ts';
import { sample } from '../commands/sample.ts';
import { serve } from '../commands/serve.ts';
import { smoke } from '../commands/smoke.ts';
import { train } from '../commands/train.ts';
import type { Command } from './command.ts';

export const COMMANDS: readonly Command[] = [train, evalCommand, sample, serve, recipe, explain, bench, doctor, smoke, experiment, exportCommand];
