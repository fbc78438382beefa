// Option parsing shared by the built-in commands, in the getopt style the agent expects:
// clustered flags (`-rn`), a value attached or separate (`-n5`, `-n 5`), `--` ending options, `-`
// as an operand (stdin), and a few long names mapped onto letters (`--recursive` → `-r`,
// `--lines=5` → `-n 5`). An unknown option is an error naming it, as GNU tools print it.

export interface OptionSpec {
  /** Letters that take no value. */
  flags: string;
  /** Letters that take a value. */
  valued?: string;
  /** Long option names → their letter. */
  long?: Record<string, string>;
}

export interface ParsedOptions {
  flags: Set<string>;
  /** The last value given for each valued letter. */
  values: Map<string, string>;
  operands: string[];
}

export function parseOptions(command: string, args: readonly string[], spec: OptionSpec): { ok: true; options: ParsedOptions } | { ok: false; error: string } {
  const flags = new Set<string>();
  const values = new Map<string, string>();
  const operands: string[] = [];
  const valued = spec.valued ?? '';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') {
      operands.push(...args.slice(i + 1));
      break;
    }
    if (arg.startsWith('--')) {
      const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
      const letter = spec.long?.[name];
      if (letter === undefined) return { ok: false, error: `${command}: unrecognized option '${arg}'` };
      if (valued.includes(letter)) {
        const value = inline ?? args[++i];
        if (value === undefined) return { ok: false, error: `${command}: option '--${name}' requires an argument` };
        values.set(letter, value);
      } else flags.add(letter);
      continue;
    }
    if (!arg.startsWith('-') || arg === '-') {
      operands.push(arg);
      continue;
    }
    for (let k = 1; k < arg.length; k++) {
      const letter = arg[k];
      if (valued.includes(letter)) {
        const value = k + 1 < arg.length ? arg.slice(k + 1) : args[++i];
        if (value === undefined) return { ok: false, error: `${command}: option requires an argument -- '${letter}'` };
        values.set(letter, value);
        break;
      }
      if (!spec.flags.includes(letter)) return { ok: false, error: `${command}: invalid option -- '${letter}'` };
      flags.add(letter);
    }
  }
  return { ok: true, options: { flags, values, operands } };
}

/** A non-negative integer option value, or undefined when it is not one. */
export function countValue(text: string): number | undefined {
  return /^\d{1,9}$/.test(text) ? Number(text) : undefined;
}
