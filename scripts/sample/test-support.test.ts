import { describe, expect, it } from 'vitest';
import { csvField } from './csv.js';
import { parseCsv } from './test-support.js';

describe('csv quoting round trip', () => {
  it.each([['plain'], ['a,b'], ['say "hi"'], ['two\nlines'], ['crlf\r\nline'], [''], ['Rivière, "Saint-Charles"\n']])('%j', (value) => {
    expect(parseCsv(`${csvField(value)},x\n`)).toEqual([[value, 'x']]);
  });

  it('reads CRLF rows and a last row without newline', () => {
    expect(parseCsv('a,b\r\n1,"2"\r\n3,4')).toEqual([['a', 'b'], ['1', '2'], ['3', '4']]);
  });
});
