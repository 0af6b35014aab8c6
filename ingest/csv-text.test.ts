import { describe, expect, it } from 'vitest';
import { parseCsv } from './csv-text.js';

describe('parseCsv', () => {
  it('reads quoted CSV fields with commas, quotes and line breaks', () => {
    expect(parseCsv('a,"b,""c""\nd"\n1,2')).toEqual([['a', 'b,"c"\nd'], ['1', '2']]);
  });
  it('ends records at CRLF or LF, with or without a final line break', () => {
    expect(parseCsv('a,b\r\n1,"2"\r\n3,4\n')).toEqual([['a', 'b'], ['1', '2'], ['3', '4']]);
  });
  it('refuses an unterminated quoted field rather than returning half a record', () => {
    expect(() => parseCsv('a,"b\n1,2')).toThrow(/unterminated quoted field/);
  });
});
