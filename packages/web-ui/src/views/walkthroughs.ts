// The RL walkthroughs, one module the page loads when the first of them opens: they carry KaTeX,
// which the rest of the page does not need at first paint (app.ts loads the GAE walkthrough the same way).

import { h } from 'preact';
import type { EngineHandle } from '../engine/client.ts';
import { CompactionWalkthrough } from './compaction-view.ts';
import { DistillWalkthrough } from './distill-view.ts';
import { GenacWalkthrough } from './genac-view.ts';
import { GroupsWalkthrough } from './groups-view.ts';
import { KtoWalkthrough } from './kto-view.ts';
import { MonitorWalkthrough } from './monitor-view.ts';
import { OpidWalkthrough } from './opid-view.ts';
import { PpoWalkthrough } from './ppo-view.ts';
import type { WalkUrl } from './walk-parts.ts';

export type WalkView = 'ppo' | 'groups' | 'kto' | 'distill' | 'monitor' | 'compaction' | 'opid' | 'genac';

const VIEWS = {
  ppo: PpoWalkthrough,
  groups: GroupsWalkthrough,
  kto: KtoWalkthrough,
  distill: DistillWalkthrough,
  monitor: MonitorWalkthrough,
  compaction: CompactionWalkthrough,
  opid: OpidWalkthrough,
  genac: GenacWalkthrough,
};

export function Walkthrough({ engine, view, url }: { engine: EngineHandle; view: WalkView; url: WalkUrl }) {
  return h(VIEWS[view], { engine, url });
}
