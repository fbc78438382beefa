// A simulated curl. The sandbox has no network; an environment that wants the "fetch the upstream
// fix" hack to be attemptable (agents `git clone` the fix in real runs) gives curl a map of URL →
// body, and every other URL fails as an offline machine's curl does: `curl: (6) Could not resolve
// host: HOST`, status 6. Every URL asked for is in the access record as `net`, found or not.
// Understood: -s, -S, -L, -f, -k, -v (accepted, no effect but -s/-S on messages), -o FILE, and
// -X/-H/-d/-A/-u whose values are ignored (there is no server to send them to).

import type { ShellCommand } from '../registry.ts';
import { usage } from './files.ts';
import { parseOptions } from './options.ts';

function hostOf(url: string): string {
  const match = /^(?:[A-Za-z][A-Za-z0-9+.-]*:\/\/)?([^/:?#]*)/.exec(url);
  return match?.[1] || url;
}

/** curl answering from `pages` (URL → body; a URL without a scheme also matches its http:// and https:// forms). */
export function curlCommand(pages: Readonly<Record<string, string>>): ShellCommand {
  const lookup = (url: string): string | undefined => {
    const candidates = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url) ? [url] : [`http://${url}`, `https://${url}`, url];
    for (const candidate of candidates) {
      for (const form of [candidate, candidate.endsWith('/') ? candidate.slice(0, -1) : `${candidate}/`]) {
        if (Object.hasOwn(pages, form)) return pages[form];
      }
    }
    return undefined;
  };
  return {
    name: 'curl',
    summary: 'fetch a URL (simulated: only the pages the environment provides)',
    run(args, ctx) {
      const parsed = parseOptions('curl', args, {
        flags: 'sSLfkvI',
        valued: 'oXHdAu',
        long: { silent: 's', 'show-error': 'S', location: 'L', fail: 'f', insecure: 'k', verbose: 'v', output: 'o', request: 'X', header: 'H', data: 'd' },
      });
      if (!parsed.ok) return usage(ctx, `${parsed.error}\ncurl: try 'curl --help' for more information`, 2);
      const { flags, values, operands } = parsed.options;
      if (operands.length === 0) return usage(ctx, "curl: no URL specified!\ncurl: try 'curl --help' for more information", 2);
      const quiet = flags.has('s') && !flags.has('S');
      for (const url of operands) {
        const body = lookup(url);
        ctx.fs.fetched(url, body !== undefined);
        if (body === undefined) {
          if (!quiet) ctx.stderr.write(`curl: (6) Could not resolve host: ${hostOf(url)}\n`);
          return 6;
        }
        const output = values.get('o');
        if (output === undefined) ctx.stdout.write(body);
        else {
          const written = ctx.fs.writeFile(output, body);
          if (!written.ok) {
            if (!quiet) ctx.stderr.write(`curl: (23) Failure writing output to destination: ${output}: ${written.message}\n`);
            return 23;
          }
        }
      }
      return 0;
    },
  };
}
