// OPID's pre-check (docs/algorithms/opid.md §5) on an experiment's cached warm start: does the SFT
// policy read its skills? For each routing mode, the mean Δ over the action tokens of honest
// demonstrations the warm start never drew, and the fraction with Δ > 0. Not a test: the figures
// go to the OPID page with this command.
//
//   node --import tsx tools/experiments/opid-pre-check.ts --report opid --seed 1 --count 32
//
// Reads the warm start `horizon experiment REPORT` cached (runs/experiments/sft/<key>/); it trains
// nothing, and says so when the warm start is not there yet.

import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadCheckpoint, ROUTING_MODES, Scorer, skillDeltaOnDemonstrations, Trainer } from '@horizon/core';
import { acquireNodeGpu } from '@horizon/kernels/node';
import { planRuns, sftCacheDir } from '../../packages/node-runner/src/experiment/plan.ts';
import { reportByName } from '../../packages/node-runner/src/experiment/reports/index.ts';
import { DirectoryCheckpointStore } from '../../packages/node-runner/src/run/checkpoint-store.ts';

const { values } = parseArgs({
  options: {
    report: { type: 'string', default: 'opid' },
    seed: { type: 'string', default: '1' },
    count: { type: 'string', default: '32' },
    runs: { type: 'string', default: 'runs/experiments' },
  },
});
const report = reportByName(values.report);
if (!report || !('common' in report)) throw new Error(`no training report named ${values.report}`);
const seed = Number(values.seed);
const run = planRuns(report, values.runs).find((r) => r.seed === seed && r.warmRecipe.rl.algorithm === 'opid');
if (!run) throw new Error(`report ${report.name} has no OPID arm at seed ${seed}`);
const dir = sftCacheDir(values.runs, run.sftKey);
if (!existsSync(dir)) throw new Error(`the warm start of seed ${seed} is not cached yet (${dir}); run horizon experiment ${report.name} first`);

const gpu = await acquireNodeGpu();
const trainer = new Trainer(gpu, run.warmRecipe);
try {
  trainer.restore(await loadCheckpoint(new DirectoryCheckpointStore(dir)));
  const scorer = new Scorer(gpu);
  const { sft } = run.warmRecipe;
  console.log(`pre-check: report ${report.name}, seed ${seed}, warm start ${sft.steps} × ${sft.batchSize} at lr ${sft.lr} (${dir})`);
  console.log('| routing | demonstrations | action tokens scored | mean Δ | Δ > 0 |');
  console.log('|---|---|---|---|---|');
  for (const routing of ROUTING_MODES) {
    const recipe = { ...run.warmRecipe, opid: { ...run.warmRecipe.opid, routing } };
    const r = await skillDeltaOnDemonstrations({
      scorer,
      policy: trainer.policy,
      task: trainer.task,
      codec: trainer.tokenizer,
      recipe,
      count: Number(values.count),
    });
    console.log(`| ${routing} | ${r.demonstrations} | ${r.tokens} | ${r.meanDelta.toFixed(3)} | ${(100 * r.positiveFraction).toFixed(1)}% |`);
  }
} finally {
  trainer.dispose();
}
