import { describe, expect, it } from 'vitest';
import { BoardError } from './errors.js';
import { MAX_ID, parseId, parseListQuery } from './request-input.js';

describe('parseId', () => {
  it.each([
    ['1', 1],
    ['007', 7],
    [String(MAX_ID), MAX_ID],
  ])('parses %s', (raw, id) => expect(parseId(raw)).toBe(id));

  it.each(['', '0', '-1', '+1', '1.0', '1e3', '0x10', ' 1', '١', String(MAX_ID + 1), '99999999999', 'abc'])(
    'refuses %j with a 400',
    (raw) => {
      expect(() => parseId(raw)).toThrow(BoardError);
      try {
        parseId(raw);
      } catch (e) {
        expect((e as BoardError).status).toBe(400);
      }
    },
  );
});

describe('parseListQuery', () => {
  it.each([
    [{}, {}],
    [{ after: ['0'] }, { after: 0 }],
    [{ after: ['10'], limit: ['5'] }, { after: 10, limit: 5 }],
  ])('parses %j', (query, parsed) => expect(parseListQuery(query)).toEqual(parsed));

  it.each([
    [{ offset: ['1'] }, /unknown query parameter "offset"/],
    [{ after: ['1', '2'] }, /more than once/],
    [{ limit: ['0'] }, /limit must be/],
    [{ after: ['-1'] }, /after must be/],
  ])('refuses %j', (query, message) => expect(() => parseListQuery(query)).toThrow(message));
});
