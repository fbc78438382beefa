// `horizon explain` as a user runs it: a real process, the GPU beside the float64 reference, exit codes.

import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const main = join(root, 'packages', 'node-runner', 'src', 'main.ts');
const tsx = join(root, 'node_modules', '.bin', 'tsx');

function horizon(args: string[]) {
  const run = spawnSync(tsx, [main, 'explain', ...args], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** The cells of the table row for token (or sample) `index`. */
function row(stdout: string, index: number): string[] {
  const line = stdout.split('\n').find((l) => new RegExp(`^\\s+${index}\\s{2}`).test(l));
  return line ? line.trim().split(/\s{2,}/) : [];
}

describe('horizon explain', () => {
  it('gae with the built-in example prints the per-token table, GPU beside reference', () => {
    const r = horizon(['gae']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/t\s+token\s+r_t\s+V_t\s+δ_t\s+A_t gpu\s+A_t ref\s+R_t gpu\s+R_t ref/);
    expect(row(r.stdout, 2)).toEqual(['2', 'obs', '0.0000', '—', '—', '—', '—', '—', '—']);
    const last = row(r.stdout, 7);
    expect(last.slice(5)).toEqual(['0.2000', '0.2000', '1.0000', '1.0000']); // A = 1 − 0.8; R = 1
    expect(r.stdout).toContain('largest |gpu − ref|');
  });

  it('gae on numbers from the command line: the reward before an observation reaches the action in front of it', () => {
    const r = horizon(['gae', '--rewards', '0,0,1', '--mask', '1,0,1', '--gamma', '0.5', '--lambda', '1']);
    expect(r.code, r.stderr).toBe(0);
    expect(row(r.stdout, 0).slice(5, 7)).toEqual(['0.5000', '0.5000']);
    expect(row(r.stdout, 2).slice(5, 7)).toEqual(['1.0000', '1.0000']);
  });

  it('gae with a truncated end uses the bootstrap value', () => {
    const r = horizon(['gae', '--rewards', '0,1', '--values', '0.25,0.5', '--gamma', '0.5', '--lambda', '1', '--bootstrap', '2']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('truncated (bootstrap value 2.0000)');
    expect(row(r.stdout, 1)[4]).toBe('1.5000'); // δ = 1 + 0.5·2 − 0.5
  });

  it('ppo shows clipped, dual-clipped and live tokens (slime golden values)', () => {
    const r = horizon(['ppo']);
    expect(r.code, r.stderr).toBe(0);
    expect(row(r.stdout, 0).slice(0, 2)).toEqual(['0', 'clipped high']);
    expect(row(r.stdout, 0)[5]).toBe('-2.4000');
    expect(row(r.stdout, 1).slice(0, 2)).toEqual(['1', 'dual clip']);
    expect(row(r.stdout, 1)[5]).toBe('3.0000');
    expect(row(r.stdout, 2)[5]).toBe('-1.0000');
  });

  it('ppo --dis masks tokens outside the band', () => {
    const r = horizon(['ppo', '--dis', '--logp', '0,-0.1,0.9', '--old-logp', '0,0,0', '--advantages', '1,1,-1', '--eps-low', '0', '--eps-high', '0.5']);
    expect(r.code, r.stderr).toBe(0);
    expect(row(r.stdout, 0)[1]).toBe('masked low'); // ρ = 1 exactly on the edge 1 − 0
    expect(row(r.stdout, 1)[1]).toBe('masked low');
    expect(row(r.stdout, 2)[1]).toBe('masked high');
  });

  it('kto prints the reference point and per-sample losses', () => {
    const r = horizon(['kto']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('z0: gpu 0.2250, ref 0.2250');
    expect(row(r.stdout, 1).slice(0, 2)).toEqual(['1', 'undesirable']);
  });

  it('bad values are one sentence and exit 2', () => {
    const cases: [string[], RegExp][] = [
      [['gae', '--gamma', '1.5'], /gamma must be a finite number in \[0, 1\], got 1.5/],
      [['gae', '--rewards', '0,x,1'], /--rewards must be comma-separated numbers; item 2 is "x"/],
      [['gae', '--rewards', '0,1', '--values', '1,2,3'], /--values has 3 values but --rewards has 2/],
      [['gae', '--rewards', '0,1', '--mask', '1,2'], /--mask must be 0s and 1s \(1 = action token, 0 = observation\); item 2 is 2\./],
      [['gae', '--beta', '0.1'], /--beta does not apply to "explain gae"/],
      [['sft'], /say what to explain: one of gae, ppo, kto, not "sft"/],
      [['ppo', '--dual-clip', '0.5'], /dualClip must be a finite number > 1/],
    ];
    for (const [args, message] of cases) {
      const r = horizon(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});
