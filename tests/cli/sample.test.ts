// `horizon sample --samples` through the real CLI on a samples.jsonl written from hand-built Samples
// (core's SampleBuilder and sampleRecord, as `horizon train` writes them): a single-turn answer stays
// one strip; a tool-using trajectory compacted into two segments prints turn by turn, with its tool
// calls, cut observations, the summary and carried context marked, `segment k/n` headers, the status
// and reward; --json is one parseable trace per line; a damaged line is one sentence. Then
// `--checkpoint` on a few-second tiny run: addition answers stay one shaded strip each, and --json
// carries the scored advantage of every token.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatSampleLine, type Sample, SampleBuilder, sampleRecord, type Trace } from '@horizon/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const main = join(root, 'packages', 'node-runner', 'src', 'main.ts');
const tsx = join(root, 'node_modules', '.bin', 'tsx');
const scratch = mkdtempSync(join(tmpdir(), 'horizon-sample-cli-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function horizon(args: string[], command = 'sample') {
  const run = spawnSync(tsx, [main, command, ...args], { cwd: root, encoding: 'utf8', timeout: 170_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const SPECIAL: Record<string, number> = { '<tool_call>': 1000, '</tool_call>': 1001, '<eos>': 1002 };
const NAME_OF = new Map(Object.entries(SPECIAL).map(([name, id]) => [id, name]));
const decode = (id: number) => NAME_OF.get(id) ?? String.fromCharCode(id);
const encode = (text: string): number[] =>
  text.split(/(<\/?tool_call>|<eos>)/).flatMap((part) => (part in SPECIAL ? [SPECIAL[part]] : [...part].map((c) => c.charCodeAt(0))));
function act(b: SampleBuilder, text: string, ending: 'eos' | 'stop', kind: 'action' | 'summary' = 'action') {
  const ids = encode(ending === 'eos' ? `${text}<eos>` : text);
  b.addAction(
    ids,
    ids.map(() => -0.5),
    text,
    ending,
    kind,
  );
}

const LONG_FILE = `function f(x) {\n${'  // a long comment line\n'.repeat(20)}  return 1;\n}`;

function rollouts(): Sample[] {
  const single = new SampleBuilder({ seed: 1, rolloutId: 0, groupId: 0 }, '12+3=', encode('12+3='));
  act(single, '15', 'eos');
  single.addReward(1);
  const ids = { seed: 9, rolloutId: 1, groupId: 0 };
  const first = new SampleBuilder(ids, 'make f return 2', encode('make f return 2'));
  act(first, '<tool_call>sh cat f.js</tool_call>', 'stop');
  first.addObservation(encode(LONG_FILE), LONG_FILE);
  act(first, 'f.js returns 1', 'eos', 'summary');
  const second = new SampleBuilder(ids, 'make f return 2', encode('make f return 2'), { carried: encode('f.js returns 1<eos>'), segmentIndex: 1 });
  act(second, '<tool_call>write f.js function f(x) { return 2; }</tool_call>', 'stop');
  second.addObservation(encode('wrote 28 bytes'), 'wrote 28 bytes');
  act(second, 'done', 'eos');
  second.addReward(1);
  return [single.finish({ status: 'completed' }), first.finish({ status: 'truncated' }), second.finish({ status: 'completed' })];
}

/** A run directory holding only samples.jsonl, an advantage per action token (+0.5, then −0.25 in segment 2). */
function runDir(): string {
  const dir = mkdtempSync(join(scratch, 'run-'));
  const lines = rollouts().map((s) => {
    const advantage = Float32Array.from(s.actionMask, (m) => (m ? (s.segmentIndex === 1 ? -0.25 : 0.5) : 0));
    return formatSampleLine(sampleRecord(s, { phase: 'rl', step: 4 }, { pieces: s.tokens.map(decode), channels: { advantage } }));
  });
  writeFileSync(join(dir, 'samples.jsonl'), lines.join(''));
  return dir;
}

describe('horizon sample --samples', () => {
  const dir = runDir();

  it('prints a single-turn answer as one strip and a compacted tool-using trajectory turn by turn', () => {
    const r = horizon(['--samples', dir, '--plain']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`2 rollouts logged in ${join(dir, 'samples.jsonl')} (rl step 4)`);
    expect(lines).toContain('✓ reward 1.00  12+3= [1 +0.50] [5 +0.50] [<eos> +0.50]');
    const at = lines.indexOf('✓ rollout 1 · seed 9 · 4 turns · 2 segments · completed · reward 1.00');
    expect(at, r.stdout).toBeGreaterThan(0);
    const trace = lines.slice(at + 1, at + 16).map((l) => l.trimEnd());
    expect(trace[0]).toBe('  ── segment 1/2 · 572 tokens · truncated ──');
    expect(trace[1]).toBe('  prompt          make f return 2');
    // Every action token with its advantage: 13 tokens, the tags being one each.
    expect(trace[2]).toMatch(/^ {2}turn 1 {10}( \[[^\]]+ \+0\.50\]){13}$/);
    expect(trace[2]).toContain(' [<tool_call> +0.50] [s +0.50] [h +0.50] [  +0.50] [c +0.50]');
    expect(trace[3]).toBe('    tool call     [sh cat f.js]');
    // The file is cut to the 100-column default width, saying how much went.
    expect(trace[4]).toMatch(/^ {4}observation {3}function f\(x\) \{⏎ {2}\/\/ a long comment line⏎.*… \(\+\d+ chars\)$/);
    const cut = Number(trace[4].match(/\(\+(\d+) chars\)$/)?.[1]);
    expect(trace[4].slice(18, -`… (+${cut} chars)`.length).length + cut).toBe(LONG_FILE.length);
    expect([...trace[4]].length).toBeLessThanOrEqual(100);
    expect(trace[5]).toMatch(/^ {2}turn 2 summary {2}( \[[^\]]+ \+0\.50\]){15}$/);
    expect(trace[6]).toBe('                  ⇢ compaction: segment 2 continues from this summary');
    expect(trace[7]).toBe('  ── segment 2/2 · 89 tokens · completed ──');
    expect(trace[8]).toBe('  prompt          make f return 2');
    expect(trace[9]).toBe('  context         [carried from segment 1] f.js returns 1<eos>');
    expect(trace[10]).toMatch(/^ {2}turn 3 {10}( \[[^\]]+ -0\.25\]){40}$/);
    expect(trace[11]).toBe('    tool call     [write f.js function f(x) { return 2; }]');
    expect(trace[12]).toBe('    observation   wrote 28 bytes');
    expect(trace[13]).toBe('  turn 4           [d -0.25] [o -0.25] [n -0.25] [e -0.25] [<eos> -0.25]');
    expect(trace[14]).toBe('  → completed · reward 1.00');
  });

  it('--json prints one trace per line with its spans, tool calls, segments and the channel per token', () => {
    const r = horizon(['--samples', join(dir, 'samples.jsonl'), '--json', '--n', '1']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const trace = JSON.parse(lines[0]) as Trace & { segments: { advantage: number[] }[] };
    expect([trace.rolloutId, trace.turns, trace.segmentCount, trace.status, trace.reward]).toEqual([1, 4, 2, 'completed', 1]);
    expect(trace.segments.map((s) => s.spans.map((span) => span.kind))).toEqual([
      ['prompt', 'action', 'observation', 'summary'],
      ['prompt', 'context', 'action', 'observation', 'action'],
    ]);
    expect(trace.segments[1].spans[2].toolCall).toEqual({ name: 'write', args: 'f.js function f(x) { return 2; }' });
    const { advantage, spans } = trace.segments[1];
    expect(advantage.slice(spans[4].start, spans[4].end)).toEqual([-0.25, -0.25, -0.25, -0.25, -0.25]);
    expect(advantage.slice(spans[1].start, spans[1].end).every((a) => a === 0)).toBe(true);
  });

  it('a damaged line, a missing file and two sources are one sentence each', () => {
    const bad = join(scratch, 'bad.jsonl');
    writeFileSync(bad, '{"phase":"rl","step":1}\n');
    const r = horizon(['--samples', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe(`horizon sample: ${bad} line 1 has no rolloutId; it is not a rollout samples.jsonl can hold.`);
    const missing = horizon(['--samples', join(scratch, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim()).toBe(
      `horizon sample: ${join(scratch, 'nope')} does not exist; give a run directory from \`horizon train\` or its samples.jsonl.`,
    );
    const noEval = horizon(['--samples', dir, '--phase', 'eval']);
    expect(noEval.code).toBe(2);
    expect(noEval.stderr.trim()).toBe(`horizon sample: ${join(dir, 'samples.jsonl')} holds no eval rollouts (it has rl).`);
    const both = horizon(['--samples', dir, '--checkpoint', dir]);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('give one of --checkpoint DIR (sample from a checkpoint) or --samples PATH');
  });
});

describe('horizon sample --checkpoint', () => {
  const run = join(scratch, 'tiny');
  beforeAll(() => {
    const sets = ['sft.steps=20', 'rl.iterations=1', 'rl.promptsPerIteration=4', 'eval.heldOutSize=4', 'eval.oodSize=4', 'checkpoint.interval=1'];
    const trained = horizon(['--quiet', '--recipe', 'tiny', ...sets.flatMap((set) => ['--set', set]), '--out', run], 'train');
    expect(trained.code, trained.stderr).toBe(0);
  }, 180_000);

  it('prints each addition rollout as one strip with an advantage per action token', () => {
    const r = horizon(['--checkpoint', run, '--n', '3', '--plain']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe(`3 rollouts from ${join(run, 'checkpoints', 'step-1')} (after iteration 1), sampled at temperature 1`);
    expect(lines.slice(2)).toHaveLength(3);
    for (const line of lines.slice(2)) expect(line).toMatch(/^[✓✗] reward \d\.\d\d {2}\d+\+\d+=( \[[^\]]+ [-+]\d\.\d\d\])+$/);
  });

  it('--samples on the same run shows its newest training rollouts by default, its evaluation ones with --phase eval', () => {
    const rl = horizon(['--samples', run, '--n', '1', '--plain']);
    expect(rl.code, rl.stderr).toBe(0);
    expect(rl.stdout.split('\n')[0]).toBe(`1 rollout logged in ${join(run, 'samples.jsonl')} (rl step 1)`);
    const evaluation = horizon(['--samples', run, '--n', '1', '--phase', 'eval', '--plain']);
    expect(evaluation.code, evaluation.stderr).toBe(0);
    expect(evaluation.stdout.split('\n').slice(0, 2)).toEqual([
      `1 rollout logged in ${join(run, 'samples.jsonl')} (eval step 1)`,
      'no advantage was logged for these rollouts; tokens are not shaded',
    ]);
  });

  it('--json gives each trace its spans and the scored advantage of every token, 0 off the action', () => {
    const r = horizon(['--checkpoint', run, '--n', '2', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const traces = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Trace & { segments: { advantage: number[] }[] });
    expect(traces).toHaveLength(2);
    for (const trace of traces) {
      const [segment] = trace.segments;
      expect(segment.spans.map((s) => s.kind)).toEqual(['prompt', 'action']);
      const [prompt, action] = segment.spans;
      expect(segment.advantage).toHaveLength(segment.pieces.length);
      expect(segment.advantage.slice(0, prompt.end).every((a) => a === 0)).toBe(true);
      expect(segment.advantage.slice(action.start).some((a) => a !== 0)).toBe(true);
    }
  });
});
