import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ancestorsOf, baseName, isWithin, joinPath, parentOf, resolvePath, utf8Length, utf8Prefix } from './paths.ts';

describe('sandbox paths', () => {
  it('resolves relative paths against the working directory', () => {
    expect(resolvePath('/src', 'a.ts')).toBe('/src/a.ts');
    expect(resolvePath('/src', './lib/../a.ts')).toBe('/src/a.ts');
    expect(resolvePath('/', '')).toBe('/');
    expect(resolvePath('/a/b', '..')).toBe('/a');
    expect(resolvePath('/a', '/x//y/./z/')).toBe('/x/y/z');
  });

  it('never escapes the root, however many .. there are', () => {
    expect(resolvePath('/', '../../..')).toBe('/');
    expect(resolvePath('/src', '../../../.eval/expected.txt')).toBe('/.eval/expected.txt');
    expect(resolvePath('/', '/a/../../.eval')).toBe('/.eval');
    expect(resolvePath('/', '//.eval')).toBe('/.eval');
  });

  it('normalises any string to an absolute path without . or .. components', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', '.', '..', '', '.eval', 'b c'), { maxLength: 12 }), fc.boolean(), (parts, absolute) => {
        const resolved = resolvePath('/w/x', (absolute ? '/' : '') + parts.join('/'));
        expect(resolved.startsWith('/')).toBe(true);
        expect(
          resolved
            .split('/')
            .slice(1)
            .every((p) => p !== '.' && p !== '..'),
        ).toBe(true);
        expect(resolved === '/' || !resolved.endsWith('/')).toBe(true);
        expect(resolved.includes('//')).toBe(false);
      }),
    );
  });

  it('splits and joins paths', () => {
    expect(parentOf('/a/b')).toBe('/a');
    expect(parentOf('/a')).toBe('/');
    expect(parentOf('/')).toBe('/');
    expect(baseName('/a/b.txt')).toBe('b.txt');
    expect(baseName('/')).toBe('');
    expect(joinPath('/', 'a')).toBe('/a');
    expect(joinPath('/a', 'b')).toBe('/a/b');
    expect(ancestorsOf('/a/b/c')).toEqual(['/', '/a', '/a/b']);
    expect(ancestorsOf('/a')).toEqual(['/']);
  });

  it('tells whether a path lies within a folder, by whole components', () => {
    expect(isWithin('/.eval/x', '/.eval')).toBe(true);
    expect(isWithin('/.eval', '/.eval')).toBe(true);
    expect(isWithin('/.evaluation', '/.eval')).toBe(false);
    expect(isWithin('/anything', '/')).toBe(true);
  });

  it('counts and cuts UTF-8 bytes without splitting a character', () => {
    for (const text of ['abc', 'é', '€', '😀', 'a😀b€']) expect(utf8Length(text)).toBe(new TextEncoder().encode(text).length);
    expect(utf8Prefix('a😀b', 4)).toBe('a');
    expect(utf8Prefix('a😀b', 5)).toBe('a😀');
    expect(utf8Prefix('abc', 10)).toBe('abc');
  });
});
