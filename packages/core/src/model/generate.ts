// Sampling from the GPU GPT with a KV cache, reading back only the sampled ids and their log-probs.
//
// Shape legend:  B rows · Tmax context length · D width · H heads · hd = D/H · V vocab · F = 4D
//
// A row's cache may already hold a prefix of its context: a keyed row continuing a sequence of the
// last call (the next turn of an episode keeps that call's keys and values: cached-rows.ts). The
// rest of the context but its last token is prefilled: passes of S positions of every row at once
// (prefill-chunks.ts), each through the decode kernels with B·S query rows, which write those
// positions' keys and values and compute exactly what one decode step per position would (same
// kernels, same sums per row). Then all rows step together, one position per step, from their last
// context token: each feeds its own draw. A call takes a few prefill passes plus as many steps as
// its longest budget, so a turn's observation costs passes, not a step per token.
// Every pass and step of a call is recorded into one command buffer and the history is read once at
// the end, so a call costs one submit and one readback however many tokens it samples — unless the
// caller gives stop ids: then the steps go in chunks, each followed by a readback of B flags that
// the stop-check kernel sets, and the call ends once every row has drawn a stop or used its budget
// (a readback drains the GPU, so the first look waits FIRST_STOP_CHUNK_STEPS). Rows keep sampling
// after their end-of-sequence token; the host cuts each row at <eos>, a stop string or its budget. With `prefill: false` the context is fed one position per step (teacher forcing through the
// decode step), as before prefill passes existed: the bench's peer and the tests' reference.
//
// The sampler's counter for a draw is the position it fills, and (seed, stream) come from the caller,
// so the same seed reproduces the same tokens (kernels/src/sampling). With `keys` (a rollout id and
// segment per context) a row's draws are named by its key instead of its row in the call, so a
// sequence samples the same tokens whichever rows share its call.

import {
  type Gpu,
  NO_STOP,
  type Recorder,
  recordAdvance,
  recordDecodeAttention,
  recordDecodeEmbedding,
  recordKvCacheWrite,
  recordLayerNormForward,
  recordMatmul,
  recordSample,
  recordStopCheck,
  type Tensor,
} from '@horizon/kernels';
import { type AttentionStep, recordBlockForward } from './block.ts';
import { CachedRows, type CachePlan } from './cached-rows.ts';
import { LAYER_NORM_EPS } from './config.ts';
import type { Gpt } from './gpt.ts';
import { prefillChunks } from './prefill-chunks.ts';

export interface SamplingOptions {
  /** τ: 0 = greedy, else the distribution softmax(logits/τ) the trainer must score with. */
  temperature: number;
  /** Sample among the k most likely tokens; 0 = all. */
  topK: number;
  /** Philox key: the same seed and stream give the same draws. */
  seed: number;
  stream: number;
  /** One (u32, u32) per context, e.g. (rollout id, segment): key each row's draws by it, not by its row index. */
  keys?: readonly (readonly [number, number])[];
  /**
   * Per context, token ids that end its action (<eos>, a one-token stop string). The call then runs
   * its steps in chunks and ends after the chunk in which every row has drawn one of its own stops
   * or used its budget; without them (or for a row with none) a row runs its whole budget.
   */
  stops?: readonly (readonly number[])[];
}

/**
 * Steps a call with stops records before its first look at which rows have ended, and between two
 * looks after that. A look waits for the GPU to drain (a readback of B flags), so the first comes
 * after as many steps as short actions take (a HiddenTestFS tool call is 10 tokens or more).
 */
export const FIRST_STOP_CHUNK_STEPS = 12;
export const STOP_CHUNK_STEPS = 4;

export interface GeneratedRow {
  /**
   * The row's sampled ids: its whole budget, or, in a call with stops that ended early, fewer — all
   * it drew, which include its first stop. The caller cuts at <eos> or a stop string.
   */
  ids: number[];
  /** log π_roll of each sampled id under the distribution it was drawn from. */
  logprobs: number[];
}

/** Per-B buffers: KV caches, one row of activations per sequence, and the generation state. */
interface DecodeState {
  B: number;
  kCache: Tensor[]; // per layer [B, H, Tmax, hd]
  vCache: Tensor[]; // per layer [B, H, Tmax, hd]
  x: Tensor; // [B, D] residual stream
  ln: Tensor; // [B, D]
  stats: Tensor; // [2, B]
  qkv: Tensor; // [B, 3D]
  attn: Tensor; // [B, D]
  mid: Tensor; // [B, D]
  fc: Tensor; // [B, F]
  gelu: Tensor; // [B, F]
  logits: Tensor; // [B, V]
  sampled: Tensor; // [B] u32
  logp: Tensor; // [B]
  prompt: Tensor; // [B, Tmax] u32
  promptLen: Tensor; // [B] u32
  history: Tensor; // [B, Tmax] u32
  historyLogp: Tensor; // [B, Tmax]
  input: Tensor; // [B] u32
  pos: Tensor; // [B] u32
  keys: Tensor; // [B, 2] u32
  /** Activations of prefill passes, by pass length S (rows B·S), made when a pass of that length first runs. */
  prefill: Map<number, PrefillBuffers>;
}

/** A call's stop ids by slot and which rows have drawn one (recordStopCheck). */
interface StopCheckBuffers {
  K: number;
  stops: Tensor; // [B, K] u32
  ended: Tensor; // [B] u32
}

/** One prefill pass's activations: a row per (sequence, position), [B·S, …]. */
interface PrefillBuffers {
  x: Tensor; // [B·S, D]
  ln: Tensor; // [B·S, D]
  stats: Tensor; // [2, B·S]
  qkv: Tensor; // [B·S, 3D]
  attn: Tensor; // [B·S, D]
  mid: Tensor; // [B·S, D]
  fc: Tensor; // [B·S, F]
  gelu: Tensor; // [B·S, F]
}

export interface GeneratorOptions {
  /** Keep keyed rows' KV cache from one call to the next (default on); off re-feeds every context from position 0. */
  reuseKv?: boolean;
  /** Feed contexts in prefill passes (default on); off feeds them one position per decode step. */
  prefill?: boolean;
}

/** Decode states (one per batch size) a Generator keeps between calls. */
const KEPT_STATES = 4;

export class Generator {
  private readonly states = new Map<number, DecodeState>();
  private readonly cached: CachedRows | undefined;
  private readonly prefill: boolean;

  constructor(
    readonly model: Gpt,
    options: GeneratorOptions = {},
  ) {
    this.cached = options.reuseKv === false ? undefined : new CachedRows();
    this.prefill = options.prefill !== false;
    if (model.config.head !== 'lm') throw new RangeError(`${model.label}: only a language-model head can generate`);
  }

  get gpu(): Gpu {
    return this.model.gpu;
  }

  /**
   * Continues each context by up to `budgets[i]` tokens. Contexts are token ids (at least one each);
   * context + budget must fit the model's context length. A keyed row whose key was in the last call
   * reuses that call's cache for the prefix its context shares with what was fed then; call
   * `forgetCache` whenever the model's weights change.
   */
  async generate(contexts: readonly (readonly number[])[], budgets: readonly number[], options: SamplingOptions): Promise<GeneratedRow[]> {
    const { contextLength: Tmax, vocabSize: V } = this.model.config;
    const B = contexts.length;
    if (B === 0) return [];
    if (budgets.length !== B) throw new RangeError(`generate: ${budgets.length} budgets for ${B} contexts`);
    for (let b = 0; b < B; b++) {
      const n = contexts[b].length;
      const budget = budgets[b];
      if (n < 1) throw new RangeError(`generate: context ${b} is empty; it needs at least one token`);
      if (!Number.isInteger(budget) || budget < 0) throw new RangeError(`generate: budget ${b} must be a non-negative integer, got ${budget}`);
      if (n + budget > Tmax) throw new RangeError(`generate: context ${b} (${n} tokens) plus its budget ${budget} exceeds the context length ${Tmax}`);
      for (const id of contexts[b])
        if (!Number.isInteger(id) || id < 0 || id >= V) throw new RangeError(`generate: context ${b} holds token ${id}, outside [0, ${V})`);
    }
    if (budgets.every((x) => x === 0)) return contexts.map(() => ({ ids: [], logprobs: [] }));
    if (options.keys) {
      if (options.keys.length !== B) throw new RangeError(`generate: ${options.keys.length} keys for ${B} contexts`);
      for (const [b, key] of options.keys.entries())
        if (!key.every((w) => Number.isInteger(w) && w >= 0 && w < 2 ** 32))
          throw new RangeError(`generate: key ${b} must be two u32 words, got ${JSON.stringify(key)}`);
    }
    if (options.stops) {
      if (options.stops.length !== B) throw new RangeError(`generate: ${options.stops.length} stop lists for ${B} contexts`);
      for (const [b, ids] of options.stops.entries())
        if (!ids.every((id) => Number.isInteger(id) && id >= 0 && id < V))
          throw new RangeError(`generate: stop list ${b} holds an id outside [0, ${V}): ${JSON.stringify(ids)}`);
    }

    const state = this.state(B);
    const plan: CachePlan = this.cached
      ? this.cached.plan(contexts, options.keys)
      : { slots: contexts.map((_, b) => b), cachedLen: contexts.map(() => 0), copies: undefined };
    const { slots, cachedLen } = plan;
    // Row b's prefill passes feed positions cachedLen[b] … n − 2; its steps start at `stepFrom`
    // (n − 1, or cachedLen[b] without prefill) and sample up to position n + budget − 2; every row
    // takes the longest row's number of steps (the others run on, their extra draws unread).
    const stepFrom = contexts.map((ctx, b) => (this.prefill ? ctx.length - 1 : cachedLen[b]));
    const steps = Math.max(...contexts.map((ctx, b) => (budgets[b] > 0 ? ctx.length + budgets[b] - 1 - stepFrom[b] : 0)));
    const prompt = new Uint32Array(B * Tmax);
    const promptLen = new Uint32Array(B);
    const firstInput = new Uint32Array(B);
    const firstPos = new Uint32Array(B);
    const keys = new Uint32Array(B * 2);
    contexts.forEach((ctx, b) => {
      const slot = slots[b];
      prompt.set(ctx, slot * Tmax);
      promptLen[slot] = ctx.length;
      firstInput[slot] = ctx[stepFrom[b]];
      firstPos[slot] = stepFrom[b];
      if (options.keys) keys.set(options.keys[b], slot * 2);
    });
    this.gpu.write(state.prompt, prompt);
    this.gpu.write(state.promptLen, promptLen);
    this.gpu.write(state.input, firstInput);
    this.gpu.write(state.pos, firstPos);
    if (options.keys) this.gpu.write(state.keys, keys);
    // Steps before row b's first draw: its context positions fed one per step (none with prefill).
    const feedSteps = contexts.map((ctx, b) => ctx.length - 1 - stepFrom[b]);
    const stopCheck = options.stops ? this.stopCheck(state, options.stops, slots) : undefined;
    let rec = this.gpu.begin('generate');
    if (plan.copies) this.recordCacheMoves(rec, this.state(plan.copies.fromB), state, plan.copies.moves);
    const callInputs = this.prefill ? this.recordPrefill(rec, state, contexts, slots, cachedLen) : [];
    if (stopCheck) callInputs.push(stopCheck.stops, stopCheck.ended);
    let taken = 0;
    let history: Uint32Array;
    let historyLogp: Float32Array;
    try {
      // Without stops every step goes in one submit. With them, a chunk at a time: after each, the
      // call ends once every row with a budget has drawn a stop or used the budget.
      for (;;) {
        const chunk = stopCheck ? Math.min(steps - taken, taken === 0 ? Math.max(...feedSteps) + FIRST_STOP_CHUNK_STEPS : STOP_CHUNK_STEPS) : steps;
        for (let s = 0; s < chunk; s++) this.recordStep(rec, state, options, stopCheck);
        this.gpu.submit(rec);
        taken += chunk;
        if (!stopCheck || taken >= steps) break;
        const ended = (await this.gpu.read(stopCheck.ended)) as Uint32Array;
        const going = contexts.some((_, b) => budgets[b] > 0 && ended[slots[b]] === 0 && taken - feedSteps[b] < budgets[b]);
        if (!going) break;
        rec = this.gpu.begin('generate');
      }
      [history, historyLogp] = (await this.gpu.readMany([state.history, state.historyLogp])) as [Uint32Array, Float32Array];
    } finally {
      for (const t of callInputs) this.gpu.destroy(t);
    }
    this.retireStates(B);

    // Row b's cache now holds positions 0 … stepFrom + taken − 1 (within the context); position t
    // was fed the context token while t < its length, else the draw at t − 1.
    const fed = (b: number) => {
      const ctx = contexts[b];
      const row = slots[b] * Tmax;
      const length = Math.min(stepFrom[b] + taken, Tmax);
      return Array.from({ length }, (_, t) => (t < ctx.length ? ctx[t] : history[row + t - 1]));
    };
    this.cached?.remember(B, options.keys, slots, fed);
    return contexts.map((ctx, b) => {
      const start = slots[b] * Tmax + ctx.length - 1;
      const drawn = Math.min(budgets[b], Math.max(0, taken - feedSteps[b]));
      const ids = Array.from(history.subarray(start, start + drawn));
      const logprobs = Array.from(historyLogp.subarray(start, start + drawn));
      return { ids, logprobs };
    });
  }

  /** The call's stop table ([B, K] by slot, padded with NO_STOP) and its `ended` flags, zeroed. */
  private stopCheck(st: DecodeState, stops: readonly (readonly number[])[], slots: readonly number[]): StopCheckBuffers {
    const K = Math.max(1, ...stops.map((ids) => ids.length));
    const table = new Uint32Array(st.B * K).fill(NO_STOP);
    for (const [b, ids] of stops.entries()) table.set(ids, slots[b] * K);
    const label = `${this.model.label}.decode`;
    return {
      K,
      stops: this.gpu.upload(table, [st.B, K], `${label}.stops[${st.B}]`),
      ended: this.gpu.upload(new Uint32Array(st.B), [st.B], `${label}.ended[${st.B}]`),
    };
  }

  /** Forgets which sequences the cache holds, so the next call feeds every context from position 0: call after the weights change. */
  forgetCache(): void {
    this.cached?.forget();
  }

  /** Releases the KV caches and decode buffers (the model stays). */
  destroy(): void {
    for (const st of this.states.values()) this.destroyState(st);
    this.states.clear();
    this.cached?.forget();
  }

  /**
   * Keeps the decode states of the KEPT_STATES batch sizes used last, the one just used among them
   * (the next call copies its reused rows from it). Concurrent episodes, evaluation sets draining
   * and compaction make every batch size from 1 up appear, and a state per size ever seen grew
   * memory with the square of the batch (each holds B rows of KV cache). Called once the call's
   * readback is in, when nothing submitted still uses an older state.
   */
  private retireStates(current: number): void {
    const st = this.states.get(current);
    if (!st) return;
    this.states.delete(current);
    this.states.set(current, st);
    for (const [B, old] of this.states) {
      if (this.states.size <= KEPT_STATES) break;
      this.destroyState(old);
      this.states.delete(B);
    }
  }

  private destroyState(st: DecodeState): void {
    const { B, prefill, kCache, vCache, ...rest } = st;
    for (const t of [...kCache, ...vCache, ...Object.values(rest)]) this.gpu.destroy(t);
    for (const pass of prefill.values()) for (const t of Object.values(pass)) this.gpu.destroy(t);
    prefill.clear();
  }

  /**
   * Records the prefill passes that feed each row's context from its cached length up to, not
   * including, its last token (which the first decode step feeds). A pass of length S takes
   * positions start … start + S − 1 of every row; a row with fewer left feeds padding there, whose
   * keys and values land at or after its last context position and are overwritten by the decode
   * steps before any query reads them (or lie past what `fed` claims, never read). Returns the
   * passes' input tensors, to destroy once the call's readback is in.
   */
  private recordPrefill(
    rec: Recorder,
    st: DecodeState,
    contexts: readonly (readonly number[])[],
    slots: readonly number[],
    cachedLen: readonly number[],
  ): Tensor[] {
    const { gpu, model } = this;
    const { config, weights: w } = model;
    const { B } = st;
    const { width: D, heads: H, vocabSize: V, contextLength: Tmax } = config;
    const toFeed = contexts.map((ctx, b) => ctx.length - 1 - cachedLen[b]);
    const cacheShape = { B, H, D, Tmax };
    const inputs: Tensor[] = [];
    let offset = 0;
    for (const S of prefillChunks(Math.max(...toFeed), B, Tmax)) {
      const R = B * S;
      const ids = new Uint32Array(R);
      const positions = new Uint32Array(R);
      const starts = new Uint32Array(B);
      contexts.forEach((ctx, b) => {
        const slot = slots[b];
        starts[slot] = cachedLen[b] + offset;
        for (let s = 0; s < S; s++) {
          const t = cachedLen[b] + offset + s;
          ids[slot * S + s] = offset + s < toFeed[b] ? ctx[t] : 0;
          positions[slot * S + s] = t;
        }
      });
      const input = gpu.upload(ids, [R], `${model.label}.prefill.input[${R}]`);
      const pos = gpu.upload(positions, [R], `${model.label}.prefill.pos[${R}]`);
      const start = gpu.upload(starts, [B], `${model.label}.prefill.start[${B}]`);
      inputs.push(input, pos, start);
      const a = this.prefillBuffers(st, S);
      recordDecodeEmbedding(rec, gpu, { input, pos, wte: w.wte, wpe: w.wpe, x: a.x }, { B: R, D, V, Tmax });
      for (let l = 0; l < config.layers; l++) {
        const kv = { kCache: st.kCache[l], vCache: st.vCache[l] };
        const pass: AttentionStep = (r, qkv, attn) => {
          recordKvCacheWrite(r, gpu, { qkv, pos: start, ...kv }, cacheShape, S);
          recordDecodeAttention(r, gpu, { qkv, pos, ...kv, out: attn }, cacheShape, S);
        };
        const buffers = { ...a, ln1: a.ln, ln1Stats: a.stats, ln2: a.ln, ln2Stats: a.stats, out: a.x };
        recordBlockForward(rec, gpu, w.layers[l], buffers, R, D, pass);
      }
      offset += S;
    }
    return inputs;
  }

  private prefillBuffers(st: DecodeState, S: number): PrefillBuffers {
    const known = st.prefill.get(S);
    if (known) return known;
    const { gpu, model } = this;
    const D = model.config.width;
    const R = st.B * S;
    const f = (shape: number[], name: string) => gpu.tensor(shape, 'f32', `${model.label}.prefill.${name}[${R}]`);
    const buffers = {
      x: f([R, D], 'x'),
      ln: f([R, D], 'ln'),
      stats: f([2, R], 'stats'),
      qkv: f([R, 3 * D], 'qkv'),
      attn: f([R, D], 'attn'),
      mid: f([R, D], 'mid'),
      fc: f([R, 4 * D], 'fc'),
      gelu: f([R, 4 * D], 'gelu'),
    };
    st.prefill.set(S, buffers);
    return buffers;
  }

  /** Copies each moved row's cache block, [H, Tmax, hd] per layer for keys and for values, from `from`'s slot to `to`'s. */
  private recordCacheMoves(rec: Recorder, from: DecodeState, to: DecodeState, moves: readonly { from: number; to: number }[]): void {
    const { heads: H, width: D, contextLength: Tmax, layers } = this.model.config;
    const block = H * Tmax * (D / H);
    for (let l = 0; l < layers; l++) {
      for (const m of moves) {
        rec.copyRange(from.kCache[l], m.from * block, to.kCache[l], m.to * block, block);
        rec.copyRange(from.vCache[l], m.from * block, to.vCache[l], m.to * block, block);
      }
    }
  }

  /** Records one position for every row: forward the input token, sample, check for stops, advance. */
  private recordStep(rec: Recorder, st: DecodeState, options: SamplingOptions, stopCheck?: StopCheckBuffers): void {
    const { gpu, model } = this;
    const { config, weights: w } = model;
    const { B } = st;
    const { width: D, heads: H, vocabSize: V, contextLength: Tmax } = config;
    const cacheShape = { B, H, D, Tmax };
    recordDecodeEmbedding(rec, gpu, { input: st.input, pos: st.pos, wte: w.wte, wpe: w.wpe, x: st.x }, { B, D, V, Tmax });
    for (let l = 0; l < config.layers; l++) {
      const kv = { pos: st.pos, kCache: st.kCache[l], vCache: st.vCache[l] };
      // Decode: write the new position's key and value into the cache, then attend over 0 … pos.
      const cached: AttentionStep = (r, qkv, attn) => {
        recordKvCacheWrite(r, gpu, { qkv, ...kv }, cacheShape);
        recordDecodeAttention(r, gpu, { qkv, ...kv, out: attn }, cacheShape);
      };
      const buffers = { ...st, ln1: st.ln, ln1Stats: st.stats, ln2: st.ln, ln2Stats: st.stats, out: st.x };
      recordBlockForward(rec, gpu, w.layers[l], buffers, B, D, cached);
    }
    recordLayerNormForward(rec, gpu, { x: st.x, weight: w.lnfw, bias: w.lnfb, out: st.ln, stats: st.stats }, { rows: B, D }, LAYER_NORM_EPS);
    recordMatmul(rec, gpu, { a: st.ln, b: w.headw, c: st.logits }, { M: B, K: D, N: V, layout: 'nt' });
    const keys = options.keys ? { keys: st.keys } : {};
    recordSample(rec, gpu, { logits: st.logits, counters: st.pos, tokens: st.sampled, logp: st.logp, ...keys }, { B, V }, options);
    if (stopCheck)
      recordStopCheck(
        rec,
        gpu,
        { sampled: st.sampled, pos: st.pos, promptLen: st.promptLen, stops: stopCheck.stops, ended: stopCheck.ended },
        { B, K: stopCheck.K },
      );
    recordAdvance(
      rec,
      gpu,
      {
        sampled: st.sampled,
        logp: st.logp,
        prompt: st.prompt,
        promptLen: st.promptLen,
        history: st.history,
        historyLogp: st.historyLogp,
        input: st.input,
        pos: st.pos,
      },
      { B, Tmax },
    );
  }

  private state(B: number): DecodeState {
    let st = this.states.get(B);
    if (st) return st;
    const { gpu, model } = this;
    const { width: D, heads: H, vocabSize: V, contextLength: Tmax, layers } = model.config;
    const hd = D / H;
    const f = (shape: number[], name: string) => gpu.tensor(shape, 'f32', `${model.label}.decode.${name}[${B}]`);
    const u = (shape: number[], name: string) => gpu.tensor(shape, 'u32', `${model.label}.decode.${name}[${B}]`);
    st = {
      B,
      kCache: Array.from({ length: layers }, (_, l) => f([B, H, Tmax, hd], `k${l}`)),
      vCache: Array.from({ length: layers }, (_, l) => f([B, H, Tmax, hd], `v${l}`)),
      x: f([B, D], 'x'),
      ln: f([B, D], 'ln'),
      stats: f([2, B], 'stats'),
      qkv: f([B, 3 * D], 'qkv'),
      attn: f([B, D], 'attn'),
      mid: f([B, D], 'mid'),
      fc: f([B, 4 * D], 'fc'),
      gelu: f([B, 4 * D], 'gelu'),
      logits: f([B, V], 'logits'),
      sampled: u([B], 'sampled'),
      logp: f([B], 'logp'),
      prompt: u([B, Tmax], 'prompt'),
      promptLen: u([B], 'promptLen'),
      history: u([B, Tmax], 'history'),
      historyLogp: f([B, Tmax], 'historyLogp'),
      input: u([B], 'input'),
      pos: u([B], 'pos'),
      keys: u([B, 2], 'keys'),
      prefill: new Map(),
    };
    this.states.set(B, st);
    return st;
  }
}
