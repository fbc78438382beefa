// The character-level tokenizer of a Hugging Face export: tokenizer.json (the `tokenizers` library's
// serialisation, loaded by transformers' PreTrainedTokenizerFast) and tokenizer_config.json. It
// encodes exactly as Horizon's CharTokenizer (core/tokenizer/char-tokenizer.ts) does, not as GPT-2's
// byte-level BPE: the special tokens are added tokens (matched first, by their names), the rest of
// the text is split into single code points by a Split pre-tokenizer on `[\s\S]` (so newline is one
// too), and each character is looked up in a WordLevel vocabulary. The Fuse decoder joins pieces
// with nothing between them (WordLevel's default would put spaces in). `<unk>` is the piece "\uFFFD"
// when the vocabulary has one; without it an unknown character is an error, as in Horizon.

import type { ExportVocabulary } from './vocabulary.ts';

/** A name WordLevel needs for its unknown token when the vocabulary has none: not in the vocabulary, so lookups of unknown characters fail. */
const NO_UNK = '<unk>';

export function tokenizerJson(vocab: ExportVocabulary): string {
  const specialIds = new Set(Object.values(vocab.special));
  const wordLevel: Record<string, number> = {};
  for (const [id, piece] of vocab.pieces.entries()) wordLevel[piece] = id;
  const doc = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [...specialIds]
      .sort((a, b) => a - b)
      .map((id) => ({ id, content: vocab.pieces[id], single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: null,
    pre_tokenizer: { type: 'Split', pattern: { Regex: '[\\s\\S]' }, behavior: 'Isolated', invert: false },
    post_processor: null,
    decoder: { type: 'Fuse' },
    model: { type: 'WordLevel', vocab: wordLevel, unk_token: vocab.unkId === null ? NO_UNK : vocab.pieces[vocab.unkId] },
  };
  return `${JSON.stringify(doc, null, 1)}\n`;
}

export function tokenizerConfigJson(vocab: ExportVocabulary, contextLength: number): string {
  const name = (id: number | undefined) => (id === undefined ? null : vocab.pieces[id]);
  const doc = {
    tokenizer_class: 'PreTrainedTokenizerFast',
    model_max_length: contextLength,
    eos_token: name(vocab.eosId),
    bos_token: name(vocab.special['<bos>']),
    pad_token: name(vocab.special['<pad>']),
    unk_token: vocab.unkId === null ? null : name(vocab.unkId),
    // No BOS/EOS is added on encode: Horizon's sequences carry exactly the specials they were sampled with.
    add_bos_token: false,
    add_eos_token: false,
    clean_up_tokenization_spaces: false,
  };
  return `${JSON.stringify(doc, null, 1)}\n`;
}
