import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SHELL_LIMITS } from './limits.ts';
import { parseCommandLine, type Script, type Word } from './parser.ts';

const parse = (line: string) => parseCommandLine(line, DEFAULT_SHELL_LIMITS);
function script(line: string): Script {
  const result = parse(line);
  if (!result.ok) throw new Error(result.error);
  return result.script;
}
function errorOf(line: string): string {
  const result = parse(line);
  return result.ok ? 'parsed' : result.error;
}
/** A word's text with substitutions shown as $(…), for compact assertions. */
const show = (word: Word) => word.parts.map((p) => (p.kind === 'text' ? p.text : '$(…)')).join('');
const argv = (line: string) => script(line).items[0].first.commands[0].words.map(show);

describe('shell parser', () => {
  it('splits words on blanks and joins quoted pieces', () => {
    expect(argv(`grep -rn 'a b' "c d"e f\\ g`)).toEqual(['grep', '-rn', 'a b', 'c de', 'f g']);
    expect(argv(`echo "" ''`)).toEqual(['echo', '', '']);
    expect(argv(`echo "say \\"hi\\" \\$x \\n"`)).toEqual(['echo', 'say "hi" $x \\n']);
    expect(argv('echo a # a comment')).toEqual(['echo', 'a']);
    expect(argv('echo a\\\nb')).toEqual(['echo', 'ab']);
  });

  it('marks quoted text so globs inside quotes stay literal', () => {
    const [word] = script(`ls '*.txt'`).items[0].first.commands[0].words.slice(1);
    expect(word.parts).toEqual([{ kind: 'text', text: '*.txt', quoted: true }]);
  });

  it('reads ;, &&, || and pipelines', () => {
    const s = script('a | b | c && d || e; f\ng');
    expect(s.items).toHaveLength(3);
    expect(s.items[0].first.commands).toHaveLength(3);
    expect(s.items[0].rest.map((r) => r.op)).toEqual(['&&', '||']);
    expect(script('a;').items).toHaveLength(1);
    expect(script('a &&\n b').items[0].rest).toHaveLength(1);
  });

  it('reads redirections, with or without a space, and fd duplication', () => {
    const command = script('cmd >out.txt 2>> err.txt < in.txt 2>&1 >&2').items[0].first.commands[0];
    expect(command.words.map(show)).toEqual(['cmd']);
    expect(command.redirects.map((r) => (r.op === '>&' ? `${r.fd}>&${r.to}` : `${r.fd}${r.op}${show(r.target)}`))).toEqual([
      '1>out.txt',
      '2>>err.txt',
      '0<in.txt',
      '2>&1',
      '1>&2',
    ]);
    expect(argv('echo a2>f')).toEqual(['echo', 'a2']);
  });

  it('reads $(...) and backticks as nested scripts, quoted or not', () => {
    const word = script('cat $(find .eval -type f)').items[0].first.commands[0].words[1];
    expect(word.parts[0]).toMatchObject({ kind: 'substitution', quoted: false });
    const inner = (word.parts[0] as { script: Script }).script;
    expect(inner.items[0].first.commands[0].words.map(show)).toEqual(['find', '.eval', '-type', 'f']);
    expect(script('echo "x $(echo ")") y"').items[0].first.commands[0].words[1].parts.map((p) => p.kind)).toEqual(['text', 'substitution', 'text']);
    expect(script('echo `ls src`').items[0].first.commands[0].words[1].parts[0]).toMatchObject({ kind: 'substitution' });
    expect(script('echo $(echo $(echo a))').items).toHaveLength(1);
  });

  it('leaves $NAME alone (there are no variables)', () => {
    expect(argv('echo $HOME')).toEqual(['echo', '$HOME']);
  });

  it('reports malformed lines as errors with a message', () => {
    expect(errorOf("echo 'oops")).toBe('unterminated single quote');
    expect(errorOf('echo "oops')).toBe('unterminated double quote');
    expect(errorOf('echo $(ls')).toBe('unterminated command substitution $(');
    expect(errorOf('echo `ls')).toBe('unterminated backquote `');
    expect(errorOf('ls |')).toBe('syntax error near unexpected token end of input');
    expect(errorOf('| ls')).toBe("syntax error near unexpected token `|'");
    expect(errorOf('&& ls')).toBe("syntax error near unexpected token `&&'");
    expect(errorOf('ls ;; ls')).toBe("syntax error near unexpected token `;'");
    expect(errorOf('ls )')).toBe("syntax error near unexpected token `)'");
    expect(errorOf('echo >')).toMatch(/the redirection > needs a file name/);
    expect(errorOf('sleep 1 &')).toMatch(/background jobs/);
    expect(errorOf('(cd src; ls)')).toMatch(/subshells/);
    expect(errorOf('echo $((1+2))')).toMatch(/arithmetic/);
    expect(errorOf('cat <<EOF')).toMatch(/here-documents/);
    expect(errorOf('ls &> out')).toBe('&> is not supported; write > FILE 2>&1');
    expect(errorOf('ls 3>&1')).toBe('parsed');
  });

  it('enforces the input, pipeline and nesting limits', () => {
    const limits = { ...DEFAULT_SHELL_LIMITS, maxInputChars: 50, maxPipelineLength: 3, maxSubstitutionDepth: 2 };
    const at = (line: string) => {
      const r = parseCommandLine(line, limits);
      return r.ok ? 'parsed' : r.error;
    };
    expect(at('x'.repeat(51))).toMatch(/51 characters long; the limit is 50/);
    expect(at('a | b | c')).toBe('parsed');
    expect(at('a | b | c | d')).toMatch(/at most 3 commands/);
    expect(at('echo $(echo $(echo a))')).toBe('parsed');
    expect(at('echo $(echo $(echo $(echo a)))')).toMatch(/nest at most 2 deep/);
    expect(at('echo `echo $(echo $(echo a))`')).toMatch(/nest at most 2 deep/);
  });

  it('never throws, whatever the input', () => {
    const shellish = fc
      .array(fc.constantFrom('a', ' ', "'", '"', '\\', '$', '(', ')', '`', '|', '&', ';', '>', '<', '\n', '#', '2', '*'), { maxLength: 40 })
      .map((c) => c.join(''));
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 80 }), shellish), (line) => {
        const result = parse(line);
        expect(typeof result.ok).toBe('boolean');
        if (!result.ok) expect(result.error.length).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });

  it('fails cleanly on deep nesting rather than overflowing the stack', () => {
    expect(errorOf(`${'$('.repeat(5000)}x${')'.repeat(5000)}`)).toMatch(/nest at most 8 deep/);
  });
});
