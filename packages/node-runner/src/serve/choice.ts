// One choice of a request: samples a continuation of the prompt through the scheduler and cuts it as
// OpenAI does — at <eos> (finish_reason "stop"), at the first stop string (the text ends before it,
// finish_reason "stop"), or at max_tokens or the end of the context (finish_reason "length").
// Streaming gets the text as it grows, holding back any tail that could still become a stop string,
// so a stop string never reaches the client. The token ids keep everything sampled, <eos> and the
// stop string included: they are the action a trainer would score.

import { mixSeed } from '@horizon/core';
import type { ServedModel } from './served-model.ts';

export interface ChoiceSettings {
  maxTokens: number;
  temperature: number;
  topK: number;
  /** The request's seed (any safe integer) or undefined for a fresh draw. */
  seed: number | undefined;
  index: number;
  stop: readonly string[];
  /** Client gone: stop sampling. */
  signal: AbortSignal;
  /** Time is up: end the choice where it is (finish_reason "length"). */
  deadline: AbortSignal;
  /** Text from the first occurrence of this on is held back from onDelta (a tool call, which the chat handler sends as tool_calls). */
  holdFrom?: string;
  /** Called with each new piece of text and the tokens sampled since the last call. */
  onDelta?: (text: string, ids: number[], logprobs: number[]) => void;
}

export interface ChoiceResult {
  index: number;
  text: string;
  ids: number[];
  logprobs: number[];
  finishReason: 'stop' | 'length';
  /** How the sampled action ended, in the episode runner's terms (the chat template reads tool calls by it). */
  ending: 'eos' | 'stop' | 'length';
  /** The stop string it ended at. */
  stopString?: string;
  aborted: boolean;
}

/** The row key of a choice: its seed's two halves mixed into one word, and its index. */
export function choiceKey(seed: number | undefined, index: number): readonly [number, number] {
  const word =
    seed === undefined
      ? crypto.getRandomValues(new Uint32Array(1))[0]
      : mixSeed(Number(BigInt.asUintN(32, BigInt(seed))), Number(BigInt.asUintN(32, BigInt(seed) >> 32n)));
  return [word, index];
}

/** Length of the longest tail of `text` that begins some stop string (held back while streaming). */
function pendingStop(text: string, stops: readonly string[]): number {
  let longest = 0;
  for (const s of stops) for (let k = Math.min(s.length - 1, text.length); k > longest; k--) if (text.endsWith(s.slice(0, k))) longest = k;
  return longest;
}

export async function runChoice(model: ServedModel, prompt: readonly number[], settings: ChoiceSettings): Promise<ChoiceResult> {
  const { tokenizer } = model;
  const eos = tokenizer.id('<eos>');
  const ids: number[] = [];
  const logprobs: number[] = [];
  let text = '';
  let sent = 0;
  let sentIds = 0;
  let ending: ChoiceResult['ending'] = 'length';
  let stopString: string | undefined;
  const signal = AbortSignal.any([settings.signal, settings.deadline]);
  const flush = (final: boolean) => {
    if (!settings.onDelta) return;
    let visible = final ? text.length : text.length - pendingStop(text, settings.stop);
    const held = settings.holdFrom === undefined ? -1 : text.indexOf(settings.holdFrom);
    if (held >= 0) visible = Math.min(visible, held);
    if (visible > sent || (final && ids.length > sentIds)) {
      settings.onDelta(text.slice(sent, visible), ids.slice(sentIds), logprobs.slice(sentIds));
      sent = Math.max(sent, visible);
      sentIds = ids.length;
    }
  };
  const end = await model.scheduler.run({
    prompt,
    maxTokens: settings.maxTokens,
    temperature: settings.temperature,
    topK: settings.topK,
    key: choiceKey(settings.seed, settings.index),
    signal,
    onChunk: (chunk, chunkLogprobs) => {
      for (let i = 0; i < chunk.length; i++) {
        ids.push(chunk[i]);
        logprobs.push(chunkLogprobs[i]);
        if (chunk[i] === eos) {
          ending = 'eos';
          flush(true);
          return { keep: i + 1, done: true };
        }
        text += tokenizer.decode([chunk[i]]);
        const hit = settings.stop.find((s) => text.endsWith(s));
        if (hit !== undefined) {
          ending = 'stop';
          stopString = hit;
          text = text.slice(0, text.length - hit.length);
          flush(true);
          return { keep: i + 1, done: true };
        }
      }
      flush(false);
      return { keep: chunk.length, done: false };
    },
  });
  if (end !== 'done') flush(true);
  return {
    index: settings.index,
    text,
    ids,
    logprobs,
    finishReason: ending === 'length' ? 'length' : 'stop',
    ending,
    ...(stopString !== undefined ? { stopString } : {}),
    aborted: settings.signal.aborted,
  };
}
