// An outside agent for black-box training, written against the plain `openai` npm client and
// fetch, with no Horizon code: it asks `horizon serve --train` for completions of addition prompts
// ("a+b="), scores each answer itself (1 when the text is the sum, else 0), posts each session's
// reward to the extension endpoint, and measures greedy held-out success through the same server
// before and after. tests/cli/blackbox.test.ts runs it as a child process.
//
// Usage: node blackbox-agent.mjs BASE_URL MODEL ITERATIONS GROUPS GROUP_SIZE SEED [TEMPERATURE]
// Prints one JSON line: { before, after, changed, updates: [{ iteration, policy_version, samples, reward }] }.

import OpenAI from 'openai';

const [baseURL, model, iterationsArg, groupsArg, groupSizeArg, seedArg, temperatureArg] = process.argv.slice(2);
/** The recipe's rl.temperature: only requests at the rollout settings are recorded for training. */
const temperature = Number(temperatureArg ?? 1);
const iterations = Number(iterationsArg);
const groups = Number(groupsArg);
const groupSize = Number(groupSizeArg);
const client = new OpenAI({ baseURL, apiKey: 'unused', maxRetries: 0, timeout: 600_000 });

/** mulberry32: a small seeded generator, so a seed names the same prompts every run. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Sums of one- or two-digit operands, as the addition task trains on. A fixed held-out set of 100
// problems (its own seed, the same for every run) is never trained on.
const operand = (next) => (next() < 0.5 ? Math.floor(next() * 10) : 10 + Math.floor(next() * 90));
function problem(next) {
  const a = operand(next);
  const b = operand(next);
  return { prompt: `${a}+${b}=`, answer: String(a + b) };
}
const heldOutNext = random(0x5eed);
const heldOut = [];
const heldOutPrompts = new Set();
while (heldOut.length < 100) {
  const p = problem(heldOutNext);
  if (heldOutPrompts.has(p.prompt)) continue;
  heldOutPrompts.add(p.prompt);
  heldOut.push(p);
}
function trainingProblem(next) {
  for (;;) {
    const p = problem(next);
    if (!heldOutPrompts.has(p.prompt)) return p;
  }
}

/** Greedy answers to the held-out set: the share that is right, and the texts. */
async function evaluate() {
  const texts = await Promise.all(
    heldOut.map((p) => client.completions.create({ model, prompt: p.prompt, max_tokens: 8, temperature: 0 }).then((r) => r.choices[0].text)),
  );
  return { success: texts.filter((text, i) => text === heldOut[i].answer).length / texts.length, texts };
}

async function postReward(session, reward, group) {
  const response = await fetch(`${baseURL}/horizon/rewards`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ session_id: session, reward, group }),
  });
  if (!response.ok) throw new Error(`reward for ${session}: ${response.status} ${await response.text()}`);
  return response.json();
}

const next = random(Number(seedArg));
const before = await evaluate();
const updates = [];
for (let it = 0; it < iterations; it++) {
  const prompts = Array.from({ length: groups }, () => trainingProblem(next));
  // Every session of the iteration samples at once: the server batches them onto the GPU sampler.
  const sessions = await Promise.all(
    prompts.flatMap((p, g) =>
      Array.from({ length: groupSize }, async (_, k) => {
        const session = `agent-${seedArg}-${it}-${g}-${k}`;
        // A seed per session makes the run repeat: the server keys a seeded request's draws by it.
        const seed = Number(seedArg) * 1_000_003 + it * 1009 + g * 31 + k;
        const r = await client.completions.create({ model, prompt: p.prompt, max_tokens: 8, temperature, seed, horizon: { session_id: session } });
        if (r.horizon.session_id !== session || r.horizon.recorded !== true)
          throw new Error(`session ${session} was not recorded: ${JSON.stringify(r.horizon)}`);
        // The client names the group: two draws of one prompt in an iteration are still two groups.
        return { session, group: `${it}-${g}`, reward: r.choices[0].text === p.answer ? 1 : 0 };
      }),
    ),
  );
  // One at a time: the server forms its batch in the order rewards arrive, so a fixed order makes the run repeat.
  const answers = [];
  for (const s of sessions) answers.push(await postReward(s.session, s.reward, s.group));
  const update = answers.find((a) => a.update !== null)?.update;
  if (!update) throw new Error(`iteration ${it}: ${sessions.length} rewarded sessions did not complete a batch`);
  updates.push({
    iteration: update.iteration,
    policy_version: update.policy_version,
    samples: update.samples,
    reward: sessions.reduce((sum, s) => sum + s.reward, 0) / sessions.length,
  });
}
const after = await evaluate();
// How many held-out greedy answers the updates changed: whether the served weights moved at all.
const changed = after.texts.filter((text, i) => text !== before.texts[i]).length;
console.log(JSON.stringify({ before: before.success, after: after.success, changed, updates }));
