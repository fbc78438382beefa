// The RL walkthroughs and the home page in headless Chromium on WebGPU (SwiftShader). A learner moves
// a control with the keyboard or presses a button, and the numbers the page shows — the kernels'
// answers, read from each cell's data-value — are checked against the float64 references of the
// kernels package computed here on the same inputs. One build and one browser for all of them:
// SwiftShader is slow and the browser tier already takes minutes.

import { buildSpans, groupBaselinesRef, ktoRef, opdRef, spanKtoRef, tokenPolicyLossRef } from '@horizon/kernels';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distillInputs } from '../../packages/web-ui/src/engine/distill-walk.ts';
import { ktoInputs, spanKtoInputs } from '../../packages/web-ui/src/engine/kto-walk.ts';
import { DISTILL_PROMPTS, DISTILL_T, KTO_ROWS, KTO_T, PPO_TOKENS, SPAN_TOKENS } from '../../packages/web-ui/src/engine/walk-data.ts';
import { chromiumPath, launchChromium } from '../support/chromium.ts';
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
      if (!el?.dataset.answerFor || el.querySelector('.device-line.stale')) return false;
      const got = JSON.parse(el.dataset.answerFor) as Record<string, unknown>;
      return Object.entries(want).every(([k, v]) => JSON.stringify(got[k]) === JSON.stringify(v));
    },
    [root, fields] as const,
    { timeout: 60_000 },
  );
}

const value = async (selector: string) => Number(await page.locator(selector).first().getAttribute('data-value'));
const values = (root: string, prefix: string, n: number) => Promise.all(Array.from({ length: n }, (_, i) => value(`${root} [data-cell="${prefix}-${i}"]`)));
const press = async (selector: string, key: string, times: number) => {
  await page.locator(selector).focus();
  for (let i = 0; i < times; i++) await page.keyboard.press(key);
};
const close = (got: number, want: number, what: string, atol = 1e-5) =>
  expect(Math.abs(got - want), `${what}: kernel ${got}, reference ${want}`).toBeLessThan(atol + 1e-5 * Math.abs(want));

async function expectDevice(testId: string, kernel: string) {
  const line = page.getByTestId(testId);
  await expect.poll(() => line.getAttribute('data-computed-on'), { timeout: 60_000 }).toBe('gpu');
  expect((await line.textContent())?.toLowerCase()).toMatch(new RegExp(`computed by the ${kernel} kernel \\(wgsl\\) on .*swiftshader`));
}

describe('PPO clipping walkthrough', () => {
  const f = Math.fround;
  async function expectPpo(epsLow: number, epsHigh: number, dualClip: number, sign: number) {
    const T = PPO_TOKENS.length;
    const [ratio, loss, grad] = await Promise.all(['ratio', 'loss', 'grad'].map((row) => values('.ppo', row, T)));
    const branches = await Promise.all(PPO_TOKENS.map((_, t) => page.locator(`.ppo [data-cell="branch-${t}"]`).textContent()));
    PPO_TOKENS.forEach((tok, t) => {
      const ref = tokenPolicyLossRef(f(tok.logp), f(tok.oldLogp), f(sign * tok.magnitude), { kind: 'ppo', epsLow, epsHigh, dualClip });
      close(ratio[t], ref.ratio, `ρ[${t}]`);
      close(loss[t], ref.value, `pg[${t}]`);
      close(grad[t], ref.dvalue, `∂pg/∂ℓ[${t}]`);
      const want = ref.dual ? 'dual clip' : ref.high ? 'clipped at 1+ε_high' : ref.low ? 'clipped at 1−ε_low' : 'unclipped';
      expect(branches[t], `branch of token ${t}`).toContain(want);
    });
  }

  it('computes on the policy-loss kernel, and ε_high moved by keyboard changes the clipped tokens to the reference', async () => {
    await page.goto(`${app.url}#ppo`);
    await expectDevice('ppo-device', 'policy-loss');
    await answered('.ppo', { epsLow: 0.2, epsHigh: 0.28, dualClip: 3, sign: 1 });
    await expectPpo(0.2, 0.28, 3, 1);
    // ε_high 0.28 → 0.05: the token at ρ = 1.08 is now past 1 + ε_high and clipped too.
    await press('input[name="epsHigh"]', 'ArrowLeft', 23);
    await expect.poll(() => page.getByTestId('epsHigh-value').textContent()).toBe('0.05');
    await answered('.ppo', { epsHigh: 0.05 });
    await expectPpo(0.2, 0.05, 3, 1);
    expect(await page.getByTestId('ppo-fractions').textContent()).toContain('3 of 6 tokens clipped high');
  });

  it('A < 0: low ratios are clipped, the exploded ratio hits the dual clip until c passes it', async () => {
    await page.getByRole('button', { name: 'A < 0 (bad tokens)' }).press('Enter');
    await answered('.ppo', { sign: -1 });
    await expectPpo(0.2, 0.05, 3, -1);
    expect(await page.locator('.ppo [data-cell="branch-5"]').textContent()).toContain('dual clip');
    await press('input[name="dualClip"]', 'ArrowRight', 5); // c 3.0 → 3.5 > ρ = 3.32
    await answered('.ppo', { dualClip: 3.5 });
    await expectPpo(0.2, 0.05, 3.5, -1);
    expect(await page.locator('.ppo [data-cell="branch-5"]').textContent()).toContain('unclipped');
    // The chart has a text alternative that follows the sign.
    expect(await page.locator('[data-testid="ppo-chart"] svg').getAttribute('aria-label')).toMatch(/for A < 0: it falls as ρ grows/);
    // Selecting a token by keyboard works its equations with its numbers.
    await page.getByRole('button', { name: 'token 0: The' }).press('Enter');
    await expect.poll(() => page.getByTestId('ppo-worked-note').textContent()).toContain('Token 0 (“The”)');
    const shownLoss = await page.locator('.ppo [data-cell="loss-0"]').textContent();
    expect(await page.locator('.ppo .worked').textContent()).toContain((shownLoss ?? '').replace('−', '-'));
  });
});

describe('GRPO and RLOO walkthrough', () => {
  async function expectGroups(rewards: number[]) {
    const G = rewards.length;
    const ids = new Uint32Array(G);
    const r32 = Float32Array.from(rewards);
    for (const [key, estimator] of [
      ['grpo', 'grpo'],
      ['drGrpo', 'dr-grpo'],
      ['rloo', 'rloo'],
    ] as const) {
      const ref = groupBaselinesRef(r32, ids, estimator);
      const shown = await values('.groups', key, G);
      for (const [i, x] of shown.entries()) close(x, ref[i], `${estimator} A[${i}] for rewards ${rewards}`);
    }
  }

  it('a learner edits one reward by keyboard; z-scores and leave-one-out advantages follow the reference', async () => {
    await page.goto(`${app.url}#groups`);
    await expectDevice('groups-device', 'group-baseline');
    await answered('.groups', { rewards: [1, 0, 1, 0, 0, 1] });
    await expectGroups([1, 0, 1, 0, 0, 1]);
    await press('input[name="reward-1"]', 'ArrowRight', 10); // 0 → 0.5
    await expect.poll(() => page.getByTestId('reward-1-value').textContent()).toBe('0.50');
    await answered('.groups', { rewards: [1, 0.5, 1, 0, 0, 1] });
    await expectGroups([1, 0.5, 1, 0, 0, 1]);
  });

  it('an all-equal group gets zero advantage and is flagged as dropped', async () => {
    await page.getByRole('button', { name: 'all correct' }).press('Enter');
    await answered('.groups', { rewards: [1, 1, 1, 1, 1, 1] });
    await expectGroups([1, 1, 1, 1, 1, 1]);
    for (const key of ['grpo', 'drGrpo', 'rloo']) expect(await values('.groups', key, 6)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(await page.getByTestId('groups-stats').textContent()).toMatch(
      /All 6 rewards are equal .* no learning signal, and rl\.dynamicSampling would drop it/,
    );
  });
});

describe('KTO and span-KTO walkthrough', () => {
  async function expectKto(beta: number, drift: number, desirable: number[]) {
    const ref = ktoRef(ktoInputs(drift, desirable), { B: KTO_ROWS.length, T: KTO_T, beta, lambdaD: 1, lambdaU: 1 });
    close(Number(await page.getByTestId('kto-z0').getAttribute('data-value')), ref.z0, 'z0');
    const [r, loss, dLdr] = await Promise.all(['r', 'loss', 'dLdr'].map((k) => values('[data-part="kto"]', k, KTO_ROWS.length)));
    KTO_ROWS.forEach((_, b) => {
      close(r[b], ref.rewards[b], `r[${b}]`);
      close(loss[b], ref.perSample[b], `L[${b}]`);
      close(dLdr[b], ref.grad[b * KTO_T], `∂L/∂r[${b}]`, 1e-7);
    });
  }

  it('z0 and the desirable/undesirable losses follow the reference as the learner relabels and moves β', async () => {
    await page.goto(`${app.url}#kto`);
    await expectDevice('kto-device', 'kto');
    const labels = KTO_ROWS.map((row) => row.desirable);
    await answered('[data-part="kto"]', { beta: 0.1, desirable: labels });
    await expectKto(0.1, 1, labels);
    await page.getByRole('button', { name: 'completion 2 desirable' }).press('Space');
    await press('input[name="beta"]', 'ArrowRight', 10); // β 0.1 → 0.2
    const relabelled = [1, 0, 0, 0];
    await answered('[data-part="kto"]', { beta: 0.2, desirable: relabelled });
    await expectKto(0.2, 1, relabelled);
    // No drift: the policy is the reference, the mismatched KL is 0 and so is z0.
    await press('input[name="drift"]', 'Home', 1);
    await answered('[data-part="kto"]', { drift: 0 });
    await expectKto(0.2, 0, relabelled);
    expect(Number(await page.getByTestId('kto-z0').getAttribute('data-value'))).toBe(0);
  });

  it('span-KTO: cycling a token’s polarity re-forms the spans; rewards, z_ref and gradients follow the reference', async () => {
    const T = SPAN_TOKENS.length;
    const polarity = SPAN_TOKENS.map((t) => t.polarity);
    const expectSpans = async (pol: number[]) => {
      const inputs = spanKtoInputs(pol);
      const spans = buildSpans(inputs.polarity, inputs.mask, 1, T);
      const ref = spanKtoRef(inputs, spans, { beta: 0.5, lambdaW: 1, lambdaL: 1, alpha: 0.9, zRef: 0 }, T);
      close(Number(await page.getByTestId('span-summary').getAttribute('data-zref')), ref.zRef, 'z_ref');
      expect(await page.locator('[data-part="span-kto"] tr[data-span]').count()).toBe(spans.start.length);
      for (let k = 0; k < spans.start.length; k++) {
        close(await value(`[data-cell="span-r-${k}"]`), ref.spanRewards[k], `r_${k}`);
        close(await value(`[data-cell="span-grad-${k}"]`), ref.grad[spans.start[k]], `∂L/∂ℓ on span ${k}`);
      }
    };
    await answered('[data-part="span-kto"]', { polarity });
    await expectDevice('span-device', 'span-kto');
    await expectSpans(polarity);
    // "=16" (token 8) is bad; one press makes it neutral, which merges it with ", no" into one neutral span.
    await page.locator('[data-part="span-kto"] [data-token="8"]').press('Enter');
    const edited = polarity.map((p, i) => (i === 8 ? 0 : p));
    await answered('[data-part="span-kto"]', { polarity: edited });
    await expectSpans(edited);
    expect(await page.locator('[data-part="span-kto"] [data-token="8"]').getAttribute('aria-label')).toContain('0 neutral');
  });
});

describe('on-policy distillation walkthrough', () => {
  async function expectDistill(coef: number, route: number[]) {
    const { K, ...inputs } = distillInputs();
    const ref = opdRef(inputs, coef);
    for (const [p, prompt] of DISTILL_PROMPTS.entries()) {
      expect(await page.locator(`.distill [data-prompt="${p}"]`).getAttribute('data-teacher')).toBe(String(route[p]));
      const row = (p * K + route[p]) * DISTILL_T;
      for (let t = 0; t < prompt.tokens.length; t++) {
        close(await value(`.distill [data-cell="kl-${p}-${t}"]`), ref.reverseKl[row + t], `k[${p}, ${t}]`);
        close(await value(`.distill [data-cell="adv-${p}-${t}"]`), ref.advantages[row + t], `Â[${p}, ${t}]`);
      }
    }
  }

  it('per-token reverse KL and advantages follow the reference as λ and the routing change', async () => {
    await page.goto(`${app.url}#distill`);
    await expectDevice('distill-device', 'distillation-advantage');
    await answered('.distill', { coef: 1, route: [0, 1] });
    await expectDistill(1, [0, 1]);
    await press('input[name="coef"]', 'ArrowLeft', 10); // λ 1 → 0.5
    await page.getByRole('button', { name: 'everything to teacher 1' }).press('Enter');
    await answered('.distill', { coef: 0.5, route: [0, 0] });
    await expectDistill(0.5, [0, 0]);
    // Routed to the addition expert, the wrong subtraction answer "6" is barely marked down.
    expect(await value('.distill [data-cell="adv-1-0"]')).toBeGreaterThan(-0.2);
  });
});

describe('home page and shareable URLs', () => {
  it('says what Horizon is and leads to every walkthrough, the labs, the playground and the dashboard by keyboard', async () => {
    await page.goto(`${app.url}?recipe=tiny#home`);
    await expect.poll(() => page.locator('.home h2').textContent()).toContain('Agentic RL for small language models');
    await expect.poll(() => page.getByTestId('home-device').textContent(), { timeout: 60_000 }).toContain('WebGPU device');
    const targets = await page.locator('.home-card').evaluateAll((links) => links.map((a) => a.getAttribute('href')));
    expect(targets).toEqual([
      '#ppo',
      '#groups',
      '#kto',
      '#distill',
      '#monitor',
      '#compaction',
      '#opid',
      '#genac',
      '#gae',
      '#opid-lab',
      '#genac-lab',
      '#antihack-lab',
      '#compaction-lab',
      '#playground',
      '#dashboard',
      '#loop',
      '#compare',
    ]);
    await page.locator('.home-card[data-view="kto"]').press('Enter');
    await expect.poll(() => page.getByRole('tab', { name: 'KTO' }).getAttribute('aria-selected')).toBe('true');
    expect(new URL(page.url()).hash).toBe('#kto');
    await page.getByRole('link', { name: 'Horizon' }).press('Enter');
    await expect.poll(() => new URL(page.url()).hash).toBe('#home');
  });

  it('a link carries a walkthrough’s controls: it opens where the sender left it, and a bad one is a sentence', async () => {
    const walk = JSON.stringify({ ppo: { epsLow: 0.1, epsHigh: 0.5, dualClip: 0, sign: -1 } });
    await page.goto(`${app.url}?recipe=tiny&walk=${encodeURIComponent(walk)}#ppo`);
    await answered('.ppo', { epsLow: 0.1, epsHigh: 0.5, dualClip: 0, sign: -1 });
    expect(await page.getByTestId('epsLow-value').textContent()).toBe('0.10');
    // Moving a control rewrites the link (replaceState: no history entry per slider step).
    const before = await page.evaluate(() => history.length);
    await press('input[name="epsLow"]', 'ArrowRight', 2);
    await answered('.ppo', { epsLow: 0.12 });
    await expect.poll(() => JSON.parse(new URL(page.url()).searchParams.get('walk') ?? '{}').ppo?.epsLow).toBe(0.12);
    expect(await page.evaluate(() => history.length)).toBe(before);
    await page.goto(`${app.url}?walk=${encodeURIComponent('{"ppo":{"epsLow":"wide"}}')}#ppo`);
    await answered('.ppo', { epsLow: 0.2, epsHigh: 0.28 });
    expect(await page.locator('.ppo [role=alert]').first().textContent()).toContain('settings for the ppo walkthrough are not the ones it has');
  });

  it('at 390 px the home page and the walkthroughs need no sideways scrolling', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
    try {
      for (const view of ['home', 'ppo', 'groups', 'kto', 'distill']) {
        await phone.goto(`${app.url}#${view}`);
        await phone.waitForSelector(view === 'home' ? '.home-card' : '[data-answer-for^="{"]', { timeout: 60_000 });
        const width = await phone.evaluate(() => document.scrollingElement?.scrollWidth ?? 0);
        expect(width, `${view} is ${width} px wide`).toBeLessThanOrEqual(390);
      }
    } finally {
      await phone.close();
    }
  });
});

describe('without WebGPU', () => {
  it('a walkthrough falls back to the float64 reference and says so', async () => {
    // Chromium without the WebGPU flags: navigator.gpu exists but gives no adapter.
    const plain = await chromium.launch({ executablePath: chromiumPath(), args: ['--headless=new', '--no-sandbox', '--no-first-run'], headless: true });
    try {
      const tab = await plain.newPage();
      await tab.goto(`${app.url}#groups`);
      const line = tab.getByTestId('groups-device');
      await expect.poll(() => line.getAttribute('data-computed-on'), { timeout: 60_000 }).toBe('cpu');
      expect(await line.textContent()).toMatch(/float64 reference on the CPU — no WebGPU device/);
      const ref = groupBaselinesRef(Float32Array.from([1, 0, 1, 0, 0, 1]), new Uint32Array(6), 'grpo');
      for (let i = 0; i < 6; i++) expect(Number(await tab.locator(`.groups [data-cell="grpo-${i}"]`).getAttribute('data-value'))).toBe(ref[i]);
    } finally {
      await plain.close();
    }
  });
});
