// The JavaScript the code runner evaluates inside each fresh QuickJS context before the agent's
// code: a seeded `Math.random`, a fixed `Date`, a `console` that writes through one host function,
// and the helpers the host calls with (invoke a case, encode a value, describe a thrown value).
//
// Why each piece:
// - Determinism: QuickJS's own `Math.random` and `Date.now` read the host's entropy and clock, so a
//   replayed rollout could differ. `Math.random` becomes mulberry32 (Tommy Ettinger's 32-bit
//   generator, period 2^32) seeded from the request; `Date` with no arguments and `Date.now()` give
//   FIXED_TIME_MS. Local-time methods still follow the host's time zone (Emscripten asks the host);
//   UTC methods are exact.
// - Strings leave the VM as JSON: quickjs-emscripten reads a returned string only up to its first
//   NUL, and `JSON.stringify` escapes NUL as \u0000, so nothing is cut.
// - A thrown `undefined`, Symbol or Proxy dumps as nothing useful, so `describe` writes the sentence.
// The helpers are closed over before the agent's code runs; the agent can still change the globals
// they use (JSON, Array.prototype), which only changes its own results, within the same limits.

/** What `new Date()` and `Date.now()` return inside the VM: 2000-01-01T00:00:00.000Z. */
export const FIXED_TIME_MS = 946_684_800_000;

/** Characters of a thrown value's text or a description kept in an error message. */
export const MESSAGE_CHARS = 300;

/**
 * Evaluates to a function `(write, seed, outputChars) => helpers`. `write(json)` receives one
 * JSON-encoded console line (or `null` for a line dropped because the output is full) and returns
 * how many characters may still be written. `outputChars` is the first such room and also caps a
 * returned value's JSON.
 */
export const VM_PRELUDE = `(function (write, seed, outputChars) {
  'use strict';
  const stringify = JSON.stringify, parse = JSON.parse, RealDate = Date, toStr = String;
  const cut = (text) => text.length > ${MESSAGE_CHARS} ? text.slice(0, ${MESSAGE_CHARS}) + '…' : text;

  let state = seed >>> 0;
  Math.random = function random() {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };

  function FixedDate(...args) {
    if (new.target === undefined) return new RealDate(${FIXED_TIME_MS}).toString();
    return args.length === 0 ? new RealDate(${FIXED_TIME_MS}) : new RealDate(...args);
  }
  FixedDate.prototype = RealDate.prototype;
  FixedDate.now = () => ${FIXED_TIME_MS};
  FixedDate.parse = RealDate.parse;
  FixedDate.UTC = RealDate.UTC;
  Object.defineProperty(RealDate.prototype, 'constructor', { value: FixedDate, writable: true, configurable: true });
  globalThis.Date = FixedDate;

  const show = (value) => {
    if (typeof value === 'string') return value;
    if (typeof value === 'object' && value !== null) {
      try { const json = stringify(value); if (json !== undefined) return json; } catch (_) {}
    }
    try { return toStr(value); } catch (_) { return '[value that cannot be shown]'; }
  };
  // Once the host says the output is full, a line costs one call and no formatting.
  let room = outputChars;
  const log = (...args) => {
    if (room <= 0) { room = write('null'); return; }
    const line = args.map(show).join(' ') + '\\n';
    room = write(stringify(line.length > room ? line.slice(0, room + 1) : line));
  };
  globalThis.console = { log, info: log, warn: log, error: log, debug: log };

  function describe(thrown) {
    let text;
    if (thrown === undefined) text = 'The code threw undefined, which carries no message.';
    else if (thrown === null) text = 'The code threw null, which carries no message.';
    else if (typeof thrown === 'symbol') text = 'The code threw a Symbol, which carries no message.';
    else if (typeof thrown === 'object' || typeof thrown === 'function') {
      try {
        const name = thrown.name, message = thrown.message;
        if (typeof message === 'string' && message !== '') text = (typeof name === 'string' && name !== '' ? name : 'Error') + ': ' + cut(message);
        else if (thrown instanceof Error) text = (typeof name === 'string' && name !== '' ? name : 'Error') + ' with no message.';
        else {
          let json;
          try { json = stringify(thrown); } catch (_) {}
          text = json === undefined ? 'The code threw an object with no message.' : 'The code threw an object with no message: ' + cut(json);
        }
      } catch (_) {
        text = 'The code threw an object whose properties cannot be read (a Proxy that throws, perhaps).';
      }
    } else text = 'The code threw ' + typeof thrown + ' ' + cut(toStr(thrown)) + '.';
    return stringify(text);
  }

  function invoke(fn, argsJson) {
    if (typeof fn !== 'function') throw new TypeError('The entry is ' + (fn === null ? 'null' : typeof fn) + ', not a function.');
    return fn(...parse(argsJson));
  }

  function encode(value) {
    const json = stringify(value);
    if (json === undefined) throw new TypeError('The result is ' + (typeof value) + ', which JSON cannot carry.');
    if (json.length > outputChars) throw new RangeError('The result is ' + json.length + ' characters of JSON, over the output limit of ' + outputChars + '.');
    return json;
  }

  return { describe, invoke, encode };
})`;
