/** `/$count`'s query: `$filter` and the custom parameters pass to the page's parser, every other `$` option is refused by name. */
import { describe, expect, it } from 'vitest';
import { ODataError } from './odata-error.js';
import { parseCountQuery } from './parse-count-query.js';
import { parseQuery } from './parse-query.js';

describe('parseCountQuery', () => {
  it('is the page parser\'s query with count set, its filter and custom parameters kept', () => {
    const raw = "$filter=CharacteristicName%20eq%20'pH'&publication=p1";
    expect(parseCountQuery(raw)).toEqual({ ...parseQuery(raw), count: true });
    expect(parseCountQuery('')).toEqual({ count: true, otherParams: [] });
  });

  it.each(['$top=1', '$skip=1', '$orderby=Id', '$select=Id', '$skiptoken=Id:1', '$count=true', '$apply=aggregate($count%20as%20N)', '$format=json', '$Top=1', '$unknown=1'])('%s is unsupported_option naming the option as written', (option) => {
    const name = option.split('=')[0]!;
    const err = (() => {
      try {
        parseCountQuery(`$filter=Id%20gt%201&${option}`);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ODataError);
    expect(err).toMatchObject({ code: 'unsupported_option', parameter: name, message: expect.stringContaining(`${name} is not allowed on /$count`) });
  });

  it('leaves $search and a bad $filter to the page parser, so they fail as they do on a collection', () => {
    for (const raw of ['$search=pH', "$filter=CharacteristicName%20eq%20'pH"]) {
      expect(() => parseCountQuery(raw)).toThrow(ODataError);
      const page = (() => { try { parseQuery(raw); } catch (e) { return (e as ODataError).code; } })();
      const count = (() => { try { parseCountQuery(raw); } catch (e) { return (e as ODataError).code; } })();
      expect(count).toBe(page);
    }
  });
});
