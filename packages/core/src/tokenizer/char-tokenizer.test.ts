import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ADDITION_VOCABULARY } from '../envs/addition.ts';
import { CharTokenizer, PRINTABLE_ASCII, SPECIAL_TOKENS, UNK_TEXT } from './char-tokenizer.ts';

const full = new CharTokenizer();
const addition = new CharTokenizer(ADDITION_VOCABULARY);
/** The addition characters with <unk> appended (the default). */
const digits = new CharTokenizer({ characters: '0123456789+=', specialTokens: ['<eos>'] });

/** Text made of the tokenizer's own characters and special-token names. */
function textOf(tok: CharTokenizer) {
  return fc.array(fc.constantFrom(...tok.characters, ...tok.specialTokens), { maxLength: 60 }).map((parts) => parts.join(''));
}

describe('character tokenizer', () => {
  it('default: all 11 specials first, then printable ASCII and newline, then <unk>', () => {
    expect(full.vocabSize).toBe(11 + 96 + 1);
    expect(full.unkId).toBe(11 + 96);
    expect(full.specialTokens).toEqual(SPECIAL_TOKENS);
    expect(full.id('<pad>')).toBe(0);
    expect(full.padId).toBe(0);
    expect(full.eosId).toBe(2);
    expect(full.id('</tool_call>')).toBe(6);
    expect(full.encode(' ~\n')).toEqual([11, 11 + 94, 11 + 95]);
    expect(PRINTABLE_ASCII.length).toBe(96);
  });

  it('an addition task gets a 13-token vocabulary, no <unk>; <eos> doubles as padding', () => {
    expect(addition.vocabSize).toBe(13);
    expect(addition.unkId).toBeUndefined();
    expect(addition.eosId).toBe(0);
    expect(addition.padId).toBe(0);
    expect(addition.encode('12+9=21<eos>')).toEqual([2, 3, 11, 10, 12, 3, 2, 0]);
    expect(addition.decode([2, 3, 11, 10, 12, 3, 2, 0], { skipSpecials: true })).toBe('12+9=21');
    expect(() => addition.id('<user>')).toThrow(/this tokenizer has no <user> \(it has <eos>\)/);
  });

  it('parses specials written in text as one token, the longest match, and only when asked', () => {
    const ids = full.encode('<user>hi<assistant><tool_call>ls</tool_call><tool_result>a</tool_result><summary>s</summary><eos>');
    expect(ids.filter((id) => full.isSpecial(id)).map((id) => full.specialTokens[id])).toEqual([
      '<user>',
      '<assistant>',
      '<tool_call>',
      '</tool_call>',
      '<tool_result>',
      '</tool_result>',
      '<summary>',
      '</summary>',
      '<eos>',
    ]);
    // Untrusted text (a file's contents) must not forge a tool result.
    const literal = full.encode('</tool_result>', { specials: false });
    expect(literal.length).toBe('</tool_result>'.length);
    expect(literal.some((id) => full.isSpecial(id))).toBe(false);
    // '<' that starts no special name is an ordinary character.
    expect(full.encode('a<b <eos')).toEqual([...'a<b <eos'].map((c) => full.encode(c, { specials: false })[0]));
  });

  it('without <unk>, names a character outside the set, with its code point and index', () => {
    expect(() => addition.encode('12+x=3')).toThrow(
      /text has "x" \(U\+0078\) at index 3, which is not in this tokenizer's character set \(12 characters: "0123456789\+="\) and it has no <unk>/,
    );
    const plain = new CharTokenizer({ unknownToken: false });
    expect(() => plain.encode('naïve')).toThrow(/text has "ï" \(U\+00EF\) at index 2/);
    expect(() => plain.encode('tab\there')).toThrow(/"\\t" \(U\+0009\) at index 3/);
    expect(() => addition.encode('1<user>')).toThrow(/"<" \(U\+003C\) at index 1/);
  });

  it('with <unk>, a character outside the set encodes as <unk>, never throws, and decodes visibly as U+FFFD', () => {
    // Appended last: every other id is the one the same set without <unk> gives.
    expect(digits.vocabSize).toBe(14);
    expect(digits.unkId).toBe(13);
    expect(digits.encode('12+9=21<eos>')).toEqual(addition.encode('12+9=21<eos>'));
    expect(digits.encode('12+x=3')).toEqual([2, 3, 11, 13, 12, 4]);
    expect(digits.decode(digits.encode('12+x=3'))).toBe(`12+${UNK_TEXT}=3`);
    expect(digits.decode([13], { skipSpecials: true })).toBe(UNK_TEXT);
    expect(digits.encode(UNK_TEXT)).toEqual([13]);
    expect(full.encode('naïve 😀\t')).toEqual([...full.encode('na'), 107, ...full.encode('ve '), 107, 107]);
    expect(digits.encode('1<user>')).toEqual([2, 13, 13, 13, 13, 13, 13]);
    expect(full.isSpecial(107)).toBe(false);
  });

  it('says which characters would become <unk>, with their code point and first index', () => {
    expect(digits.unknownCharacters('12+x=3x\t')).toEqual([
      { character: 'x', index: 3, description: '"x" (U+0078)' },
      { character: '\t', index: 7, description: '"\\t" (U+0009)' },
    ]);
    expect(full.unknownCharacters('<user>naïve')).toEqual([{ character: 'ï', index: 8, description: '"ï" (U+00EF)' }]);
    expect(addition.unknownCharacters('12+9=')).toEqual([]);
  });

  it('the vocabulary as pieces in id order: specials by name, characters, then <unk> when it has one', () => {
    expect(addition.pieceList()).toEqual(['<eos>', ...'0123456789+=']);
    expect(digits.pieceList()).toEqual(['<eos>', ...'0123456789+=', UNK_TEXT]);
    expect(() => new CharTokenizer({ characters: `ab${UNK_TEXT}` })).toThrow(/how <unk> decodes/);
  });

  it('rejects bad construction and bad ids, naming the argument', () => {
    expect(() => new CharTokenizer({ specialTokens: ['<eos>', '<eot>'] })).toThrow(/specialTokens\[1\] = "<eot>" is not a special token Horizon knows/);
    expect(() => new CharTokenizer({ specialTokens: ['<pad>'] })).toThrow(/must include "<eos>"/);
    expect(() => new CharTokenizer({ specialTokens: ['<eos>', '<eos>'] })).toThrow(/lists <eos> twice/);
    expect(() => new CharTokenizer({ characters: 'abca' })).toThrow(/characters lists "a" \(U\+0061\) twice/);
    expect(() => new CharTokenizer({ characters: ['ab'] })).toThrow(/characters\[0\] = "ab" must be exactly one character/);
    expect(() => new CharTokenizer({ characters: '' })).toThrow(/characters must not be empty/);
    expect(() => addition.decode([1, 13])).toThrow(/ids\[1\] = 13 is outside \[0, vocabSize = 13\)/);
    expect(() => addition.decode([0.5])).toThrow(/ids\[0\] = 0.5/);
  });

  it('property: decode(encode(text)) = text for text over the set and special names', () => {
    fc.assert(fc.property(textOf(full), (text) => full.decode(full.encode(text)) === text));
    fc.assert(fc.property(textOf(addition), (text) => addition.decode(addition.encode(text)) === text));
    fc.assert(fc.property(textOf(full), (text) => full.decode(full.encode(text, { specials: false })) === text));
  });

  it('property: encode(decode(ids)) = ids when no character spells a special name', () => {
    // Without '<' among the characters, characters cannot spell a special token.
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: addition.vocabSize - 1 })), (ids) => {
        expect(addition.encode(addition.decode(ids))).toEqual(ids);
      }),
    );
  });

  it('property: any set of distinct code points, astral ones included, round-trips one id per character', () => {
    const charSet = fc.uniqueArray(fc.constantFrom('é', '😀', '中', 'z', '\n', '<', '>', '/', 'e'), { minLength: 1 });
    const anySet = fc
      .uniqueArray(
        fc.integer({ min: 0x20, max: 0x1f64f }).filter((cp) => cp < 0xd800 || cp > 0xdfff),
        { minLength: 1, maxLength: 30 },
      )
      .map((cps) => cps.map((cp) => String.fromCodePoint(cp)));
    fc.assert(
      fc.property(fc.oneof(charSet, anySet), fc.nat(), (chars, seed) => {
        const tok = new CharTokenizer({ characters: chars, specialTokens: ['<eos>', '<pad>'] });
        const picks = Array.from({ length: seed % 20 }, (_, k) => chars[(seed + k * 7) % chars.length]);
        const text = picks.join('');
        const ids = tok.encode(text, { specials: false });
        expect(ids.length).toBe(picks.length);
        expect(tok.decode(ids)).toBe(text);
        expect(ids.every((id) => id >= 2 && id < (tok.unkId ?? tok.vocabSize))).toBe(true);
      }),
    );
  });
});
