// checkUploadName: an upload's name is held to the rules of a file dropped into documents/ by hand.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/serve/api-error.js';
import { checkUploadName } from '../../src/serve/upload-document.js';

function refusal(name: string | null): [number, string] | null {
  try {
    checkUploadName(name);
    return null;
  } catch (err) {
    return err instanceof ApiError ? [err.status, err.code] : null;
  }
}

describe('checkUploadName', () => {
  it.each(['report.pdf', 'notes final.md', 'Données.txt', 'page.HTML', 'links.url', 'table.csv'])('accepts %s', (name) => {
    expect(checkUploadName(name)).toBe(name);
  });

  it.each([
    [null, 'missing'],
    ['', 'empty'],
    ['../escape.md', 'a parent folder'],
    ['sub/dir.md', 'a folder'],
    ['..\\escape.md', 'a Windows folder'],
    ['..', 'the parent itself'],
    ['.hidden.md', 'hidden'],
    ['draft.md~', 'an editor backup'],
    ['x.md.cortex-tmp-1-ab', "the indexer's temp file"],
    ['bell\u0007.md', 'a control character'],
    ['nul\u0000.md', 'a NUL byte'],
    [`${'a'.repeat(250)}.md`, 'too long'],
    [`${'é'.repeat(100)}.md`, 'too long in bytes (203), though 103 characters'],
    ['report\u202Egnp.md', 'a right-to-left override'],
    ['a\u2066b.md', 'a bidi isolate'],
    ['zero\u200Bwidth.md', 'a zero-width space'],
    ['broken\uFFFD.md', 'what is left of bytes that were not UTF-8'],
  ] as Array<[string | null, string]>)('refuses %j (%s) with 400', (name) => {
    expect(refusal(name)).toEqual([400, expect.any(String)]);
  });

  it('returns the name in NFC, so both spellings of one name are one file', () => {
    expect(checkUploadName('Cafe\u0301.md')).toBe('Caf\u00e9.md');
  });

  it('refuses a type the indexer cannot read with 415', () => {
    expect(refusal('setup.exe')).toEqual([415, 'unsupported_type']);
    expect(refusal('archive')).toEqual([415, 'unsupported_type']);
  });
});
