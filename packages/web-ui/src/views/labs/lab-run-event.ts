// The event a lab's run is announced by (views/labs/lab-run.ts dispatches it on window), so the
// header's live-run badge (app.ts) follows a lab's run too: the worker keeps one live run, and it
// may be a lab's. Its own module, so the page's first bundle need not load the labs to listen.

import type { RunPosition, RunState } from '../../engine/api.ts';

export const LAB_RUN_EVENT = 'horizon:lab-run';

export interface LabRunEvent {
  /** The lab's name: "opid", "genac". */
  lab: string;
  state: RunState;
  position: RunPosition | null;
  message?: string;
}
