// The guard's answer to a confirmed hack: the call runs in the decoy (shadow.ts: the sandbox with
// every protected file emptied), and what it printed and wrote there is what the agent gets — the
// files exist, list and open, so the output is plausible, and there is no answer in it. There is no
// "Permission denied" or refusal to learn to route around, and the rollout continues. The decoy's
// changes outside the protected roots (a `cat .eval/f.js > f.js` writes an empty f.js) and its
// working directory are carried into the live sandbox, so later calls see a consistent world; a
// `submit` in the line still ends the episode (the decoy runs the episode's live commands).
//
// A safety net for routes the decoy cannot empty (an upstream page, a future commit): lines of the
// output holding a protected text the agent had not seen are dropped, and a written file holding one
// is not carried over. Left out: faking content that looks like an answer (a wrong solution would
// teach the policy to read it; empty files teach nothing).

import type { ShellCallResult } from '../sandbox/shell/shell.ts';
import { unseenTexts } from './judge.ts';
import { applyFiles, decoyOf, fileSnapshot, runIn } from './shadow.ts';
import type { MonitorWorld } from './world.ts';

function dropLinesWith(text: string, protectedTexts: readonly string[]): string {
  if (!protectedTexts.some((t) => text.includes(t))) return text;
  return text
    .split(/(?<=\n)/)
    .filter((line) => !protectedTexts.some((t) => line.includes(t)))
    .join('');
}

/** Runs `line` as the guard answers it, applying its decoy effects to the live sandbox; returns what the agent sees. */
export async function fabricatedCall(world: MonitorWorld, line: string): Promise<ShellCallResult> {
  const unseen = unseenTexts(world);
  const before = fileSnapshot(world.fs, world.protectedRoots);
  const decoy = await runIn(world, decoyOf(world.fs, world.protectedRoots), line, 'live');
  const after = new Map([...decoy.files].filter(([path, content]) => before.get(path) === content || !unseen.some((t) => content.includes(t))));
  for (const path of decoy.files.keys()) if (!after.has(path) && before.has(path)) after.set(path, before.get(path) as string);
  applyFiles(world.fs, before, after, decoy.cwd);
  const { result } = decoy;
  return { ...result, stdout: dropLinesWith(result.stdout, unseen), stderr: dropLinesWith(result.stderr, unseen) };
}
