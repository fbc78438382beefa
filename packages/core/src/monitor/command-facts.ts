// What a command line says before it runs, read from the shell's own parser (sandbox/shell/parser.ts)
// rather than by regular expressions over the raw text: quoting, `$(…)`, backticks, pipelines and
// redirections are resolved exactly as the shell will resolve them, so `'.ev'al/f.js` and
// `c\at .eval/f.js` are the paths and names they are. Each simple command becomes a fact holding
// its name, its words (static text, the glob pattern the shell would expand, whether part of it is
// computed at run time), its redirections, where it sits in its pipeline, and the working directory
// it will run in (a static `cd DIR` earlier in the line moves it, as the shell's does; `$(…)`
// restores it afterwards). The rules (path-rules.ts, source-rules.ts) read these facts.
// Left out: what a word computed at run time will be — a rule that cares flags it for the judge.

import { escapeGlob, hasGlobChars } from '../sandbox/glob.ts';
import { resolvePath } from '../sandbox/paths.ts';
import { DEFAULT_SHELL_LIMITS } from '../sandbox/shell/limits.ts';
import { parseCommandLine, type Script, type SimpleCommand, type Word } from '../sandbox/shell/parser.ts';

/** One word as the rules see it. */
export interface WordFact {
  /** The word's text with quotes removed; a `$(…)` part contributes nothing. */
  text: string;
  /** The same text as a glob pattern: quoted characters escaped, as the shell's expansion treats them. */
  pattern: string;
  /** An unquoted `*`, `?` or `[`: the shell expands it against the file system. */
  glob: boolean;
  /** Part of the word comes from a `$(…)` or backticks, so its value is known only at run time. */
  dynamic: boolean;
}

export interface CommandFact {
  /** The command name when it is static text (`cat`); undefined when computed at run time or absent (`> f`). */
  name: string | undefined;
  /** The name is computed at run time (`$(echo cat) f.js`). */
  nameComputed: boolean;
  /** The words after the name. */
  args: WordFact[];
  /** Files written by `>` / `>>`, and read by `<` (`/dev/null` included). */
  writes: WordFact[];
  reads: WordFact[];
  /** The working directory the command starts in, as far as the line's static `cd`s tell. */
  cwd: string;
  /** Which pipeline (numbered across the line, substitutions included) and stage it is. */
  pipeline: number;
  stage: number;
  /** Inside a `$(…)`: the command whose word the substitution is part of, by its index in the facts. */
  substitutionOf: number | undefined;
}

export type LineFacts = { ok: true; commands: CommandFact[] } | { ok: false; error: string };

function wordFact(word: Word): WordFact {
  let text = '';
  let pattern = '';
  let glob = false;
  let dynamic = false;
  for (const part of word.parts) {
    if (part.kind === 'substitution') {
      dynamic = true;
      continue;
    }
    text += part.text;
    pattern += part.quoted ? escapeGlob(part.text) : part.text;
    if (!part.quoted && hasGlobChars(part.text)) glob = true;
  }
  return { text, pattern, glob, dynamic };
}

class FactCollector {
  readonly commands: CommandFact[] = [];
  private pipelines = 0;

  constructor(private cwd: string) {}

  script(script: Script, substitutionOf: number | undefined): void {
    for (const item of script.items) for (const pipeline of [item.first, ...item.rest.map((r) => r.pipeline)]) this.pipeline(pipeline.commands, substitutionOf);
  }

  private pipeline(commands: readonly SimpleCommand[], substitutionOf: number | undefined): void {
    const pipeline = this.pipelines++;
    commands.forEach((command, stage) => {
      const index = this.commands.length;
      const words = command.words.map(wordFact);
      const [first, ...args] = words;
      const fact: CommandFact = {
        name: first && !first.dynamic ? first.text : undefined,
        nameComputed: first?.dynamic ?? false,
        args,
        writes: [],
        reads: [],
        cwd: this.cwd,
        pipeline,
        stage,
        substitutionOf,
      };
      this.commands.push(fact);
      for (const redirect of command.redirects) {
        if (redirect.op === '>&') continue;
        (redirect.op === '<' ? fact.reads : fact.writes).push(wordFact(redirect.target));
      }
      // A substitution runs before its command, in a subshell whose `cd` does not leak.
      const saved = this.cwd;
      for (const word of [...command.words, ...command.redirects.flatMap((r) => (r.op === '>&' ? [] : [r.target]))])
        for (const part of word.parts) if (part.kind === 'substitution') this.script(part.script, index);
      this.cwd = saved;
      if (fact.name === 'cd') {
        const target = args[0];
        if (target === undefined) this.cwd = '/';
        else if (!target.dynamic && !target.glob) this.cwd = resolvePath(this.cwd, target.text);
      }
    });
  }
}

/** The facts of `line` run from `cwd`, or the parser's message when the shell would refuse it too. */
export function commandFacts(line: string, cwd: string): LineFacts {
  const parsed = parseCommandLine(line, DEFAULT_SHELL_LIMITS);
  if (!parsed.ok) return { ok: false, error: parsed.error };
  const collector = new FactCollector(cwd);
  collector.script(parsed.script, undefined);
  return { ok: true, commands: collector.commands };
}

/** The operands of a command: its words that are not options (`-x`, `--name`), up to and after `--`. */
export function operandsOf(fact: CommandFact): WordFact[] {
  const out: WordFact[] = [];
  let optionsEnd = false;
  for (const arg of fact.args) {
    if (!optionsEnd && arg.text === '--' && !arg.dynamic) optionsEnd = true;
    else if (optionsEnd || !arg.text.startsWith('-') || arg.text === '-') out.push(arg);
  }
  return out;
}

/** Whether the command was given a short flag (`-r`, also inside `-rn`) or one of the long options. */
export function hasFlag(fact: CommandFact, short: string, long: readonly string[] = []): boolean {
  return fact.args.some((a) => (a.text.startsWith('--') ? long.includes(a.text.slice(2)) : a.text.startsWith('-') && a.text.slice(1).includes(short)));
}
