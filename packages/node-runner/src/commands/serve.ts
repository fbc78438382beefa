// `horizon serve --checkpoint DIR`: an OpenAI-compatible HTTP endpoint for a checkpoint's policy
// (/v1/models, /v1/completions, /v1/chat/completions; docs/serve.md). Concurrent requests share the
// GPU sampler through continuous batching (core's BatchScheduler). Binds 127.0.0.1 unless --host says
// otherwise; an API key (--api-key or HORIZON_API_KEY) makes every request need it as a Bearer token.
// Runs until SIGINT or SIGTERM, then stops accepting, answers nothing more and exits 0.
// --train serves the policy in training mode (black-box RL, serve/training-model.ts): an outside agent's
// rewarded sessions train it in place. A flag of serve rather than a train command: the agent only
// ever talks to this server, and the same endpoint answers before, during and after training.

import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { echo } from '@horizon/core';
import { type Command, EXIT, UsageError } from '../cli/command.ts';
import { acquireGpu } from '../platform/acquire-gpu.ts';
import { openCheckpoint } from '../run/open-checkpoint.ts';
import { checkRecipeFits } from '../run/recipe-source.ts';
import { createServeServer } from '../serve/http-server.ts';
import { loadServedModel } from '../serve/served-model.ts';
import { loadTrainingModel } from '../serve/training-model.ts';

/** An integer flag in [min, max], or its default. */
function intFlag(flags: Record<string, unknown>, name: string, fallback: number, min: number, max: number): number {
  const raw = flags[name];
  if (raw === undefined) return fallback;
  const v = Number(raw);
  if (!Number.isInteger(v) || v < min || v > max) throw new UsageError(`--${name} must be an integer in [${min}, ${max}], got "${echo(String(raw))}".`);
  return v;
}

export const serve: Command = {
  name: 'serve',
  summary: 'serve a checkpoint’s policy over an OpenAI-compatible HTTP API (models, completions, chat completions)',
  flags: {
    checkpoint: { type: 'string', description: 'a run directory (its newest checkpoint) or a checkpoints/step-N directory', valueName: 'dir' },
    host: { type: 'string', description: 'address to bind (default 127.0.0.1: this machine only)', valueName: 'address' },
    port: { type: 'string', description: 'port to listen on (default 8000; 0 picks a free one)', valueName: 'number' },
    'api-key': { type: 'string', description: 'require this key as "Authorization: Bearer KEY" (default: env HORIZON_API_KEY, else none)', valueName: 'key' },
    'model-id': { type: 'string', description: 'the model id clients name (default RECIPE-step-N)', valueName: 'id' },
    'max-batch': { type: 'string', description: 'most sequences in one sampler call (default 64)', valueName: 'rows' },
    'chunk-tokens': {
      type: 'string',
      description: 'tokens per row per sampler call: a stream’s chunk, a new request’s wait to join (default 16)',
      valueName: 'count',
    },
    'max-n': { type: 'string', description: 'most choices per request (default 8)', valueName: 'count' },
    'max-pending': { type: 'string', description: 'most choices waiting or sampling at once; more is answered 429 (default 512)', valueName: 'count' },
    'max-body': { type: 'string', description: 'largest request body in bytes (default 1048576)', valueName: 'bytes' },
    train: { type: 'boolean', description: 'training mode: record sessions, take rewards at /v1/horizon/rewards, train the served policy (docs/serve.md)' },
    set: {
      type: 'string',
      multiple: true,
      description: 'with --train: override a field of the checkpoint’s recipe, e.g. --set rl.groupSize=4 (repeatable)',
      valueName: 'key=value',
    },
    out: { type: 'string', description: 'with --train: the run directory to write (default runs/<recipe>-blackbox-<time>)', valueName: 'dir' },
    timeout: {
      type: 'string',
      description: 'seconds a request may sample before its choices end with finish_reason length (default 120)',
      valueName: 'seconds',
    },
  },
  async run({ flags, out }) {
    if (flags.checkpoint === undefined) throw new UsageError('--checkpoint DIR is required (a run directory or a checkpoints/step-N directory).');
    const port = intFlag(flags, 'port', 8000, 0, 65535);
    const host = (flags.host as string | undefined) ?? '127.0.0.1';
    const apiKey = (flags['api-key'] as string | undefined) ?? (process.env.HORIZON_API_KEY || undefined);
    if (apiKey === '') throw new UsageError('--api-key must not be empty.');
    const batching = { maxRows: intFlag(flags, 'max-batch', 64, 1, 4096), chunkTokens: intFlag(flags, 'chunk-tokens', 16, 1, 4096) };
    const options = {
      apiKey,
      maxN: intFlag(flags, 'max-n', 8, 1, 128),
      maxStops: 4,
      maxPending: intFlag(flags, 'max-pending', 512, 1, 1_000_000),
      maxBodyBytes: intFlag(flags, 'max-body', 1 << 20, 1024, 1 << 30),
      requestTimeoutMs: 1000 * intFlag(flags, 'timeout', 120, 1, 86_400),
    };
    // A missing, partial or corrupt checkpoint is an InputError: main.ts prints it and exits 2.
    const { checkpoint } = await openCheckpoint(flags.checkpoint as string);
    const gpu = await acquireGpu();
    try {
      checkRecipeFits(checkpoint.recipe, gpu);
      const sets = (flags.set as string[] | undefined) ?? [];
      if (!flags.train && (sets.length > 0 || flags.out !== undefined)) throw new UsageError('--set and --out go with --train.');
      const id = flags['model-id'] as string | undefined;
      const training = flags.train
        ? await loadTrainingModel(gpu, flags.checkpoint as string, { sets, out: flags.out as string | undefined, batching, id })
        : undefined;
      const model = training?.model ?? (await loadServedModel(gpu, flags.checkpoint as string, batching, id)).model;
      const server = createServeServer(model, options);
      server.listen(port, host);
      await Promise.race([once(server, 'listening'), once(server, 'error').then(([e]) => Promise.reject(e))]).catch((error: NodeJS.ErrnoException) => {
        throw new UsageError(`cannot listen on ${host}:${port}: ${error.code ?? error.message}.`);
      });
      const address = server.address() as AddressInfo;
      const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      out(`horizon serve: ${model.describe}`);
      out(`horizon serve: listening on http://${shown}:${address.port}/v1${apiKey ? ' (API key required)' : ''}`);
      const signal = await Promise.race([once(process, 'SIGINT').then(() => 'SIGINT'), once(process, 'SIGTERM').then(() => 'SIGTERM')]);
      out(`horizon serve: ${signal}, stopping`);
      server.close();
      server.closeAllConnections();
      if (training) {
        await training.stop();
        out(`horizon serve: trained to iteration ${training.model.training?.iteration}; run directory ${training.paths.dir}`);
      }
      return EXIT.ok;
    } finally {
      gpu.destroyDevice();
    }
  },
};
