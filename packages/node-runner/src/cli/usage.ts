// Usage text, generated from the command table so it never drifts from what the CLI accepts.

import type { Command } from './command.ts';

export function usage(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return [
    'usage: horizon <command> [flags]',
    '',
    'commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    '',
    'Run `horizon <command> --help` for its flags.',
  ].join('\n');
}

export function commandUsage(command: Command): string {
  const flags = Object.entries(command.flags).map(([name, spec]) => {
    const left = `--${name}${spec.type === 'string' ? ` <${spec.valueName ?? 'value'}>` : ''}`;
    return `  ${left.padEnd(28)}${spec.description}`;
  });
  return [
    `usage: horizon ${command.name}${command.positionals ? ` ${command.positionals}` : ''} [flags]`,
    '',
    command.summary,
    '',
    'flags:',
    ...flags,
    `  ${'--help'.padEnd(28)}show this help`,
  ].join('\n');
}
