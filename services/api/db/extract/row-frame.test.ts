import { describe, expect, it } from 'vitest';
import { FRAME_DELIMITER, FRAME_END, framedRows, MAX_FRAMED_ID, RowFrames } from './row-frame.js';

const frame = (id: number, text: string) => {
  const bytes = Buffer.from(text, 'utf8');
  return Buffer.concat([Buffer.from(`${id}\x01${bytes.length}\x01`), bytes, Buffer.from('\n')]);
};

/** Texts a frame must carry through untouched: the frame's own bytes, CSV quoting, JSON escapes, non-ASCII. */
const TEXTS = ['{"a":1}', 'x,"y\nz",\x01,\\n', '', 'é水🌊', '\n\n', '1\x012\x01'];

function takeAll(frames: RowFrames, max: number, rowEnd = ',', batch = 1 << 20) {
  const ids: number[] = [];
  const out = frames.take(max, Buffer.from(rowEnd), batch, (id, i) => ids.push(id, i));
  return { text: out.data.toString('utf8'), rows: out.rows, ids };
}

describe('RowFrames', () => {
  it('cuts rows by their length, whatever their text holds, and re-frames them with the row end', () => {
    const frames = new RowFrames();
    frames.push(Buffer.concat(TEXTS.map((t, i) => frame(i + 10, t))));
    const got = takeAll(frames, 100, '\r\n');
    expect(got.rows).toBe(TEXTS.length);
    expect(got.text).toBe(TEXTS.map((t) => `${t}\r\n`).join(''));
    expect(got.ids).toEqual(TEXTS.flatMap((_, i) => [i + 10, i]));
    expect(frames.bytes).toBe(0);
  });

  it('gives the same rows however the stream is split into reads, down to single bytes', () => {
    const all = Buffer.concat(TEXTS.map((t, i) => frame(i + 1, t)));
    for (const size of [1, 2, 3, 7, 16, all.length]) {
      const frames = new RowFrames();
      let text = '';
      let rows = 0;
      for (let at = 0; at < all.length; at += size) {
        frames.push(all.subarray(at, at + size));
        const got = takeAll(frames, 100);
        text += got.text;
        rows += got.rows;
      }
      expect({ size, rows, text }).toEqual({ size, rows: TEXTS.length, text: TEXTS.map((t) => `${t},`).join('') });
    }
  });

  it('rewrites rows in buffers of its own: the reads are left untouched and earlier takes stay intact', () => {
    const all = Buffer.concat(Array.from({ length: 200 }, (_, i) => frame(i, TEXTS[i % TEXTS.length]!.repeat(i % 50))));
    const pristine = Buffer.from(all);
    for (const size of [5, 64, 1000, all.length]) {
      const frames = new RowFrames();
      const outs: Buffer[] = [];
      for (let at = 0; at < all.length; at += size) {
        frames.push(all.subarray(at, at + size));
        // Batches smaller than what is held, so a take leaves a carry that the next one writes into.
        for (let got = frames.take(7, Buffer.from('\r\n'), 300, () => {}); got.rows > 0; got = frames.take(7, Buffer.from('\r\n'), 300, () => {})) outs.push(got.data);
      }
      expect(all.equals(pristine), `reads changed (size ${size})`).toBe(true);
      expect(Buffer.concat(outs).toString('utf8')).toBe(Array.from({ length: 200 }, (_, i) => `${TEXTS[i % TEXTS.length]!.repeat(i % 50)}\r\n`).join(''));
    }
  });

  it('stops at max rows and keeps the rest, partial row included, for the next take', () => {
    const frames = new RowFrames();
    const all = Buffer.concat([frame(1, 'a'), frame(2, 'bb'), frame(3, 'ccc')]);
    frames.push(all.subarray(0, all.length - 2));
    expect(takeAll(frames, 1)).toEqual({ text: 'a,', rows: 1, ids: [1, 0] });
    expect(takeAll(frames, 5)).toEqual({ text: 'bb,', rows: 1, ids: [2, 0] });
    expect(takeAll(frames, 5).rows).toBe(0);
    frames.push(all.subarray(all.length - 2));
    expect(takeAll(frames, 5)).toEqual({ text: 'ccc,', rows: 1, ids: [3, 0] });
  });

  it('assembles a row longer than the batch over several takes', () => {
    const frames = new RowFrames();
    const long = 'x'.repeat(10_000);
    const bytes = frame(7, long);
    for (let at = 0; at < bytes.length; at += 1000) frames.push(bytes.subarray(at, at + 1000));
    let got = { text: '', rows: 0, ids: [] as number[] };
    for (let i = 0; i < 20 && got.rows === 0; i++) got = takeAll(frames, 1, ',', 1000);
    expect(got).toEqual({ text: `${long},`, rows: 1, ids: [7, 0] });
  });

  it('a rejected Id stops the take with the checker error', () => {
    const frames = new RowFrames();
    frames.push(Buffer.concat([frame(1, 'a'), frame(5, 'b')]));
    expect(() =>
      frames.take(2, Buffer.from(','), 1 << 20, (id) => {
        if (id === 5) throw new Error('Id 5 out of place');
      }),
    ).toThrow('Id 5 out of place');
  });

  it('a frame that is not ours fails loudly instead of producing rows', () => {
    const bad = new RowFrames();
    bad.push(Buffer.from('1\x013\x01abcd\n'));
    expect(() => takeAll(bad, 1)).toThrow(/no line end where its length says/);
    const notNumber = new RowFrames();
    notNumber.push(Buffer.from('1x\x013\x01abc\n'));
    expect(() => takeAll(notNumber, 1)).toThrow(/expected a decimal number/);
  });

  it('an Id of 16 digits is not a frame: the largest framed Id is MAX_FRAMED_ID - 1, read exactly', () => {
    const largest = Number(MAX_FRAMED_ID - 1n);
    const ok = new RowFrames();
    ok.push(frame(largest, 'x'));
    expect(takeAll(ok, 1).ids).toEqual([largest, 0]);
    const big = new RowFrames();
    big.push(Buffer.from(`${MAX_FRAMED_ID}\x011\x01x\n`));
    expect(() => takeAll(big, 1)).toThrow(/expected a decimal number/);
  });

  it('framedRows is the SQL of the frame the reader takes: id, byte length, text', () => {
    expect(framedRows({ sql: 'SELECT 1 AS id, \'é\' AS row', params: [] }).sql).toBe("SELECT id, strlen(row) AS n, row FROM (SELECT 1 AS id, 'é' AS row)");
    expect([FRAME_DELIMITER, FRAME_END]).toEqual(['\x01', '\n']);
  });

  it('clear drops everything held', () => {
    const frames = new RowFrames();
    frames.push(frame(1, 'abc').subarray(0, 4));
    frames.push(Buffer.from('zz'));
    expect(frames.bytes).toBe(6);
    frames.clear();
    expect(frames.bytes).toBe(0);
  });
});
