// Every bad input is one sentence and exit 2 — no stack trace, no hang, no absurd memory
// (docs/reliability.md §3.3, §6): real processes, as a user meets them.

import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Checkpoint, modelConfigs, parameterLayout, recipeVocabSize, recipeVocabulary, resolveRecipe, saveCheckpoint } from '@horizon/core';
import { afterAll, describe, expect, it } from 'vitest';
import { DirectoryCheckpointStore } from '../../packages/node-runner/src/run/checkpoint-store.ts';
import { SHORT_TINY_FLAGS } from '../support/recipes.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const main = join(root, 'packages', 'node-runner', 'src', 'main.ts');
const bin = join(root, 'packages', 'node-runner', 'bin', 'horizon.mjs');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const scratch = mkdtempSync(join(tmpdir(), 'horizon-bad-input-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function horizon(args: string[], timeout = 120_000) {
  const run = spawnSync(tsx, [main, ...args], { cwd: root, encoding: 'utf8', timeout });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr, signal: run.signal };
}

/** One line on stderr, prefixed by the command, and no stack trace. */
function oneSentence(r: ReturnType<typeof horizon>, command: string): string {
  expect(r.code, r.stderr).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^horizon ${command}: `));
  return lines[0];
}

const file = (name: string, text: string) => {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
};

describe('the package bin', () => {
  it('runs the command once (it ran main twice: the second train found the run directory taken and exited 2)', () => {
    const out = join(scratch, 'bin-run');
    const args = ['train', '--quiet', '--recipe', 'tiny', ...SHORT_TINY_FLAGS, '--set', 'rl.iterations=1', '--set', 'eval.interval=0', '--out', out];
    const run = spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', timeout: 170_000 });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout.match(/run directory: /g)).toHaveLength(1);
    expect(existsSync(join(out, 'metrics.jsonl'))).toBe(true);
  }, 180_000);
});

describe('recipes', () => {
  it('a FIFO as --recipe is refused at once instead of hanging, and no run directory appears', () => {
    const fifo = join(scratch, 'fifo.json');
    execFileSync('mkfifo', [fifo]);
    const out = join(scratch, 'fifo-run');
    const r = horizon(['train', '--recipe', fifo, '--out', out], 60_000);
    expect(r.signal).toBeNull();
    expect(oneSentence(r, 'train')).toBe(
      `horizon train: recipe file ${fifo} is not a regular file (a pipe, a device or a socket); give a .json file or a preset name.`,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('a recipe nested 200,000 deep is one sentence, not a stack overflow', () => {
    const deep = file('deep.json', `{"extends": "tiny", "rl": {"epochs": ${'['.repeat(200_000)}${']'.repeat(200_000)}}}`);
    expect(oneSentence(horizon(['recipe', '--recipe', deep]), 'recipe')).toBe(
      `horizon recipe: recipe file ${deep} nests objects or arrays more than 8 deep; a recipe is sections of fields (see \`horizon recipe\`).`,
    );
  });

  it('a long value is echoed in 80 characters and counted, and a 10 MB file is refused by size', () => {
    const long = file('long.json', JSON.stringify({ extends: 'tiny', name: 'x'.repeat(200_000) }));
    const line = oneSentence(horizon(['recipe', '--recipe', long]), 'recipe');
    expect(line).toContain(`name (from file ${long}) must be 1–64 lowercase letters`);
    expect(line).toContain(`got "${'x'.repeat(80)}…(200000 chars)"`);
    expect(line.length).toBeLessThan(400);
    const huge = file('huge.json', JSON.stringify({ extends: 'tiny', name: 'x'.repeat(10_000_000) }));
    expect(oneSentence(horizon(['recipe', '--recipe', huge]), 'recipe')).toBe(
      `horizon recipe: recipe file ${huge} holds ${readFileSync(huge).length} bytes, more than a recipe needs (at most 1048576); give a .json recipe file.`,
    );
  });

  it('1e999 is reported as not a finite number (JSON.stringify said "null")', () => {
    const inf = file('inf.json', '{"extends": "tiny", "rl": {"policyLr": 1e999}}');
    expect(oneSentence(horizon(['recipe', '--recipe', inf]), 'recipe')).toMatch(
      /rl\.policyLr \(from file .*\) must be .*, got Infinity \(not a finite number\)\.$/,
    );
  });
});

describe('method-specific input', () => {
  it('a field of another method is one sentence naming it, its readers and rl.algorithm, and nothing is written', () => {
    const out = join(scratch, 'foreign-field');
    const r = horizon(['train', '--quiet', '--recipe', 'add-grpo', '--set', 'rl.criticLr=0.002', '--out', out]);
    expect(oneSentence(r, 'train')).toBe("horizon train: rl.criticLr (from --set) is read by ppo, sao; this recipe's rl.algorithm is grpo.");
    expect(existsSync(out)).toBe(false);
  });

  it('a KTO file with a bad row names the file and the line, and nothing is written', () => {
    const rows = file(
      'kto.jsonl',
      `${JSON.stringify({ prompt: '1+2=', completion: '3', label: true })}\n{"prompt": "1+1=", "completion": "2", "label": "yes"}\n`,
    );
    const out = join(scratch, 'kto-bad-row');
    const r = horizon(['train', '--quiet', '--recipe', 'add-kto', '--set', 'kto.source=file', '--set', `kto.file=${rows}`, '--out', out]);
    expect(oneSentence(r, 'train')).toBe(`horizon train: kto.file ${rows} line 2 needs "label" as true (desirable) or false (undesirable), got text.`);
    expect(existsSync(out)).toBe(false);
  });
});

describe('recipes the device or the kernels cannot run', () => {
  for (const [sets, message] of [
    [['model.policy.width=1024'], 'model.policy.width 1024 with 4 heads gives heads 256 wide, more than the 128 the attention kernels support'],
    [
      ['model.policy.width=4096', 'model.policy.heads=64', 'model.policy.layers=64'],
      "model.policy.width: the policy's 12,888,489,984 parameters need a 48.0 GiB buffer",
    ],
    [['model.policy.width=4096', 'model.policy.heads=64', 'model.policy.layers=1'], 'more than the 2 GiB a checkpoint file may hold'],
  ] as const) {
    it(`--set ${sets.join(' ')}: one sentence naming the field, before training`, () => {
      const out = join(scratch, `fits-${sets.length}-${sets[0].length}`);
      const r = horizon(['train', '--quiet', '--recipe', 'tiny', ...sets.flatMap((s) => ['--set', s]), '--out', out]);
      expect(r.stdout).not.toContain('run directory:');
      const line = r.stderr.trim().split('\n').at(-1) ?? '';
      expect(r.code, r.stderr).toBe(2);
      expect(line).toContain(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    });
  }
});

describe('explain', () => {
  it('a mask must be 0s and 1s', () => {
    expect(oneSentence(horizon(['explain', 'gae', '--rewards', '0,0,1', '--mask', '1,0.5,1']), 'explain')).toBe(
      'horizon explain: --mask must be 0s and 1s (1 = action token, 0 = observation); item 2 is 0.5.',
    );
  });

  it('a negative list after --logp says how to write it', () => {
    const r = horizon(['explain', 'ppo', '--logp', '-1.2,-0.5']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('horizon explain: the value of --logp starts with "-", so it reads as a flag; write it as --logp=-1.2,-0.5.');
  });
});

describe('a damaged checkpoint is one sentence naming the file', () => {
  const recipe = resolveRecipe({ preset: 'tiny' }).recipe;
  const config = modelConfigs(recipe, recipeVocabSize(recipe)).policy;
  const checkpoint = (): Checkpoint => {
    const layout = parameterLayout(config);
    const params = new Float32Array(layout.totalSize);
    for (const e of layout.entries) params.fill(0.01, e.offset, e.offset + e.size);
    return {
      step: 1,
      recipe,
      models: { policy: { config, params, adam: { step: 3, m: params.slice(), v: params.slice() } }, reference: { config, params: params.slice() } },
      rng: {},
      dataCursor: { train: 16 },
      extra: {},
      vocabulary: recipeVocabulary(recipe),
      trainerState: {},
    };
  };

  it('an edited data cursor in state.json', async () => {
    const dir = join(scratch, 'edited');
    await saveCheckpoint(new DirectoryCheckpointStore(dir), checkpoint(), { keepLast: 1 });
    const state = join(dir, 'step-1', 'state.json');
    writeFileSync(state, readFileSync(state, 'utf8').replace('"train": 16', '"train": 17'));
    expect(oneSentence(horizon(['eval', '--checkpoint', join(dir, 'step-1')]), 'eval')).toBe(
      `horizon eval: checkpoint file ${state} is corrupt (its SHA-256 differs from the one it records: it was edited or damaged after it was written); resume from an earlier checkpoint or start a new run.`,
    );
  });
});
