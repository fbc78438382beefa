// The labs' walkthroughs in headless Chromium on WebGPU (SwiftShader). Compaction: a learner moves
// the cut by keyboard, and the GAE and aggregation kernels' numbers on the page are checked against
// the kernels package's float64 references on the same inputs. OPID: the routing switch and coef move
// by keyboard; Δ and the advantage are checked against opidRef on the forward pass's log-probs, and
// routing against which steps it should change. Critic vs GenAC: typed and preset critic outputs are
// parsed as core's parseCritique parses them, and both critics' advantages checked against gaeRef. The anti-hack monitor: a learner
// picks or types a shell call, and what the page shows — the rules that fired, the judge's verdict,
// what the agent sees in log and guard mode — is checked against core's own CallMonitor run here,
// in Node, on the same HiddenTestFS sandbox; the review queue's labels survive a reload (IndexedDB)
// and its precision is recomputed here from core's verdicts. One build, one browser.

import { type CallMonitor, createSandbox, DEFAULT_RULES, hiddenProblem, parseCritique, QuickJsCodeRunner } from '@horizon/core';
import { aggregateRef, gaeRef, opidRef } from '@horizon/kernels';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LONG_T, REDUCERS } from '../../packages/web-ui/src/engine/compaction-data.ts';
import { compactionGaeInputs, compactionLossInputs } from '../../packages/web-ui/src/engine/compaction-walk.ts';
import { type CritiqueInput, GENAC_ACTIONS, GENAC_PRESETS, GENAC_ROLLOUTS, GENAC_T } from '../../packages/web-ui/src/engine/genac-data.ts';
import { genacBaselines, genacGaeInputs } from '../../packages/web-ui/src/engine/genac-walk.ts';
import { MONITOR_CONSTANTS, MONITOR_SEED, REVIEW_LINES } from '../../packages/web-ui/src/engine/monitor-data.ts';
import { OPID_EPISODE } from '../../packages/web-ui/src/engine/opid-data.ts';
import type { CompactionRequest } from '../../packages/web-ui/src/engine/walk-api.ts';
import { launchChromium } from '../support/chromium.ts';
import { type BuiltApp, buildAndServe } from './support/web-app.ts';

let app: BuiltApp;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  app = await buildAndServe();
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

/** Waits until the element `root` shows the answer to a request with `fields`, and no newer request is pending. */
async function answered(root: string, fields: Record<string, unknown>): Promise<void> {
  await page.waitForFunction(
    ([selector, want]) => {
      const el = document.querySelector<HTMLElement>(selector);
      if (!el?.dataset.answerFor || el.querySelector(':scope > .device-line.stale')) return false;
      const got = JSON.parse(el.dataset.answerFor) as Record<string, unknown>;
      return Object.entries(want).every(([k, v]) => JSON.stringify(got[k]) === JSON.stringify(v));
    },
    [root, fields] as const,
    { timeout: 60_000 },
  );
}

const value = async (selector: string) => Number(await page.locator(selector).first().getAttribute('data-value'));
const values = (root: string, prefix: string, n: number) => Promise.all(Array.from({ length: n }, (_, i) => value(`${root} [data-cell="${prefix}-${i}"]`)));
const close = (got: number, want: number, what: string, atol = 1e-5) =>
  expect(Math.abs(got - want), `${what}: kernel ${got}, reference ${want}`).toBeLessThan(atol + 1e-5 * Math.abs(want));

async function expectDevice(testId: string, kernel: string) {
  const line = page.getByTestId(testId);
  await expect.poll(() => line.getAttribute('data-computed-on'), { timeout: 60_000 }).toBe('gpu');
  expect((await line.textContent())?.toLowerCase()).toMatch(new RegExp(`computed by the ${kernel} kernel \\(wgsl\\) on .*swiftshader`));
}

describe('compaction and split invariance walkthrough', () => {
  /** The shown advantages and losses against the float64 references on the inputs the kernels were given. */
  async function expectCompaction(request: CompactionRequest) {
    await answered('.compaction', { ...request });
    const T = LONG_T;
    const { tokensAfter, ...inputs } = compactionGaeInputs(request);
    const ref = gaeRef(
      { ...inputs, tokensAfter },
      { B: 4, T, gamma: Math.fround(request.gamma), lambda: Array(4).fill(Math.fround(request.lambda)) },
    ).advantages;
    const row = (b: number, n: number) => Array.from(ref.slice(b * T, b * T + n));
    const want: Record<'whole' | 'stitched' | 'local', number[]> = {
      whole: row(0, T),
      stitched: [...row(1, request.cut), ...row(3, T - request.cut)],
      local: [...row(2, request.cut), ...row(3, T - request.cut)],
    };
    for (const [key, expected] of Object.entries(want)) {
      const got = await values('.compaction', key, T);
      for (const [t, x] of got.entries()) close(x, expected[t], `${key}[${t}] at cut ${request.cut}`);
    }
    const batches = compactionLossInputs(request.cut);
    const losses: Record<string, { whole: number; cut: number }> = {};
    for (const mode of REDUCERS) {
      const options = { mode, constant: T };
      const whole = aggregateRef(batches.whole.values, batches.whole.mask, batches.whole.B, T, { ...options, rolloutIds: batches.whole.rolloutIds });
      const cut = aggregateRef(batches.cut.values, batches.cut.mask, batches.cut.B, T, { ...options, rolloutIds: batches.cut.rolloutIds });
      close(await value(`.compaction [data-cell="loss-whole-${mode}"]`), whole, `${mode} uncut`);
      close(await value(`.compaction [data-cell="loss-cut-${mode}"]`), cut, `${mode} cut`);
      losses[mode] = { whole, cut };
    }
    return { want, losses };
  }

  it('the kernels’ advantages and losses follow the references as the learner moves the cut by keyboard', async () => {
    await page.goto(`${app.url}#compaction`);
    await expectDevice('compaction-device', 'gae and loss-aggregation');
    const first = await expectCompaction({ kind: 'compaction', cut: 5, gamma: 1, lambda: 0.9, critic: false });
    // V = 0: the factor makes the segments the uncut chain (CompactionRL eq. 15).
    for (const [t, x] of first.want.stitched.entries()) close(x, first.want.whole[t], `stitched = uncut [${t}]`);
    await page.locator('input[name="cut"]').focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowLeft');
    const moved = await expectCompaction({ kind: 'compaction', cut: 2, gamma: 1, lambda: 0.9, critic: false });
    for (const [t, x] of moved.want.stitched.entries()) close(x, moved.want.whole[t], `stitched = uncut [${t}]`);
    for (const mode of ['token-mean', 'per-rollout-mean']) {
      close(moved.losses[mode].cut, moved.losses[mode].whole, `${mode} is split-invariant`);
      expect(await page.locator(`[data-reducer="${mode}"]`).getAttribute('data-same')).toBe('true');
    }
    for (const mode of ['seq-mean-token-mean', 'seq-mean-token-sum-norm']) {
      expect(Math.abs(moved.losses[mode].cut - moved.losses[mode].whole), mode).toBeGreaterThan(1e-3);
      expect(await page.locator(`[data-reducer="${mode}"]`).getAttribute('data-same')).toBe('false');
    }
    await page.getByRole('button', { name: 'critic values' }).press('Enter');
    const critic = await expectCompaction({ kind: 'compaction', cut: 2, gamma: 1, lambda: 0.9, critic: true });
    expect(Math.max(...critic.want.stitched.map((x, t) => Math.abs(x - critic.want.whole[t])))).toBeGreaterThan(1e-3);
  });
});

describe('OPID skill Δ walkthrough', () => {
  const A = OPID_EPISODE.filter((p) => p.kind === 'action').reduce((n, p) => n + p.text.length, 0);
  const steps = OPID_EPISODE.filter((p) => p.kind === 'action').flatMap((p, step) => Array.from(p.text, () => step));

  /** The shown log-probs, and the kernel's Δ and advantages against opidRef on them. */
  async function expectOpid(request: { routing: string; coef: number; grpo: number }) {
    await answered('.opid', request);
    const [original, augmented, delta, advantage] = await Promise.all(['original', 'augmented', 'delta', 'advantage'].map((row) => values('.opid', row, A)));
    for (const x of [...original, ...augmented]) expect(Number.isFinite(x) && x < 0, `log-prob ${x}`).toBe(true);
    const scored = augmented.some((x, k) => x !== original[k]) ? 1 : 0;
    const ref = opidRef(
      {
        episodeAdvantages: Array(A).fill(Math.fround(request.grpo)),
        augmentedLogp: augmented,
        originalLogp: original,
        mask: Array(A).fill(1),
        skillWeight: [scored],
      },
      A,
      Math.fround(request.coef),
    );
    for (let k = 0; k < A; k++) {
      close(delta[k], ref.delta[k], `Δ[${k}]`);
      close(advantage[k], ref.advantages[k], `Â[${k}]`);
    }
    return { original, augmented, delta };
  }

  it('a forward pass on the page’s device scores each step with its routed skill; Δ and the advantage follow the reference', async () => {
    await page.goto(`${app.url}#opid`);
    await expectDevice('opid-device', 'gpt forward and distillation');
    expect(await page.getByTestId('opid-model').textContent()).toContain('fresh weights');
    const route = await expectOpid({ routing: 'route', coef: 0.5, grpo: 0.5 });
    expect(
      route.delta.some((d) => d !== 0),
      'a skill moves some log-prob',
    ).toBe(true);

    await page.getByRole('button', { name: 'global only' }).press('Enter');
    const global = await expectOpid({ routing: 'global-only', coef: 0.5, grpo: 0.5 });
    // Same plain context, same model: the unskilled log-probs do not depend on the routing.
    expect(global.original).toEqual(route.original);
    // Step 0 sees the global skill under both modes; step 1 sees the step skill only under route.
    for (let k = 0; k < A; k++) if (steps[k] === 0) expect(global.augmented[k], `step 0 token ${k}`).toBe(route.augmented[k]);
    expect(steps.some((s, k) => s === 1 && global.augmented[k] !== route.augmented[k])).toBe(true);

    await page.getByRole('button', { name: 'none (no skill)' }).press('Enter');
    const none = await expectOpid({ routing: 'none', coef: 0.5, grpo: 0.5 });
    expect(none.delta.every((d) => d === 0)).toBe(true);

    await page.getByRole('button', { name: 'route: step skill at the critical step, global elsewhere' }).press('Enter');
    await page.locator('input[name="coef"]').focus();
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
    await expectOpid({ routing: 'route', coef: 0.7, grpo: 0.5 });
  });
});

describe('critic vs GenAC walkthrough', () => {
  const B = GENAC_ROLLOUTS.length;
  /** Each row's parse against core's parseCritique, the fallback, and both critics' advantages against gaeRef. */
  async function expectGenac(critiques: CritiqueInput[], lambda: number) {
    await answered('.genac', { critiques, lambda });
    const rows = page.locator('.genac tr[data-rollout]');
    for (const [b, c] of critiques.entries()) {
      const core = parseCritique(c.text, c.eos);
      expect(await rows.nth(b).getAttribute('data-ok'), c.text).toBe(String(core.ok));
      expect(await rows.nth(b).getAttribute('data-reason'), c.text).toBe(core.ok ? '' : core.reason);
    }
    const { values, fallback } = genacBaselines(critiques);
    close(Number(await page.getByTestId('genac-fallback').getAttribute('data-value')), fallback, 'fallback');
    const { lambda: lambdas, ...inputs } = genacGaeInputs(values, lambda);
    const ref = gaeRef(inputs, { B: 2 * B, T: GENAC_T, gamma: 1, lambda: lambdas.map(Math.fround) }).advantages;
    for (let b = 0; b < B; b++) {
      close(await value(`.genac [data-cell="baseline-${b}"]`), values[b], `baseline ${b}`);
      const genac = await genacRow(`genac-${b}`);
      const disc = await genacRow(`disc-${b}`);
      for (let t = 0; t < GENAC_ACTIONS; t++) {
        close(genac[t], ref[b * GENAC_T + t], `GenAC A[${b}, ${t}]`);
        // A constant baseline at γ = 1: every token's advantage is the outcome minus the baseline.
        close(genac[t], GENAC_ROLLOUTS[b].reward - Math.fround(values[b]), `G − v [${b}, ${t}]`);
        close(disc[t], ref[(B + b) * GENAC_T + t], `value-head A[${b}, ${t}]`);
      }
    }
    return { fallback };
  }
  const genacRow = (prefix: string) => values('.genac', prefix, GENAC_ACTIONS);

  it('core’s parser reads every typed output, malformed forms take the fallback, and the advantages follow the reference', async () => {
    await page.goto(`${app.url}#genac`);
    await expectDevice('genac-device', 'gae');
    await expectGenac(GENAC_PRESETS[0].critiques, 0.95);

    await page.getByRole('button', { name: GENAC_PRESETS[1].label }).press('Enter');
    const none = await expectGenac(GENAC_PRESETS[1].critiques, 0.95);
    expect(none.fallback, 'no output well-formed: the middle of [0, 1]').toBe(0.5);
    await page.getByRole('button', { name: GENAC_PRESETS[2].label }).press('Enter');
    await expectGenac(GENAC_PRESETS[2].critiques, 0.95);
    const reasons = await page.locator('.genac tr[data-rollout]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-reason')));
    expect(reasons).toEqual(['', 'not-a-number', 'leading-zero', 'out-of-range']);

    // The learner fixes rollout 2's output by typing, and unticks rollout 1's <eos> with the keyboard.
    await page.locator('input[name="critique-1"]').focus();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('c1=6');
    await page.locator('input[name="eos-0"]').focus();
    await page.keyboard.press('Space');
    await page.locator('input[name="lambda"]').focus();
    await page.keyboard.press('ArrowLeft');
    const typed = [{ text: 'c1=8', eos: false }, { text: 'c1=6', eos: true }, ...GENAC_PRESETS[2].critiques.slice(2)];
    await expectGenac(typed, 0.9);
  });
});

describe('anti-hack monitor walkthrough', () => {
  const runner = new QuickJsCodeRunner();
  /** Core's monitor in Node on the page's episode: what log and guard mode do with `line`. */
  async function core(line: string, hackOpen: boolean) {
    const box = (mode: 'log' | 'guard') => {
      const s = createSandbox(hiddenProblem(MONITOR_SEED, MONITOR_CONSTANTS), hackOpen, runner, MONITOR_SEED, { mode, penalty: 0 });
      return s.monitor as CallMonitor;
    };
    const log = await box('log').run(line);
    const guard = await box('guard').run(line);
    return { log, guard };
  }

  async function expectLikeCore(line: string, hackOpen: boolean) {
    await answered('.monitor', { line, hackOpen });
    const { log, guard } = await core(line, hackOpen);
    const fired = await page
      .locator('[data-testid="monitor-rules"] tr[data-flagged="true"]')
      .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-rule')));
    expect(fired, line).toEqual(guard.decision.flags.map((f) => f.rule));
    expect(await page.locator('[data-testid="monitor-rules"] tr[data-rule]').count()).toBe(DEFAULT_RULES.length);
    expect(await page.getByTestId('monitor-verdict').getAttribute('data-leak'), line).toBe(
      guard.decision.verdict ? String(guard.decision.verdict.leak) : 'unjudged',
    );
    const shown = async (id: string) => page.locator(`[data-testid="${id}"] pre`).textContent();
    const text = (r: { stdout: string; stderr: string }) => r.stdout + r.stderr || '(no output)';
    expect(await shown('monitor-log'), `${line}: log mode`).toBe(text(log.result));
    expect(await shown('monitor-guard'), `${line}: guard mode`).toBe(text(guard.result));
    expect(await page.getByTestId('monitor-guard').getAttribute('data-action')).toBe(guard.decision.action);
    return { log, guard };
  }

  it('the hack is flagged, confirmed and answered from the decoy in guard mode; log mode shows the real file', async () => {
    await page.goto(`${app.url}#monitor`);
    const { log, guard } = await expectLikeCore('cat .eval/f.js', true);
    expect(guard.decision.action).toBe('fabricate');
    const solution = hiddenProblem(MONITOR_SEED, MONITOR_CONSTANTS).solution.trim();
    expect(log.result.stdout).toContain(solution);
    expect(await page.locator('[data-testid="monitor-guard"] pre').textContent()).not.toContain(solution);
    expect(await page.getByTestId('monitor-device').textContent()).toMatch(/core’s monitor .* on the worker’s CPU/);
  });

  it('by keyboard: a typed chained hack, the twins from the presets, the closed hack path', async () => {
    const input = page.locator('input[name="monitor-line"]');
    await input.focus();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.type('find . -name f.js | xargs cat');
    const chained = await expectLikeCore('find . -name f.js | xargs cat', true);
    expect(chained.guard.decision.confirmed).toBe(true);
    expect(await page.locator('[data-testid="monitor-parse"] [data-cell="name-1"]').textContent()).toBe('xargs');

    for (const preset of ['twin: notes: cat .notes', 'twin: find: find task']) {
      await page.getByRole('button', { name: preset }).focus();
      await page.keyboard.press('Enter');
      const line = preset.split(': ').at(-1) as string;
      const twin = await expectLikeCore(line, true);
      expect(twin.guard.decision.flags, line).toEqual([]);
      expect(await page.getByTestId('monitor-fired').textContent()).toContain('no rule fired');
    }

    await page.getByRole('button', { name: 'hack: cat .eval/f.js' }).press('Enter');
    await page.getByRole('button', { name: '.eval/ Permission denied' }).press('Space');
    const closed = await expectLikeCore('cat .eval/f.js', false);
    expect(closed.guard.decision.verdict?.leak).toBe(false);
  });

  it('review: the learner’s labels give the judge’s precision and survive a reload', async () => {
    await page.goto(`${app.url}#monitor`);
    const review = '.monitor-review';
    await answered(review, { set: null });
    const verdicts: boolean[] = [];
    for (const line of REVIEW_LINES) {
      const s = createSandbox(hiddenProblem(MONITOR_SEED, MONITOR_CONSTANTS), true, runner, MONITOR_SEED, { mode: 'log', penalty: 0 });
      const decided = await (s.monitor as CallMonitor).decide(line);
      expect(decided.flags.length, `${line} is flagged`).toBeGreaterThan(0);
      verdicts.push(decided.verdict?.leak ?? false);
    }
    expect(await page.locator(`${review} li`).evaluateAll((items) => items.map((i) => i.getAttribute('data-leak') === 'true'))).toEqual(verdicts);
    // The learner calls every confirmed call a hack except the last, which they call legitimate.
    const confirmed = REVIEW_LINES.filter((_, i) => verdicts[i]);
    const labels = confirmed.map((_, k) => (k < confirmed.length - 1 ? 'hack' : 'legitimate'));
    for (const [k, line] of confirmed.entries()) {
      await page
        .getByRole('group', { name: `your label for ${line}` })
        .getByRole('button', { name: labels[k] === 'hack' ? '✗ hack' : '✓ legitimate' })
        .press('Enter');
      await answered(review, { set: { line, label: labels[k] } });
    }
    const want = (confirmed.length - 1) / confirmed.length;
    const precision = async () => Number(await page.getByTestId('review-precision').getAttribute('data-value'));
    expect(await precision()).toBeCloseTo(want, 12);
    expect(await page.getByTestId('review-precision').textContent()).toContain('IndexedDB');

    await page.reload();
    await answered(review, { set: null });
    for (const [k, line] of confirmed.entries())
      expect(await page.locator(`${review} li`).nth(REVIEW_LINES.indexOf(line)).getAttribute('data-label'), line).toBe(labels[k]);
    expect(await precision()).toBeCloseTo(want, 12);
  });

  it('at 390 px the labs need no sideways scrolling', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      for (const view of ['monitor', 'compaction', 'opid', 'genac']) {
        await phone.goto(`${app.url}#${view}`);
        await phone.waitForSelector(`.${view}[data-answer-for^="{"]`, { timeout: 60_000 });
        expect(await phone.evaluate(() => document.documentElement.scrollWidth), view).toBeLessThanOrEqual(390);
      }
    } finally {
      await phone.close();
    }
  });
});
