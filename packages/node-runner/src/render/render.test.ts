// The Playwright render server's parts that need no browser: the missing-Chromium sentence,
// $CHROMIUM_PATH first, and a compiled page no program text can break out of.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseProgram } from '@horizon/core';
import { describe, expect, it } from 'vitest';
import { compilePage } from './compile-page.ts';
import { ChromiumNotFoundError, findChromium } from './find-chromium.ts';

describe('the Playwright render server, without a browser', () => {
  it('says which Debian package to install when Chromium is missing, in one sentence', () => {
    expect(() => findChromium({}, [])).toThrow(ChromiumNotFoundError);
    expect(() => findChromium({}, [])).toThrow(
      /^The Playwright render server needs Chromium, [^.]*install the Debian package chromium[^.]*works without it\.$/,
    );
  });

  it('takes $CHROMIUM_PATH before the usual paths', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chromium-'));
    try {
      const fake = join(dir, 'chromium');
      writeFileSync(fake, '');
      expect(findChromium({ CHROMIUM_PATH: fake }, [])).toBe(fake);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it('compiles texts so no string can end the page script', () => {
    const parsed = parseProgram('B a"</script><b>x";L o;a>o="</script>"');
    if (!parsed.ok) throw new Error('the program should parse');
    const page = compilePage(parsed.program);
    expect(page.match(/<\/script>/g)).toHaveLength(1);
    expect(page).toContain('\\u003c/script>');
    expect(compilePage(undefined)).not.toContain('addEventListener');
  });
});
