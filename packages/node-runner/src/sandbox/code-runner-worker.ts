// Body of the code-runner worker thread (started by worker-code-runner.ts through worker-entry.mjs):
// runs each request it is sent in core's QuickJsCodeRunner and posts the result back. One request
// at a time; the parent terminates the whole thread when a run outlives its safety timer.

import { parentPort } from 'node:worker_threads';
import { QuickJsCodeRunner } from '@horizon/core/sandbox/quickjs';
import type { FromWorker, ToWorker } from './worker-protocol.ts';

const port = parentPort;
if (port === null) throw new Error('code-runner-worker.ts runs only as a worker thread, started by WorkerCodeRunner.');

const runner = new QuickJsCodeRunner();
const send = (message: FromWorker): void => port.postMessage(message);

port.on('message', async ({ id, request }: ToWorker) => {
  try {
    send({ kind: 'result', id, result: await runner.run(request), live: runner.liveCounts() });
  } catch (error) {
    send({ kind: 'failure', id, message: error instanceof Error ? error.message : String(error) });
  }
});
send({ kind: 'ready' });
