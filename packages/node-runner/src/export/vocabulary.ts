// The vocabulary every export carries (vocabulary.json), read from the checkpoint's stored token
// texts (CharTokenizer.pieceList: the special tokens first, then one character per id, then
// `<unk>` as U+FFFD when the vocabulary has it). Without it the ids mean nothing: Horizon's
// vocabularies are per task (13 ids for addition), not GPT-2's 50257 BPE tokens.

import { SPECIAL_TOKENS, UNK_TEXT } from '@horizon/core';

export interface ExportVocabulary {
  /** Token text by id: a special token by its name ("<eos>"), a character as itself, `<unk>` as "\uFFFD". */
  pieces: string[];
  /** The special tokens' ids by name. */
  special: Record<string, number>;
  /** The id an unknown character encodes as, or null when the vocabulary has none (then it is an error). */
  unkId: number | null;
  eosId: number;
}

export function exportVocabulary(pieces: readonly string[]): ExportVocabulary {
  const special: Record<string, number> = {};
  for (const [id, piece] of pieces.entries()) if ((SPECIAL_TOKENS as readonly string[]).includes(piece)) special[piece] = id;
  const eosId = special['<eos>'];
  if (eosId === undefined) throw new RangeError('the checkpoint vocabulary has no <eos>, which every Horizon tokenizer has');
  const unkId = pieces.at(-1) === UNK_TEXT ? pieces.length - 1 : null;
  return { pieces: [...pieces], special, unkId, eosId };
}

/** vocabulary.json: the pieces and what each special id is for, so a script can encode and decode. */
export function vocabularyJson(vocab: ExportVocabulary): string {
  const doc = {
    kind: 'character-level',
    how: 'id = index in pieces; text is split into Unicode code points, a special token written by its name (e.g. "<eos>") is one id, and a character not in pieces is unk_id (an error when unk_id is null)',
    pieces: vocab.pieces,
    special_tokens: vocab.special,
    eos_id: vocab.eosId,
    unk_id: vocab.unkId,
  };
  return `${JSON.stringify(doc, null, 1)}\n`;
}
