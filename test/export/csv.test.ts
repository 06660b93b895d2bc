import { describe, expect, it } from 'vitest';
import { csvField, csvHeader, csvLine } from '../../src/export/csv.js';

describe('CSV fields per RFC 4180', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\r\nlines', '"two\r\nlines"'],
    ['lf\nonly', '"lf\nonly"'],
    ['0.000000012300', '0.000000012300'],
  ])('%j is written %j', (text, written) => {
    expect(csvField(text)).toBe(written);
  });

  it('writes nothing for a missing value, counts as they are, big counts exactly', () => {
    expect(csvLine([null, 7, '9007199254740993'])).toBe(',7,9007199254740993\r\n');
  });

  it('ends each record, the header too, with CRLF', () => {
    expect(
      csvHeader([
        { name: 'date', type: 'text' },
        { name: 'user_email', type: 'text' },
      ]),
    ).toBe('date,user_email\r\n');
  });
});
