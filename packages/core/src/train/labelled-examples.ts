// Labelled completions from a file instead of the policy's rollouts (a method's `labelledFile`, KTO's
// `kto.source = "file"`):
// TRL's unpaired preference format, one JSON object per line, {"prompt": …, "completion": …,
// "label": true | false} (huggingface/trl, "unpaired preference" datasets; other keys are ignored,
// as TRL ignores extra columns). The front end reads the file (core touches no file system) and
// hands its text here; a bad row is one sentence naming the file and its line, before anything is
// written. Prompt and completion are encoded with the task's character vocabulary (specials off, so
// a file cannot forge a special token); a character outside it is an error naming the character and
// the line, since the vocabulary has no unknown token.
//
// Each iteration trains on the next P × G rows of a seeded shuffle of the file (reshuffled on each
// pass), located by the run's training cursor, so a resumed run reads the same rows. A row becomes
// a Sample like a rollout's: the completion and <eos> are its action tokens, the label its reward
// (1 desirable, 0 undesirable) on the last one; the log-probs a sampler would have recorded are 0.

import { ALGORITHM_BY_NAME } from '../algorithms/index.ts';
import { KIND_CODE, maskOfKinds, type Sample, TRAINABLE_KINDS } from '../envs/sample.ts';
import { mixSeed } from '../envs/seeds.ts';
import { createTask } from '../envs/tasks.ts';
import { echo, InputError } from '../errors.ts';
import type { Recipe } from '../recipe/schema.ts';
import { CharTokenizer } from '../tokenizer/char-tokenizer.ts';
import { shuffled } from './shuffled.ts';

export interface LabelledExample {
  prompt: string;
  completion: string;
  desirable: boolean;
  /** 1-based line of the file it came from. */
  line: number;
  /** prompt + completion + <eos>, and where the completion starts. */
  tokens: number[];
  responseStart: number;
}

/** Salt of the file order's shuffle. */
const LABELLED_STREAM = 14;

/** The file a recipe's method trains from instead of rollouts, if any. */
export function labelledFileOf(recipe: Recipe): string | undefined {
  return ALGORITHM_BY_NAME[recipe.rl.algorithm].labelledFile?.(recipe);
}

const describeType = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'string' ? 'text' : `a ${typeof v}`);

/** Parses and tokenizes the file's rows; throws an InputError naming the file and line of the first bad row. */
export function parseLabelledFile(name: string, text: string, recipe: Recipe): LabelledExample[] {
  const tokenizer = new CharTokenizer(createTask(recipe.task, recipe.eval).vocabulary);
  const limit = recipe.model.contextLength;
  const where = (line: number) => `kto.file ${echo(name)} line ${line}`;
  const fail = (line: number, problem: string): never => {
    throw new InputError('recipe', `${where(line)} ${problem}.`);
  };
  const examples: LabelledExample[] = [];
  const lines = text.split('\n');
  for (const [i, raw] of lines.entries()) {
    const line = i + 1;
    if (raw.trim() === '') continue;
    let row: unknown;
    try {
      row = JSON.parse(raw);
    } catch {
      fail(line, 'is not valid JSON; each line must be one object {"prompt": …, "completion": …, "label": true|false}');
    }
    if (typeof row !== 'object' || row === null || Array.isArray(row)) fail(line, `must be a JSON object, got ${describeType(row)}`);
    const { prompt, completion, label } = row as Record<string, unknown>;
    for (const [key, value] of [
      ['prompt', prompt],
      ['completion', completion],
    ] as const)
      if (typeof value !== 'string') fail(line, `needs "${key}" as text, got ${value === undefined ? 'nothing' : describeType(value)}`);
    if (typeof label !== 'boolean')
      fail(line, `needs "label" as true (desirable) or false (undesirable), got ${label === undefined ? 'nothing' : describeType(label)}`);
    const encode = (key: string, value: string): number[] => {
      try {
        return tokenizer.encode(value, { specials: false });
      } catch {
        const bad = [...value].find((ch) => {
          try {
            tokenizer.encode(ch, { specials: false });
            return false;
          } catch {
            return true;
          }
        }) as string;
        return fail(line, `has ${JSON.stringify(bad)} in "${key}", which is not in the task's vocabulary (${JSON.stringify(tokenizer.characters.join(''))})`);
      }
    };
    const promptIds = encode('prompt', prompt as string);
    const completionIds = encode('completion', completion as string);
    if (promptIds.length === 0) fail(line, 'has an empty "prompt"');
    const tokens = [...promptIds, ...completionIds, tokenizer.eosId];
    if (tokens.length > limit) fail(line, `is ${tokens.length} tokens with <eos>, more than model.contextLength (${limit})`);
    examples.push({ prompt: prompt as string, completion: completion as string, desirable: label as boolean, line, tokens, responseStart: promptIds.length });
  }
  if (examples.length === 0) throw new InputError('recipe', `kto.file ${echo(name)} holds no rows; give one JSON object per line.`);
  return examples;
}

/** The `count` samples an iteration trains on, from training position `start` (cursor × group size). */
export function labelledBatch(examples: readonly LabelledExample[], runSeed: number, start: number, count: number): Sample[] {
  const n = examples.length;
  const orders = new Map<number, number[]>();
  return Array.from({ length: count }, (_, j) => {
    const position = start + j;
    const pass = Math.floor(position / n);
    let order = orders.get(pass);
    if (!order) {
      order = shuffled(n, mixSeed(runSeed, LABELLED_STREAM, pass));
      orders.set(pass, order);
    }
    const example = examples[order[position % n]];
    const L = example.tokens.length;
    // The file's completion stands where a rollout's action would: it trains (kind action, mask 1).
    const tokenKinds = new Uint8Array(L).fill(KIND_CODE.prompt);
    tokenKinds.fill(KIND_CODE.action, example.responseStart);
    const reward = example.desirable ? 1 : 0;
    return {
      tokens: example.tokens.slice(),
      responseStart: example.responseStart,
      tokenKinds,
      actionMask: maskOfKinds(tokenKinds, TRAINABLE_KINDS),
      observationMask: new Uint8Array(L),
      rolloutLogprobs: new Float32Array(L),
      stepRewards: [{ position: L - 1, value: reward }],
      reward,
      status: 'completed',
      done: true,
      truncated: false,
      seed: example.line,
      rolloutId: j,
      groupId: j,
      segmentIndex: 0,
      tokensAfter: 0,
      prompt: example.prompt,
      turns: [{ action: example.completion, ending: 'eos' }],
      meta: { correct: example.desirable, line: example.line },
    };
  });
}
