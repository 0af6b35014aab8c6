import { describe, expect, it } from 'vitest';
import { ODATA_ERROR_CODES } from './odata-error.js';
import { parseQuery, TOP_RANGE } from './parse-query.js';
import { catchODataError, cmp, num, prop, str, stripOffsets } from '../testing/odata-ast.js';

describe('parseQuery: options → Query', () => {
  it.each([
    ['', { count: false, otherParams: [] }],
    ['$select=Id,Name', { select: [prop('Id'), prop('Name')] }],
    ['$select=Id,+Name', { select: [prop('Id'), prop('Name')] }],
    ['$select=+Id+,%20Name%20', { select: [prop('Id'), prop('Name')] }],
    ['$select=Id,Id', { select: [prop('Id')] }],
    ['%24select=Id', { select: [prop('Id')] }],
    ['$select=*', { select: undefined }],
    ["$filter=Name+eq+'pH'", { filter: cmp('Name', 'eq', str('pH')) }],
    ["$filter=Name%20eq%20'pH'", { filter: cmp('Name', 'eq', str('pH')) }],
    ['%24filter=Name%20eq%20%27pH%27', { filter: cmp('Name', 'eq', str('pH')) }],
    ["$filter=Name+eq+'a+b%2Bc'", { filter: cmp('Name', 'eq', str('a b+c')) }],
    ['$filter=Name%20eq%20%27caf%C3%A9%27', { filter: cmp('Name', 'eq', str('café')) }],
    ['$filter=Date+ge+2020-01-31T10:00:00%2B02:00', { filter: cmp('Date', 'ge', { kind: 'datetime', value: '2020-01-31T10:00:00+02:00' }) }],
    ['$top=0', { top: 0 }],
    ['$top=1', { top: 1 }],
    [`$top=${TOP_RANGE.max}`, { top: TOP_RANGE.max }],
    ['$top=0100', { top: 100 }],
    ['$skiptoken=Id:123', { skiptoken: { kind: 'integer', value: 123n } }],
    ['$skiptoken=Id:9223372036854775807', { skiptoken: { kind: 'integer', value: 9223372036854775807n } }],
    ['$skiptoken=Id:0', { skiptoken: { kind: 'integer', value: 0n } }],
    ['$skiptoken=Id:3F2504E0-4F89-11D3-9A0C-0305E82C3301', { skiptoken: { kind: 'uuid', value: '3f2504e0-4f89-11d3-9a0c-0305e82c3301' } }],
    ['$count=true', { count: true }],
    ['$count=TRUE', { count: true }],
    ['$count=False', { count: false }],
    ['$format=json', { format: 'json' }],
    ['$format=CSV', { format: 'csv' }],
    ['$format=arrow', { format: 'arrow' }],
    ['$format=application/json', { format: 'json' }],
    ['$format=text%2Fcsv', { format: 'csv' }],
    ['$format=application/vnd.apache.arrow.stream', { format: 'arrow' }],
    ['$format=application/json;odata.metadata=minimal', { format: 'json' }],
    ['$format=text/csv;charset=utf-8', { format: 'csv' }],
    ['$apply=groupby((A),aggregate($count%20as%20Count))', { apply: { groupBy: [prop('A')], aggregates: [{ kind: 'count', alias: 'Count' }] } }],
    // OData 4.01: system option names are case-insensitive.
    ['$Top=5&$FILTER=A%20eq%201', { top: 5, filter: cmp('A', 'eq', num('1')) }],
    // Parameters without $ are custom options: ignored, kept in order for the link builder.
    ['api_key=k&$top=5&foo=a+b&filter=x', { top: 5, otherParams: [['api_key', 'k'], ['foo', 'a b'], ['filter', 'x']] }],
  ] as const)('%s', (raw, expected) => {
    expect(stripOffsets(parseQuery(raw))).toMatchObject(expected);
  });

  it('combines every option and defaults count to false', () => {
    const q = parseQuery("$select=Id&$filter=A+eq+1&$top=10&$skiptoken=Id:5&$format=csv&x=1");
    expect(Object.keys(q).sort()).toEqual(['count', 'filter', 'format', 'otherParams', 'select', 'skiptoken', 'top']);
    expect(q.count).toBe(false);
    expect(parseQuery('$select=*').select).toBeUndefined();
  });

  it('keeps $select offsets in the decoded value', () => {
    expect(parseQuery('$select=Id,+ResultValue').select).toEqual([
      { kind: 'property', name: 'Id', offset: 0 },
      { kind: 'property', name: 'ResultValue', offset: 4 },
    ]);
  });
});

describe('parseQuery: errors', () => {
  it.each([
    ['$top=1&$top=2', 'duplicate_option', '$top', undefined],
    ['$top=1&%24top=2', 'duplicate_option', '$top', undefined],
    ['$top=1&$TOP=2', 'duplicate_option', '$top', undefined],
    ['$filter=A%20eq%201&$filter=B%20eq%202', 'duplicate_option', '$filter', undefined],
    ['$select=', 'invalid_select', '$select', 0],
    ['$select=Id,', 'invalid_select', '$select', 3],
    ['$select=Id,,Name', 'invalid_select', '$select', 3],
    ['$select=Id,*', 'invalid_select', '$select', 3],
    ['$select=A/B', 'invalid_select', '$select', 0],
    ['$select=Id,1A', 'invalid_select', '$select', 3],
    ['$select=Id(x)', 'invalid_select', '$select', 0],
    [`$top=${TOP_RANGE.max + 1}`, 'invalid_top', '$top', 0],
    ['$top=-1', 'invalid_top', '$top', 0],
    ['$top=%2B1', 'invalid_top', '$top', 0],
    ['$top=+1', 'invalid_top', '$top', 0],
    ['$top=1.5', 'invalid_top', '$top', 0],
    ['$top=1e3', 'invalid_top', '$top', 0],
    ['$top=', 'invalid_top', '$top', 0],
    ['$top', 'invalid_top', '$top', 0],
    ['$top=abc', 'invalid_top', '$top', 0],
    ['$top=99999999999999999999', 'invalid_top', '$top', 0],
    ['$skiptoken=', 'invalid_skiptoken', '$skiptoken', 0],
    ['$skiptoken=Id:', 'invalid_skiptoken', '$skiptoken', 0],
    ['$skiptoken=123', 'invalid_skiptoken', '$skiptoken', 0],
    ['$skiptoken=id:1', 'invalid_skiptoken', '$skiptoken', 0],
    ['$skiptoken=Id:-1', 'invalid_skiptoken', '$skiptoken', 0],
    ['$skiptoken=Id:1.5', 'invalid_skiptoken', '$skiptoken', 0],
    ['$skiptoken=Id:9223372036854775808', 'invalid_skiptoken', '$skiptoken', 0],
    ['$skiptoken=Id:3F2504E0-4F89-11D3-9A0C-0305E82C330', 'invalid_skiptoken', '$skiptoken', 0],
    ['$skiptoken=Id:1%20', 'invalid_skiptoken', '$skiptoken', 0],
    ['$count', 'invalid_count', '$count', 0],
    ['$count=1', 'invalid_count', '$count', 0],
    ['$count=yes', 'invalid_count', '$count', 0],
    ['$format=xml', 'invalid_format', '$format', 0],
    ['$format=atom', 'invalid_format', '$format', 0],
    ['$format=', 'invalid_format', '$format', 0],
    ['$format=;json', 'invalid_format', '$format', 0],
    ['$format=application/xml;q=1', 'invalid_format', '$format', 0],
    ['$filter=', 'invalid_filter', '$filter', 0],
    ["$filter=A+eq+'x", 'invalid_filter', '$filter', 5],
    ['$filter=A%20eq%201%3B', 'invalid_filter', '$filter', 6],
    ['$apply=groupby((A),aggregate($count))', 'unsupported_apply', '$apply', 28],
    ['$filter=%zz', 'undecodable_query', undefined, 8],
    ['$filter=A eq 1', 'undecodable_query', undefined, 9],
    ['$orderby=Id', 'unsupported_option', '$orderby', undefined],
    ['$skip=10', 'unsupported_option', '$skip', undefined],
    ['$expand=X', 'unsupported_option', '$expand', undefined],
    ['$search=blue', 'unsupported_option', '$search', undefined],
    ['$compute=A%20as%20B', 'unsupported_option', '$compute', undefined],
    ['$index=1', 'unsupported_option', '$index', undefined],
    ['$levels=2', 'unsupported_option', '$levels', undefined],
    ['$foo=1', 'unsupported_option', '$foo', undefined],
    ['$=1', 'unsupported_option', '$', undefined],
    ['$constructor=1', 'unsupported_option', '$constructor', undefined],
    ['$__proto__=1', 'unsupported_option', '$__proto__', undefined],
  ] as const)('%s', (raw, code, parameter, offset) => {
    const err = catchODataError(() => parseQuery(raw));
    expect({ code: err.code, parameter: err.parameter, offset: err.offset }).toEqual({ code, parameter, offset });
    expect(err.status).toBe(ODATA_ERROR_CODES[code].status);
  });

  it('explains unsupported options in terms of Id order and $skiptoken paging', () => {
    const message = catchODataError(() => parseQuery('$orderby=Id')).message;
    expect(message).toContain('$orderby is not supported');
    expect(message).toContain('Id order');
    expect(message).toContain('$skiptoken');
    expect(message).toContain('@odata.nextLink');
    expect(catchODataError(() => parseQuery('$top=10001')).message).toContain(`from ${TOP_RANGE.min} to ${TOP_RANGE.max}`);
  });

  // Codes are stable API: this list changes only when a code is added, never renamed.
  it('lists every code with status 400 in one table', () => {
    for (const { status } of Object.values(ODATA_ERROR_CODES)) expect(status).toBe(400);
    expect(Object.keys(ODATA_ERROR_CODES).sort()).toEqual([
      'duplicate_option', 'invalid_count', 'invalid_filter', 'invalid_format', 'invalid_geometry', 'invalid_select', 'invalid_skiptoken', 'invalid_top',
      'too_deep', 'too_many_terms', 'too_many_values', 'undecodable_query', 'unsupported_apply', 'unsupported_expression',
      'unsupported_function', 'unsupported_option',
    ]);
  });
});
