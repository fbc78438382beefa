// `horizon export --format nanogpt|hf` loaded by PyTorch: a tiny-recipe checkpoint (random weights,
// untied lm_head, saved and committed through the run's checkpoint store) is exported by the CLI
// command, its logits are computed by Horizon's float64 reference model (model/reference/gpt.ts, the
// spec the GPU model is checked against in tests/golden), and the exports are loaded by
// load_nanogpt.py and by check_hf_gpt2.py (a GPT-2 forward written from transformers' code; and
// transformers itself when HORIZON_HF_PYTHON names a Python that has it). Needs /usr/bin/python3
// with torch (python3-torch); without it the PyTorch checks are skipped and say why.

import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CharTokenizer,
  type Checkpoint,
  decodeSafetensors,
  type GptConfig,
  modelConfigs,
  parameterLayout,
  recipeVocabSize,
  recipeVocabulary,
  referenceForward,
  resolveRecipe,
  saveCheckpoint,
} from '@horizon/core';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../main.ts';
import { DirectoryCheckpointStore } from '../run/checkpoint-store.ts';
import { tokenizerConfigJson, tokenizerJson } from './hf-tokenizer.ts';
import { EXPORT_SCRIPTS, maxAbsDiff, runPythonJson, torchMissing } from './torch-python.ts';
import { exportVocabulary } from './vocabulary.ts';
import { writeFolder } from './write-output.ts';

const root = await mkdtemp(join(tmpdir(), 'horizon-export-'));
afterAll(() => rm(root, { recursive: true, force: true }));

const recipe = resolveRecipe({ preset: 'tiny' }).recipe;
const config: GptConfig = modelConfigs(recipe, recipeVocabSize(recipe)).policy;
const layout = parameterLayout(config);
const V = config.vocabSize;
const T = config.contextLength;

/** Deterministic uniform(−a, a) draws (a 32-bit LCG): weights no two tensors share, so a tied head would show. */
function uniform(seed: number, n: number, a: number): Float32Array {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return (s / 2 ** 32 - 0.5) * 2 * a;
  });
}

/** Random weights at a scale that gives logits of a few units; LayerNorm weights around 1. */
function randomParams(seed: number): Float32Array {
  const params = new Float32Array(layout.totalSize);
  for (const [k, e] of layout.entries.entries()) {
    const draw = uniform(seed * 1000 + k, e.size, 0.3);
    for (let i = 0; i < e.size; i++) params[e.offset + i] = /ln_\d|ln_f/.test(e.name) && e.name.endsWith('.weight') ? 1 + draw[i] : draw[i];
  }
  return params;
}

function checkpointOf(params: Float32Array): Checkpoint {
  return {
    step: 3,
    recipe,
    models: { policy: { config, params } },
    rng: {},
    dataCursor: {},
    extra: {},
    vocabulary: recipeVocabulary(recipe),
    trainerState: {},
  };
}

/** Commits `params` as a checkpoint of a run directory and returns the run directory. */
async function runWith(name: string, params: Float32Array): Promise<string> {
  const run = join(root, name);
  await saveCheckpoint(new DirectoryCheckpointStore(join(run, 'checkpoints')), checkpointOf(params), { keepLast: 1 });
  return run;
}

// Three sequences of the full context: "12+34=46<eos>9+91=10", and two of random ids.
const tokenizer = new CharTokenizer({ characters: '0123456789+=', specialTokens: ['<eos>'], unknownToken: false });
const rows = [
  tokenizer.encode('12+34=46<eos>9+91=10'),
  Array.from(uniform(7, T, 1), (x) => Math.floor((x + 1) * 6.5) % V),
  Array.from({ length: T }, (_, i) => (i * 5) % V),
];
const tokensJson = JSON.stringify(rows);

/** Horizon's logits for `rows`, [B][T][V], from the float64 reference model. */
function horizonLogits(params: Float32Array): number[][][] {
  const ids = Int32Array.from(rows.flat());
  const { logits } = referenceForward(config, Float64Array.from(params), ids, rows.length, T);
  return rows.map((_, b) => Array.from({ length: T }, (_, t) => Array.from((logits as Float64Array).subarray((b * T + t) * V, (b * T + t + 1) * V))));
}

const params = randomParams(1);
const expected = horizonLogits(params);
const missing = torchMissing();
const exportTo = async (run: string, format: string, out: string) => main(['export', '--checkpoint', run, '--format', format, '--out', out]);

describe('horizon export --format nanogpt|hf', () => {
  it('the tokenizer reproduces the vocabulary the recipe stores (so the test rows mean what they say)', () => {
    expect(tokenizer.pieceList()).toEqual(recipeVocabulary(recipe));
    expect(rows.every((r) => r.length === T)).toBe(true);
  });

  it('writes nanoGPT names without transposes, and GPT-2 Conv1D weights transposed', async () => {
    const run = await runWith('layout', params);
    expect(await exportTo(run, 'nanogpt', join(root, 'layout-nano'))).toBe(0);
    expect(await exportTo(run, 'hf', join(root, 'layout-hf'))).toBe(0);
    const nano = decodeSafetensors(new Uint8Array(await readFile(join(root, 'layout-nano', 'model.safetensors'))));
    const hf = decodeSafetensors(new Uint8Array(await readFile(join(root, 'layout-hf', 'model.safetensors'))));
    const D = config.width;
    expect(nano.tensors.get('transformer.h.0.attn.c_attn.weight')?.shape).toEqual([3 * D, D]);
    expect(hf.tensors.get('transformer.h.0.attn.c_attn.weight')?.shape).toEqual([D, 3 * D]);
    expect(hf.tensors.get('transformer.h.1.mlp.c_proj.weight')?.shape).toEqual([4 * D, D]);
    expect(hf.tensors.get('lm_head.weight')?.shape).toEqual([V, D]);
    expect([...nano.tensors.keys()].sort()).toEqual([...hf.tensors.keys()].sort());
    const hfConfig = JSON.parse(await readFile(join(root, 'layout-hf', 'config.json'), 'utf8'));
    expect(hfConfig).toMatchObject({ tie_word_embeddings: false, activation_function: 'gelu_new', layer_norm_epsilon: 1e-5, n_embd: D, vocab_size: V });
    const vocab = JSON.parse(await readFile(join(root, 'layout-nano', 'vocabulary.json'), 'utf8'));
    expect(vocab.pieces).toEqual(recipeVocabulary(recipe));
  });

  it('refuses bad input in one sentence with exit 2 and writes nothing', async () => {
    const run = await runWith('bad', params);
    const out = join(root, 'bad-out');
    expect(await main(['export', '--checkpoint', join(root, 'nowhere'), '--format', 'nanogpt', '--out', out])).toBe(2);
    expect(await main(['export', '--checkpoint', run, '--model', 'critic', '--format', 'nanogpt', '--out', out])).toBe(2);
    expect(await main(['export', '--checkpoint', run, '--format', 'onnx', '--out', out])).toBe(2);
    await expect(readFile(join(out, 'model.safetensors'))).rejects.toThrow();
  });

  describe.skipIf(missing !== undefined)(`loaded by PyTorch${missing ? ` (skipped: ${missing})` : ''}`, () => {
    it('nanoGPT form: load_nanogpt.py reproduces Horizon logits within 1e-4 (float32) and 1e-9 (float64)', async () => {
      const run = await runWith('nano', params);
      const out = join(root, 'nano-out');
      expect(await exportTo(run, 'nanogpt', out)).toBe(0);
      const f32 = runPythonJson(join(out, 'load_nanogpt.py'), [out, '--tokens', tokensJson]);
      const f64 = runPythonJson(join(out, 'load_nanogpt.py'), [out, '--tokens', tokensJson, '--dtype', 'float64']);
      const d32 = maxAbsDiff(f32.logits, expected);
      const d64 = maxAbsDiff(f64.logits, expected);
      console.log(`nanoGPT form (torch ${f32.torch}): max |Δlogit| float32 ${d32.toExponential(2)}, float64 ${d64.toExponential(2)}`);
      expect(d32).toBeLessThan(1e-4);
      expect(d64).toBeLessThan(1e-9);
    });

    it('Hugging Face form: the GPT-2 forward of transformers reproduces Horizon logits within 1e-4', async () => {
      const run = await runWith('hf', params);
      const out = join(root, 'hf-out');
      expect(await exportTo(run, 'hf', out)).toBe(0);
      const f32 = runPythonJson(EXPORT_SCRIPTS.hf, [out, '--tokens', tokensJson]);
      const f64 = runPythonJson(EXPORT_SCRIPTS.hf, [out, '--tokens', tokensJson, '--dtype', 'float64']);
      const d32 = maxAbsDiff(f32.manual, expected);
      const d64 = maxAbsDiff(f64.manual, expected);
      console.log(`HF form, hand-written GPT-2 forward (torch ${f32.torch}): max |Δlogit| float32 ${d32.toExponential(2)}, float64 ${d64.toExponential(2)}`);
      expect(d32).toBeLessThan(1e-4);
      expect(d64).toBeLessThan(1e-9);
    });

    it('the untied lm_head is really untied: zeroing one row of it zeroes that logit alone', async () => {
      const zeroed = params.slice();
      const head = layout.entries.find((e) => e.name === 'lm_head.weight') as (typeof layout.entries)[number];
      const row = 3;
      zeroed.fill(0, head.offset + row * config.width, head.offset + (row + 1) * config.width);
      const run = await runWith('untied', zeroed);
      const out = join(root, 'untied-out');
      expect(await exportTo(run, 'nanogpt', out)).toBe(0);
      const got = runPythonJson(join(out, 'load_nanogpt.py'), [out, '--tokens', tokensJson, '--dtype', 'float64']).logits as number[][][];
      // wte's row 3 still embeds token 3 (the rows above use it), so only column 3 moves.
      expect(got.flat().every((logits) => logits[row] === 0)).toBe(true);
      const others = (x: number[][][]) => x.map((b) => b.map((l) => l.filter((_, v) => v !== row)));
      expect(maxAbsDiff(others(got), others(expected))).toBeLessThan(1e-9);
      expect(maxAbsDiff(got, horizonLogits(zeroed))).toBeLessThan(1e-9);
    });

    const hfPython = process.env.HORIZON_HF_PYTHON;
    it.skipIf(!hfPython)(
      `transformers' GPT2LMHeadModel and tokenizer load the HF folder${hfPython ? '' : ' (skipped: set HORIZON_HF_PYTHON to a Python with transformers)'}`,
      async () => {
        const run = await runWith('hf-transformers', params);
        const out = join(root, 'hf-transformers-out');
        expect(await exportTo(run, 'hf', out)).toBe(0);
        const texts = ['12+34=46<eos>', '9+9=18'];
        const got = runPythonJson(EXPORT_SCRIPTS.hf, [out, '--tokens', tokensJson, '--texts', JSON.stringify(texts)], hfPython).transformers as Record<
          string,
          unknown
        >;
        expect(got.unavailable).toBeUndefined();
        const d = maxAbsDiff(got.logits, expected);
        console.log(`HF form through transformers ${got.version}: max |Δlogit| float32 ${d.toExponential(2)}`);
        expect(got.tied).toBe(false);
        expect(d).toBeLessThan(1e-4);
        expect(got.encoded).toEqual(texts.map((t) => tokenizer.encode(t)));
        expect(got.decoded).toEqual(texts);
      },
    );

    it.skipIf(!hfPython)(
      `tokenizer.json encodes as CharTokenizer with every special, <unk> and code points past U+FFFF${hfPython ? '' : ' (skipped)'}`,
      async () => {
        const full = new CharTokenizer();
        const vocab = exportVocabulary(full.pieceList());
        const out = join(root, 'tokenizer-full');
        await writeFolder(
          out,
          new Map([
            ['tokenizer.json', tokenizerJson(vocab)],
            ['tokenizer_config.json', tokenizerConfigJson(vocab, 256)],
          ]),
        );
        const texts = ['<user>hi\n<tool_call>ls -la</tool_call><tool_result>é ok</tool_result><eos>', 'a<b <eos2> ~\t\u{1F600}x'];
        const got = runPythonJson(EXPORT_SCRIPTS.hf, [out, '--texts', JSON.stringify(texts)], hfPython).transformers as Record<string, unknown>;
        expect(got.encoded).toEqual(texts.map((t) => full.encode(t)));
        expect(got.decoded).toEqual(texts.map((t) => full.decode(full.encode(t))));
        // The tab and the emoji (and é in the first text) are outside printable ASCII: each is one <unk>, as in Horizon.
        expect((got.encoded as number[][])[1].filter((id) => id === full.unkId)).toHaveLength(2);
      },
    );
  });
});
