// The most likely tokens at each position of a completion, for OpenAI's `top_logprobs`: the GPU
// sampler reads back only the sampled token and its log-prob (model/generate.ts), so a completion that
// asks for alternatives is scored again by one full forward pass of the policy over prompt +
// completion, and the host takes the log-softmax of each row of logits (a character vocabulary is a
// few dozen logits per position). The distribution is the model's own, softmax(logits) at temperature
// 1 over every token — OpenAI's meaning of top_logprobs — not the sampling distribution after
// temperature and top-k, which the per-token `logprob` reports. Inputs are padded to the context
// length so one activation set serves every request (causal attention: the padding after a position
// cannot change it), and passes run one at a time, since they share that set.

import type { Gpt } from '../model/gpt.ts';

export interface TokenLogprob {
  id: number;
  logprob: number;
}

/** What the handlers need: the k most likely tokens before each completion token. */
export interface TopLogprobSource {
  topLogprobs(prompt: readonly number[], completion: readonly number[], k: number): Promise<TokenLogprob[][]>;
}

export class TopLogprobScorer implements TopLogprobSource {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly model: Gpt) {
    if (model.config.head !== 'lm') throw new RangeError(`${model.label}: only a language-model head has token log-probs`);
  }

  topLogprobs(prompt: readonly number[], completion: readonly number[], k: number): Promise<TokenLogprob[][]> {
    const run = this.queue.then(() => this.score(prompt, completion, k));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async score(prompt: readonly number[], completion: readonly number[], k: number): Promise<TokenLogprob[][]> {
    if (completion.length === 0) return [];
    const { gpu, config } = this.model;
    const { contextLength: T, vocabSize: V } = config;
    const sequence = [...prompt, ...completion];
    if (sequence.length > T) throw new RangeError(`top_logprobs: ${sequence.length} tokens exceed the context length ${T}`);
    // Position t's logits predict token t + 1: the completion's tokens are predicted by positions prompt.length − 1 ….
    const inputs = new Uint32Array(T);
    inputs.set(sequence.slice(0, -1));
    const tokens = gpu.upload(inputs, [1, T], 'serve.topLogprobs.tokens');
    try {
      const acts = this.model.activations(1, T);
      const rec = gpu.begin('top-logprobs');
      this.model.recordForward(rec, acts, tokens);
      gpu.submit(rec);
      const logits = (await gpu.read(acts.output)) as Float32Array;
      return completion.map((_, j) => topOfRow(logits.subarray((prompt.length - 1 + j) * V, (prompt.length + j) * V), k));
    } finally {
      gpu.destroy(tokens);
    }
  }
}

/** The k largest log-softmax entries of one row of logits, most likely first (ties: the lower id). */
export function topOfRow(row: ArrayLike<number>, k: number): TokenLogprob[] {
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < row.length; i++) max = Math.max(max, row[i]);
  let sum = 0;
  for (let i = 0; i < row.length; i++) sum += Math.exp(row[i] - max);
  const logZ = max + Math.log(sum);
  const ids = Array.from({ length: row.length }, (_, i) => i).sort((a, b) => row[b] - row[a] || a - b);
  return ids.slice(0, k).map((id) => ({ id, logprob: row[id] - logZ }));
}
