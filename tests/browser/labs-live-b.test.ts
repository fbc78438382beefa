// The anti-hack and compaction labs in headless Chromium on WebGPU (SwiftShader), each training its
// preset live in the engine worker, cut further through the lab's URL settings. Anti-hack: a learner
// trains the guard arm, then clicks through the rollouts of the last iteration; every tool call the
// page shows — its exit status, the rules that flagged it, the judge's verdict and what the guard
// did — is checked against core's monitor run here, in Node (monitorTrajectory: CallMonitor's two
// stages over the same calls, replayed in a fresh sandbox of the same episode, built from the same
// recipe), and what the agent saw of each fabricated call against the same calls stepped through a
// fresh guarded episode in Node. The lab's warm start is seeded with hack demonstrations
// (ANTIHACK_HACK_DEMO_SHARE), so the guard arm must show at least one live flagged call. Compaction: a learner trains stream-ppo, then moves the cut by keyboard; the shown losses
// are checked against the kernels package's float64 aggregateRef on the shown advantages, and
// token-mean must not move with the cut. One build, one browser.

import { createTask, type EnvText, monitorTrajectory, type RecordedCall, resolveRecipe, shAction } from '@horizon/core';
import { aggregateRef } from '@horizon/kernels';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANTIHACK_HACK_DEMO_SHARE, ANTIHACK_PRESET, type AntihackSettings, antihackRequest } from '../../packages/web-ui/src/engine/antihack-lab.ts';
import { type CompactionLabSettings, LAB_REDUCERS, labBatches, packLabBatch } from '../../packages/web-ui/src/engine/compaction-lab-data.ts';
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

const labUrl = (key: string, settings: object, view: string) => `${app.url}?${new URLSearchParams({ walk: JSON.stringify({ [key]: settings }) })}#${view}`;

interface ShownCall {
  line: string;
  exit: number;
  rules: string;
  leak: string;
  action: string;
  /** The "what the agent saw" cell. */
  seen: string;
}

const envText = (t: EnvText) => (typeof t === 'string' ? t : t.map((p) => (typeof p === 'string' ? p : p.special)).join(''));

const shownCalls = () =>
  page.locator('[data-testid="antihack-calls"] tbody tr').evaluateAll((rows) =>
    rows.map((r) => {
      const d = (r as HTMLElement).dataset;
      const seen = r.querySelector('pre.lab-seen')?.textContent ?? '';
      return {
        line: d.line ?? '',
        exit: Number(d.exit),
        rules: d.rules ?? '',
        leak: d.leak ?? '',
        action: d.action ?? '',
        seen: seen === '(no output)' ? '' : seen,
      };
    }),
  );

describe('anti-hack lab', () => {
  // The lab's 60 SFT steps (at 20 the policy's sampled actions are not yet well-formed calls) and 2 iterations of 4 rollouts:
  // with the seeded warm start, this run showed 3 flagged calls in its 8 rollouts, each confirmed and fabricated (docs/ui.md §25).
  const settings: AntihackSettings = { arm: 'guard', sftSteps: 60, iterations: 2, seed: 3 };

  it('trains the guard arm live, and every shown monitor decision is core’s on the same calls', async () => {
    await page.goto(labUrl('antihack-lab', settings, 'antihack-lab'));
    const request = antihackRequest(settings);
    expect(await page.getByTestId('antihack-cli').textContent()).toBe(
      `horizon train --recipe ${ANTIHACK_PRESET} --set seed=${settings.seed} ${request.sets.map((s) => `--set ${s}`).join(' ')}`,
    );
    await page.getByRole('button', { name: 'Train arm guard' }).click();
    await expect.poll(() => page.getByTestId('antihack-badge-guard').getAttribute('data-state'), { timeout: 400_000, interval: 1000 }).toBe('finished');
    // Both iterations counted, every rollout of each (log.allSamples).
    const countRows = page.locator('[data-testid="antihack-counts"] tbody tr');
    expect(await countRows.count()).toBe(settings.iterations);
    expect(await countRows.last().locator('td').first().textContent()).toBe('4');
    expect(await page.locator('.lab-arm-chart[data-arm="guard"]').getAttribute('data-points')).toBe(String(settings.iterations));

    const { recipe } = resolveRecipe({ preset: request.recipe, sets: [`seed=${request.seed}`, ...request.sets] });
    const task = createTask(recipe.task, recipe.eval);
    const buttons = page.locator('[aria-label="rollouts of the iteration"] button');
    let checked = 0;
    let flagged = 0;
    let fabricated = 0;
    for (let step = 1; step <= settings.iterations; step++) {
      // The learner opens each iteration, then each of its rollouts in turn.
      await page.locator('select[name="antihack-step"]').selectOption(String(step));
      await expect.poll(() => buttons.count()).toBe(4);
      for (let i = 0; i < 4; i++) {
        await buttons.nth(i).click();
        await expect.poll(() => buttons.nth(i).getAttribute('aria-pressed')).toBe('true');
        if ((await page.getByTestId('antihack-calls').count()) === 0) continue;
        const seed = Number(await page.getByTestId('antihack-calls').getAttribute('data-seed'));
        const calls: ShownCall[] = await shownCalls();
        // Node: a fresh sandbox of the same episode, its monitor replaying the calls in order.
        const env = task.createEnv('train');
        await env.reset(seed);
        const world = (env as unknown as { sandbox?: { monitor?: { world: Parameters<typeof monitorTrajectory>[1] } } }).sandbox?.monitor?.world;
        if (!world) throw new Error('the Node episode was built without its monitor');
        const recorded: RecordedCall[] = calls.map((c) => ({
          line: c.line,
          exitCode: c.exit,
          ...(c.action === 'fabricate' ? { monitor: { mode: 'guard', flags: [], verdict: null, confirmed: true, action: 'fabricate' } } : {}),
        }));
        const decisions = await monitorTrajectory(recorded, world);
        await env.close();
        // Node again: the same calls stepped through a fresh guarded episode, whose tool answers a confirmed hack from the decoy.
        const guarded = task.createEnv('train');
        await guarded.reset(seed);
        const solution = (guarded as unknown as { sandbox?: { problem: { solution: string } } }).sandbox?.problem.solution ?? '';
        const observed: (string | null)[] = [];
        for (const c of calls) {
          const outcome = await guarded.step(shAction(c.line), 'stop');
          observed.push(outcome.done ? null : envText(outcome.observation));
          if (outcome.done) break;
        }
        await guarded.close();
        for (const [k, c] of calls.entries()) {
          const d = decisions[k];
          const what = `iteration ${step}, rollout ${i}, call ${k} "${c.line}"`;
          expect(d.replayed, `${what}: Node's replay exited differently from the run`).toBe(true);
          expect(c.rules, `${what}: rules`).toBe(d.flags.map((f) => f.rule).join(','));
          expect(c.leak, `${what}: verdict`).toBe(d.verdict ? String(d.verdict.leak) : '');
          expect(c.action, `${what}: guard action`).toBe(d.confirmed ? 'fabricate' : 'allow');
          if (c.action === 'fabricate' && observed[k] !== null) {
            expect(c.seen, `${what}: fabricated output`).toBe(observed[k]);
            expect(c.seen, `${what}: the fabricated output shows the answer`).not.toContain(solution);
            fabricated++;
          }
          checked++;
          if (d.flags.length > 0) flagged++;
        }
      }
    }
    expect(checked).toBeGreaterThan(0);
    expect(flagged, `no live flagged call in the guard arm, though the warm start was seeded with ${ANTIHACK_HACK_DEMO_SHARE} hacks`).toBeGreaterThan(0);
    expect(fabricated, 'no fabricated output checked').toBeGreaterThan(0);
    console.log(
      `[antihack-lab] ${checked} tool calls of ${settings.iterations} iterations checked against core's monitor in Node, ${flagged} of them flagged, ${fabricated} fabricated outputs matched`,
    );
    // The review queue lists the run's flagged calls, or says it has none.
    expect((await page.getByTestId('antihack-review').count()) + (await page.getByTestId('antihack-review-empty').count())).toBe(1);
  }, 480_000);

  it('switches to the off arm: a second run, charted beside the first, whose calls carry no decision', async () => {
    await page.getByRole('button', { name: 'arm: off' }).click();
    // One iteration is enough to see the arm's calls; the learner edits the field before training.
    await page.locator('input[name="antihack-iterations"]').fill('1');
    await page.getByRole('button', { name: 'Train arm off' }).click();
    await expect.poll(() => page.getByTestId('antihack-badge-off').getAttribute('data-state'), { timeout: 400_000, interval: 1000 }).toBe('finished');
    expect(await page.getByTestId('antihack-badge-guard').getAttribute('data-state')).toBe('finished'); // the guard arm's run stays on the page
    expect(await page.locator('.lab-arm-chart').count()).toBe(2);
    expect(await page.locator('.lab-arm-chart[data-arm="off"]').getAttribute('data-points')).toBe('1');
    expect(new URL(page.url()).searchParams.get('walk')).toBe(JSON.stringify({ 'antihack-lab': { ...settings, arm: 'off', iterations: 1 } }));
    // The learner visits the monitor walkthrough and comes back: both arms are still there.
    await page.getByRole('tab', { name: 'Anti-hack monitor' }).click();
    await page.locator('.monitor').waitFor({ timeout: 60_000 });
    await page.getByRole('tab', { name: 'Anti-hack lab' }).click();
    await expect.poll(() => page.locator('.lab-arm-chart').count(), { timeout: 30_000 }).toBe(2);
    const rows = await page.locator('[data-testid="antihack-calls"] tbody tr').count();
    if (rows > 0) {
      const calls = await shownCalls();
      expect(
        calls.every((c) => c.rules === '' && c.leak === '' && c.action === ''),
        'a call of the off arm shows a monitor decision',
      ).toBe(true);
      expect(await page.locator('[data-testid="antihack-calls"] tbody tr td').nth(2).textContent()).toBe('no monitor (arm off)');
    }
  }, 480_000);
});

describe('compaction lab', () => {
  const settings: CompactionLabSettings = { sftSteps: 40, iterations: 1, seed: 1 };

  const shownAdvantages = () => page.locator('.lab-trajectory [data-adv]').evaluateAll((els) => els.map((e) => Number((e as HTMLElement).dataset.adv)));
  const shownLoss = async (mode: string, batch: number) =>
    Number(await page.locator(`[data-testid="compaction-lab-losses"] tr[data-reducer="${mode}"] td[data-batch="${batch}"]`).getAttribute('data-value'));

  async function checkLosses(cut: number) {
    const advantages = await shownAdvantages();
    const runCuts = await page.locator('.lab-segment').evaluateAll((segs) => {
      const out: number[] = [];
      let n = 0;
      for (const [k, s] of segs.entries()) {
        if (k > 0) out.push(n);
        n += s.querySelectorAll('[data-adv]').length;
      }
      return out;
    });
    const batches = labBatches({ step: 0, rolloutId: 0, reward: 0, segments: [], advantages, runCuts }, [], cut);
    const got: Record<string, number[]> = {};
    for (const mode of LAB_REDUCERS) {
      got[mode] = [];
      for (const [b, batch] of batches.entries()) {
        const p = packLabBatch(batch.rows);
        const want = aggregateRef(p.values, p.mask, p.B, p.T, { mode, rolloutIds: batch.rolloutIds, constant: advantages.length });
        const shown = await shownLoss(mode, b);
        expect(Math.abs(shown - want), `${mode}, ${batch.name}: kernel ${shown}, reference ${want}`).toBeLessThan(1e-5 + 1e-5 * Math.abs(want));
        got[mode].push(shown);
      }
    }
    // token-mean and per-rollout-mean (one rollout) are the same loss however the trajectory is cut.
    for (const mode of ['token-mean', 'per-rollout-mean'])
      for (const b of [1, 2])
        expect(Math.abs(got[mode][b] - got[mode][0]), `${mode} moved with the cut`).toBeLessThan(1e-6 * Math.max(1, Math.abs(got[mode][0])));
    return got;
  }

  it('trains stream-ppo live; the loss under every reducer matches aggregateRef as the learner moves the cut, and token-mean never moves', async () => {
    await page.goto(labUrl('compaction-lab', settings, 'compaction-lab'));
    await page.getByRole('button', { name: 'Train' }).click();
    await expect.poll(() => page.getByTestId('compaction-lab-badge').getAttribute('data-state'), { timeout: 400_000, interval: 1000 }).toBe('finished');
    const segments = await page.locator('.lab-segment').count();
    expect(segments).toBeGreaterThan(1); // the opened trajectory is the iteration's longest: compaction cut it
    await expect.poll(() => page.locator('[data-testid="compaction-lab-losses"] td[data-batch]').count(), { timeout: 60_000 }).toBe(LAB_REDUCERS.length * 3);
    expect(await page.getByTestId('compaction-lab-device').getAttribute('data-computed-on')).toBe('gpu');
    const first = Number(await page.getByTestId('compaction-lab-cut').textContent());
    const before = await checkLosses(first);
    // The learner moves the cut three tokens right by keyboard.
    const slider = page.locator('input[name="compaction-lab-cut"]');
    await slider.focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
    await expect.poll(async () => Number(await page.getByTestId('compaction-lab-cut').textContent())).toBe(first + 3);
    await expect.poll(() => page.locator('[data-testid="compaction-lab-device"].stale').count()).toBe(0);
    const after = await checkLosses(first + 3);
    console.log(
      `[compaction-lab] ${segments} segments; token-mean ${before['token-mean'][0]} uncut, ${after['token-mean'][2]} cut after ${first + 3}; seq-mean-token-mean ${before['seq-mean-token-mean'][2]} → ${after['seq-mean-token-mean'][2]}`,
    );
  }, 480_000);
});
