// Every declared report, by name, in the order the fidelity table lists them: the training reports, then the offline ones, then the labelled-set ones.

import type { LabelledSetReport } from '../labelled-set.ts';
import type { OfflineReport } from '../offline-report.ts';
import type { Report } from '../report.ts';
import { antiHack } from './anti-hack.ts';
import { compaction } from './compaction.ts';
import { criticK } from './critic-k.ts';
import { distillRunnerCheck } from './distill-runner-check.ts';
import { genacReport } from './genac.ts';
import { monitorPrecision } from './monitor-precision.ts';
import { multiTeacherOpd } from './multi-teacher-opd.ts';
import { opid } from './opid.ts';
import { ppoGrpoRlooSft } from './ppo-grpo-rloo-sft.ts';
import { rlooVsGrpo } from './rloo-vs-grpo.ts';
import { runnerCheck } from './runner-check.ts';
import { saoLag } from './sao-lag.ts';
import { spanKto } from './span-kto.ts';
import { staticVsInteractive } from './static-vs-interactive.ts';
import { taskFilter } from './task-filter.ts';
import { vcPpo } from './vc-ppo.ts';

export const REPORTS: readonly Report[] = [
  ppoGrpoRlooSft,
  rlooVsGrpo,
  saoLag,
  criticK,
  vcPpo,
  genacReport,
  multiTeacherOpd,
  compaction,
  opid,
  antiHack,
  staticVsInteractive,
  taskFilter,
  runnerCheck,
  distillRunnerCheck,
];

/** Reports whose arms train offline on one fixed log per seed (offline-report.ts); listed after the training reports. */
export const OFFLINE_REPORTS: readonly OfflineReport[] = [spanKto];

/** Reports that train nothing: a labelled set scored per seed (labelled-set.ts); listed after the training reports. */
export const LABELLED_SET_REPORTS: readonly LabelledSetReport[] = [monitorPrecision];

export const reportByName = (name: string): Report | OfflineReport | LabelledSetReport | undefined =>
  REPORTS.find((r) => r.name === name) ?? OFFLINE_REPORTS.find((r) => r.name === name) ?? LABELLED_SET_REPORTS.find((r) => r.name === name);

/** Every report's name, in the fidelity table's order. */
export const REPORT_NAMES: readonly string[] = [...REPORTS, ...OFFLINE_REPORTS, ...LABELLED_SET_REPORTS].map((r) => r.name);
