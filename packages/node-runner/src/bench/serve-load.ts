// A bounded load test of `horizon serve` on loopback: CLIENTS concurrent clients, each sending
// REQUESTS completions one after another (up to 16 sampled tokens; the untrained model's <eos> ends one early) to the real HTTP server
// and scheduler over the real Generator, on an untrained model of the bench's layers and width at a
// 64-token context. Rows: requests per second and the p50 and p99 latency of one request, with the
// same load through a server that puts one sequence in each sampler call as the peer of requests/s —
// what continuous batching buys. Latency is from sending the request to the last byte of the answer.

import type { AddressInfo } from 'node:net';
import { CharTokenizer, Generator, Gpt, type GptConfig } from '@horizon/core';
import { createServeServer } from '../serve/http-server.ts';
import { servedModel } from '../serve/served-model.ts';
import { makeRow } from './row.ts';
import type { BenchSection } from './section.ts';
import { describeModelShape } from './shapes.ts';

const CLIENTS = 16;
const CONTEXT = 64;
const MAX_TOKENS = 16;
const tokenizer = new CharTokenizer({ characters: 'abcdefgh0123 +=', specialTokens: ['<eos>'] });

interface Load {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];

async function load(model: Gpt, maxRows: number, requests: number): Promise<Load> {
  const generator = new Generator(model);
  const served = servedModel('bench', tokenizer, CONTEXT, generator, { maxRows, chunkTokens: MAX_TOKENS });
  const server = createServeServer(served, { apiKey: undefined, maxN: 1, maxStops: 4, maxBodyBytes: 1 << 16, requestTimeoutMs: 600_000, maxPending: 4096 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/completions`;
  const body = (i: number) => JSON.stringify({ model: 'bench', prompt: `${i % 100}+${i % 7}=`, max_tokens: MAX_TOKENS, temperature: 1, seed: i });
  const once = async (i: number) => {
    const t = performance.now();
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: body(i) });
    await res.text();
    if (res.status !== 200) throw new Error(`the bench server answered ${res.status}`);
    return performance.now() - t;
  };
  try {
    await Promise.all(Array.from({ length: CLIENTS }, (_, c) => once(c))); // warm-up: pipelines and decode states
    const latencies: number[] = [];
    const start = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        for (let r = 0; r < requests; r++) latencies.push(await once(c * requests + r));
      }),
    );
    const seconds = (performance.now() - start) / 1000;
    latencies.sort((a, b) => a - b);
    return { requestsPerSecond: latencies.length / seconds, p50Ms: quantile(latencies, 0.5), p99Ms: quantile(latencies, 0.99) };
  } finally {
    server.closeAllConnections();
    server.close();
    generator.destroy();
  }
}

export const serveLoadSection: BenchSection = {
  name: 'serve load',
  async run(ctx) {
    const config: GptConfig = { ...ctx.shape.model, vocabSize: tokenizer.vocabSize, contextLength: CONTEXT };
    const prefix = `serve ${CLIENTS} concurrent clients, ${MAX_TOKENS}-token completions ${describeModelShape({ model: config, batch: CLIENTS })}`;
    const names = { rate: `${prefix}: requests/s`, p50: `${prefix}: p50 latency`, p99: `${prefix}: p99 latency` };
    if (!Object.values(names).some((n) => ctx.wants(n))) return [];
    const requests = ctx.quick ? 2 : 8;
    const model = Gpt.init(ctx.gpu, config, 9, 'bench-serve');
    try {
      ctx.progress(`serve load: ${CLIENTS} clients × ${requests} requests, batched`);
      const batched = await load(model, 64, requests);
      ctx.progress(`serve load: ${CLIENTS} clients × ${requests} requests, one sequence per sampler call`);
      const single = await load(model, 1, requests);
      const note = `loopback HTTP through the openai-shaped /v1/completions, ${CLIENTS * requests} requests`;
      return [
        { ...makeRow(names.rate, 'requests/s', batched.requestsPerSecond, { name: 'one sequence per sampler call', value: single.requestsPerSecond }), note },
        { ...makeRow(names.p50, 'ms', batched.p50Ms, { name: 'one sequence per sampler call', value: single.p50Ms }), note },
        { ...makeRow(names.p99, 'ms', batched.p99Ms, { name: 'one sequence per sampler call', value: single.p99Ms }), note },
      ];
    } finally {
      model.destroy();
    }
  },
};
