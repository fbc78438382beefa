// A rollout tree replays bit for bit from the seed however its contexts fall into sampler calls. The
// root's first action is scripted (a delegate call, which a random policy would never write); every
// other token — the sub-agent's and the root's after the answer came back — is drawn by the GPU
// sampler, keyed by (rollout id, segment word of the context's branch). Sub-agents whose sandboxes
// take different times to make start in different calls from one run to the next; every context's
// tokens and log-probs are the same, and the calls really differed.

import { testGpu } from '@horizon/kernels/testing';
import { describe, expect, it } from 'vitest';
import { branchOf } from '../envs/branches.ts';
import { DELEGATE_TOOL, delegateTool, SUB_AGENT_HEADER, subAgentEnvironment } from '../envs/delegate.ts';
import type { Environment } from '../envs/environment.ts';
import { type BatchSampler, collectRollouts, type EpisodeRequest, type Generation } from '../envs/episode.ts';
import { actionTokenCount, type Sample } from '../envs/sample.ts';
import { addTool } from '../envs/testing/delegating-env.ts';
import { ToolEnvironment } from '../envs/tool-env.ts';
import { AnswerVerifier } from '../envs/verifier.ts';
import type { GptConfig } from '../model/config.ts';
import { Generator } from '../model/generate.ts';
import { Gpt } from '../model/gpt.ts';
import { initParameters } from '../model/init.ts';
import { parameterLayout } from '../model/parameters.ts';
import { CharTokenizer } from '../tokenizer/char-tokenizer.ts';
import { GpuSampler } from './gpu-sampler.ts';

const tokenizer = new CharTokenizer();
const config: GptConfig = { vocabSize: tokenizer.vocabSize, contextLength: 80, layers: 1, heads: 2, width: 16, head: 'lm' };

/** A root that delegates; its sub-agent's sandbox takes `delay(seed)` ms to make. */
function env(delay: (seed: number) => number): Environment {
  const subAgent = (task: string) =>
    subAgentEnvironment<null>({
      name: 'adder',
      task,
      tools: [addTool],
      sandbox: async (seed) => {
        const wait = delay(seed);
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        return null;
      },
    });
  return new ToolEnvironment<null>({
    name: 'delegating',
    tools: [delegateTool<null>(subAgent)],
    verifier: new AnswerVerifier(),
    task: (seed) => ({ prompt: `Sum ${seed % 10} and 1.`, info: { expected: String((seed % 10) + 1) } }),
    sandbox: () => null,
  });
}

/** The root's first action is the scripted delegate call; every other row goes to the GPU sampler with its key. */
function delegatingFirst(gpu: BatchSampler): BatchSampler & { calls: number } {
  const wrapper = {
    calls: 0,
    async generate(...[contexts, budgets, stops, keys]: Parameters<BatchSampler['generate']>): Promise<Generation[]> {
      wrapper.calls++;
      const scripted = contexts.map((c) => {
        const text = tokenizer.decode(c);
        return !text.startsWith(SUB_AGENT_HEADER) && !text.includes('<tool_result>');
      });
      const rows = contexts.flatMap((_, i) => (scripted[i] ? [] : [i]));
      const drawn = rows.length
        ? await gpu.generate(
            rows.map((i) => contexts[i]),
            rows.map((i) => budgets[i]),
            rows.map((i) => stops[i]),
            keys && rows.map((i) => keys[i]),
          )
        : [];
      const ids = tokenizer.encode(`<tool_call>${DELEGATE_TOOL} 1</tool_call>`);
      return contexts.map((_, i) => (scripted[i] ? { ids, logprobs: ids.map(() => -1), ending: 'stop' } : drawn[rows.indexOf(i)]));
    },
  };
  return wrapper;
}

async function rollouts(delay: (seed: number) => number, maxConcurrentEpisodes?: number) {
  const gpu = await testGpu();
  const weights = initParameters(parameterLayout(config), config.layers, 5).map((w) => w * 8);
  const policy = Gpt.fromWeights(gpu, config, weights, 'sub-agent-replay');
  const generator = new Generator(policy);
  try {
    const gpuSampler = new GpuSampler(generator, tokenizer, { temperature: 1, topK: 0 }, 1);
    gpuSampler.reseed(2026, 9);
    const sampler = delegatingFirst(gpuSampler);
    const requests: EpisodeRequest[] = Array.from({ length: 6 }, (_, i) => ({ env: env(delay), seed: 100 + i, rolloutId: i, groupId: i }));
    const limits = {
      contextLength: config.contextLength,
      maxNewTokens: 12,
      maxTurns: 2,
      subAgents: { maxTurns: 2 },
      ...(maxConcurrentEpisodes ? { maxConcurrentEpisodes } : {}),
    };
    const samples = await collectRollouts(requests, tokenizer, sampler, limits);
    return { samples, calls: sampler.calls };
  } finally {
    generator.destroy();
    policy.destroy();
  }
}

const tokensOf = (samples: readonly Sample[]) =>
  samples.map((s) => ({ rollout: s.rolloutId, branch: branchOf(s), tokens: s.tokens, logprobs: Array.from(s.rolloutLogprobs) }));

describe('sub-agent replay', () => {
  it('every context of every tree samples the same tokens and log-probs in lock-step and staggered', async () => {
    const a = await rollouts(() => 0);
    const b = await rollouts((seed) => (seed % 3) * 6, 4);
    expect(b.calls).toBeGreaterThan(a.calls);
    const children = a.samples.filter((s) => s.parent);
    expect(children.length).toBe(6);
    expect(children.every((s) => actionTokenCount(s) > 0)).toBe(true);
    expect(tokensOf(b.samples)).toEqual(tokensOf(a.samples));
  });
});
