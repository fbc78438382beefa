import { describe, expect, it } from 'vitest';
import { BUILTIN_COMMANDS, shellRegistry } from './builtins.ts';

describe('built-in commands', () => {
  it('has the commands the sandbox documents, each with a summary', () => {
    expect(shellRegistry().names()).toEqual(['cat', 'cd', 'echo', 'find', 'grep', 'head', 'ls', 'pwd', 'rm', 'wc', 'xargs']);
    for (const command of BUILTIN_COMMANDS) expect(command.summary.length).toBeGreaterThan(10);
  });

  it('adds an environment’s commands after the built-ins, and curl and git only when given', () => {
    const registry = shellRegistry([{ name: 'submit', summary: 'submit the answer', run: () => 0 }]);
    expect(registry.get('submit')).toBeDefined();
    expect(registry.get('curl')).toBeUndefined();
    expect(registry.get('git')).toBeUndefined();
  });
});
