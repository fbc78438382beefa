// Continuous batching for the inference server: every sequence that is waiting for tokens joins the
// next sampler call, so requests arriving while a call runs share the one after it instead of
// queueing behind whole requests (the scheduling of Orca, Yu et al., OSDI 2022, at the granularity
// the GPU sampler offers: a call samples a fixed budget per row in one submit, model/generate.ts).
//
// A call gives each row at most `chunkTokens` new tokens; the owner of a sequence reads each chunk
// (to cut it at <eos> or a stop string, and to stream it) and says how much of it to keep and whether
// the sequence is done. A sequence's key names its draws (kernels/src/sampling: a row's draws depend on
// its key and the position it fills, not on its row in the call), so a seeded request samples the same
// tokens whatever else shares its calls and however they are chunked; the Generator also keeps a keyed
// row's KV cache from one call to the next (model/cached-rows.ts), so a chunk feeds only its new tokens.
//
// Temperature and top-k are per call in the sampler, so one call takes the sequences that share the
// oldest waiting sequence's settings; the others wait for a later call. Rows beyond `maxRows` wait too,
// and a sequence that had a turn goes to the back of the queue, so no request starves.
// Left out: preemption by priority, prefix sharing between requests, speculative decoding.

import type { GeneratedRow, SamplingOptions } from '../model/generate.ts';

/** What the scheduler needs of the Generator. */
export interface ChunkSampler {
  generate(contexts: readonly (readonly number[])[], budgets: readonly number[], options: SamplingOptions): Promise<GeneratedRow[]>;
}

export interface SchedulerSettings {
  /** The model's context length: prompt plus completion never passes it. */
  contextLength: number;
  /** Most rows in one sampler call. */
  maxRows: number;
  /** Most new tokens a row gets per call: how long a new request waits to join, and a stream's chunk size. */
  chunkTokens: number;
  /** Philox seed and stream of every call; a sequence's key tells its draws apart. */
  seed: number;
  stream: number;
}

/** What the owner does with a chunk: keep its first `keep` tokens; `done` ends the sequence there. */
export interface ChunkVerdict {
  keep: number;
  done: boolean;
}

export interface SequenceSpec {
  prompt: readonly number[];
  /** Most tokens to sample; the prompt plus this must fit the context. */
  maxTokens: number;
  temperature: number;
  topK: number;
  /** Two u32 words naming the sequence's draws, e.g. (the request's seed, its choice index). */
  key: readonly [number, number];
  /** Reads each chunk of sampled ids and their log-probs. */
  onChunk(ids: number[], logprobs: number[]): ChunkVerdict;
  /** Stops the sequence before its next call (a client that went away). */
  signal?: AbortSignal;
}

/** How a sequence ended: its owner said so, its budget ran out, or it was aborted. */
export type SequenceEnd = 'done' | 'length' | 'aborted';

interface Running {
  spec: SequenceSpec;
  context: number[];
  sampled: number;
  resolve: (end: SequenceEnd) => void;
  reject: (error: unknown) => void;
}

export class BatchScheduler {
  private queue: Running[] = [];
  private looping = false;
  /** Sampler calls made so far, and rows they carried: what a load test reads to see batching. */
  calls = 0;
  rows = 0;

  constructor(
    private readonly sampler: ChunkSampler,
    private readonly settings: SchedulerSettings,
  ) {
    if (!Number.isInteger(settings.maxRows) || settings.maxRows < 1) throw new RangeError(`maxRows must be a positive integer, got ${settings.maxRows}`);
    if (!Number.isInteger(settings.chunkTokens) || settings.chunkTokens < 1)
      throw new RangeError(`chunkTokens must be a positive integer, got ${settings.chunkTokens}`);
  }

  /** Sequences waiting for or in a call. */
  get pending(): number {
    return this.queue.length;
  }

  /** Samples one sequence to its end; resolves with how it ended, rejects if the sampler fails. */
  run(spec: SequenceSpec): Promise<SequenceEnd> {
    const { contextLength } = this.settings;
    if (spec.prompt.length < 1) throw new RangeError('a sequence needs at least one prompt token');
    if (spec.prompt.length + spec.maxTokens > contextLength)
      throw new RangeError(`a prompt of ${spec.prompt.length} tokens plus ${spec.maxTokens} to sample exceeds the context length ${contextLength}`);
    if (spec.maxTokens === 0) return Promise.resolve('length');
    if (spec.signal?.aborted) return Promise.resolve('aborted');
    return new Promise<SequenceEnd>((resolve, reject) => {
      this.queue.push({ spec, context: [...spec.prompt], sampled: 0, resolve, reject });
      if (!this.looping) void this.loop();
    });
  }

  private async loop(): Promise<void> {
    this.looping = true;
    try {
      for (;;) {
        this.dropAborted();
        if (this.queue.length === 0) return;
        const head = this.queue[0].spec;
        const batch = this.queue.filter((r) => r.spec.temperature === head.temperature && r.spec.topK === head.topK).slice(0, this.settings.maxRows);
        const chosen = new Set(batch);
        // Those served go to the back: the next call starts with whoever waited longest.
        this.queue = [...this.queue.filter((r) => !chosen.has(r)), ...batch];
        await this.step(batch);
      }
    } finally {
      this.looping = false;
    }
  }

  private dropAborted(): void {
    const kept: Running[] = [];
    for (const r of this.queue) {
      if (r.spec.signal?.aborted) r.resolve('aborted');
      else kept.push(r);
    }
    this.queue = kept;
  }

  private async step(batch: Running[]): Promise<void> {
    const { chunkTokens, seed, stream } = this.settings;
    const budgets = batch.map((r) => Math.min(chunkTokens, r.spec.maxTokens - r.sampled));
    let rows: GeneratedRow[];
    try {
      const { temperature, topK } = batch[0].spec;
      rows = await this.sampler.generate(
        batch.map((r) => r.context),
        budgets,
        { temperature, topK, seed, stream, keys: batch.map((r) => r.spec.key) },
      );
      this.calls++;
      this.rows += batch.length;
    } catch (error) {
      // The call failed for every row in it; the sequences outside it go on.
      this.remove(batch);
      for (const r of batch) r.reject(error);
      return;
    }
    const finished: Running[] = [];
    batch.forEach((r, b) => {
      if (r.spec.signal?.aborted) {
        finished.push(r);
        r.resolve('aborted');
        return;
      }
      let verdict: ChunkVerdict;
      try {
        verdict = r.spec.onChunk(rows[b].ids, rows[b].logprobs);
      } catch (error) {
        finished.push(r);
        r.reject(error);
        return;
      }
      const keep = Math.max(0, Math.min(verdict.keep, rows[b].ids.length));
      r.context.push(...rows[b].ids.slice(0, keep));
      r.sampled += keep;
      // Keeping less than the chunk ends the sequence too: its context would no longer match what was sampled.
      const done = verdict.done || keep < rows[b].ids.length;
      if (done || r.sampled >= r.spec.maxTokens) {
        finished.push(r);
        r.resolve(done ? 'done' : 'length');
      }
    });
    this.remove(finished);
  }

  private remove(rows: readonly Running[]): void {
    const gone = new Set(rows);
    this.queue = this.queue.filter((r) => !gone.has(r));
  }
}
