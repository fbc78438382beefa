// The messages between WorkerCodeRunner and its worker thread: a request out, then exactly one
// result or failure back with the same id. `ready` is sent once, when the worker can take requests.

import type { CodeRequest, CodeResult, QuickJsLiveCounts } from '@horizon/core';

export interface ToWorker {
  id: number;
  request: CodeRequest;
}

export type FromWorker =
  | { kind: 'ready' }
  /** `live`: the worker runner's QuickJS objects after the run, so a test can see nothing leaked in the thread. */
  | { kind: 'result'; id: number; result: CodeResult; live: QuickJsLiveCounts }
  /** The run could not start (the QuickJS module failed to load); a host problem, not the agent's. */
  | { kind: 'failure'; id: number; message: string };
