/**
 * Well-known text (OGC 06-103r4 §7, the 2D subset) read from any position of a filter's text, and written back:
 * the one reader behind CQL2-Text's inline literals (`S_INTERSECTS(geometry, POLYGON((…)))`) and OData's
 * `geography'SRID=4326;POLYGON((…))'`. It scans characters with sticky regexes, linear in the input, and hands
 * every literal to `geometryProblem`, so both languages refuse the same shapes with the same words.
 */
import { GEOMETRY_LIMITS, geometryProblem, type GeometryBudget, type Geometry, type Position, type Ring } from './geometry.js';
import { ODataError } from './odata-error.js';

const NUMBER = /[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?/y;
const WORD = /[A-Za-z]+/y;
const SPACE = /[ \t\r\n]*/y;

/** The WKT keywords this reader knows; `BBOX` only where the language has it (CQL2). */
export const WKT_TYPES = ['POINT', 'MULTIPOINT', 'LINESTRING', 'MULTILINESTRING', 'POLYGON', 'MULTIPOLYGON', 'GEOMETRYCOLLECTION'] as const;

export interface WktOptions {
  /** The option the text came from, for messages. */
  readonly parameter: string;
  /** Accept CQL2's `BBOX(west, south, east, north)` (and its draft name ENVELOPE). */
  readonly bbox: boolean;
  /** What the filter's literals may still cost together (the cursor's); a literal of its own when left out. */
  readonly budget?: GeometryBudget;
}

/**
 * Reads one geometry starting at `start` (its keyword); returns it and the position after its closing `)`.
 * Throws `ODataError` (`invalid_geometry`) naming the position and what is wrong.
 *
 * @example
 * readWkt('S_WITHIN(geometry, POINT(-114 51))', 19, { parameter: 'filter', bbox: true })
 * // → { geometry: { type: 'Point', coordinates: [-114, 51] }, end: 33 }
 */
export function readWkt(text: string, start: number, opts: WktOptions): { geometry: Geometry; end: number } {
  const reader = new WktReader(text, start, opts);
  const geometry = reader.geometry(0);
  const problem = geometryProblem(geometry, opts.budget);
  if (problem) throw new ODataError('invalid_geometry', `The ${keywordOf(geometry)} at position ${start} of ${opts.parameter} ${problem}.`, { parameter: opts.parameter, offset: start });
  return { geometry, end: reader.pos };
}

class WktReader {
  constructor(
    private readonly text: string,
    public pos: number,
    private readonly opts: WktOptions,
  ) {}

  geometry(depth: number): Geometry {
    this.space();
    const at = this.pos;
    const word = (this.match(WORD) ?? '').toUpperCase();
    this.space();
    const dims = this.peekWord();
    if (dims === 'Z' || dims === 'M' || dims === 'ZM') throw this.error(`${word} ${dims} at position ${at} has elevations or measures, which locations do not have: write two numbers per position, longitude then latitude`, at);
    if (dims === 'EMPTY') throw this.error(`${word} EMPTY at position ${at} matches nothing: give a geometry with positions`, at);
    switch (word) {
      case 'POINT':
        return { type: 'Point', coordinates: this.wrapped(() => this.position()) };
      case 'MULTIPOINT':
        return { type: 'MultiPoint', coordinates: this.list(() => (this.peekChar() === '(' ? this.wrapped(() => this.position()) : this.position())) };
      case 'LINESTRING':
        return { type: 'LineString', coordinates: this.list(() => this.position()) };
      case 'MULTILINESTRING':
        return { type: 'MultiLineString', coordinates: this.list(() => this.list(() => this.position())) };
      case 'POLYGON':
        return { type: 'Polygon', coordinates: this.rings() };
      case 'MULTIPOLYGON':
        return { type: 'MultiPolygon', coordinates: this.list(() => this.rings()) };
      case 'GEOMETRYCOLLECTION':
      case 'COLLECTION':
        if (depth >= GEOMETRY_LIMITS.maxDepth) throw this.error(`GEOMETRYCOLLECTION at position ${at} nests collections more than ${GEOMETRY_LIMITS.maxDepth} deep: list the members in one collection`, at);
        return { type: 'GeometryCollection', geometries: this.list(() => this.geometry(depth + 1)) };
      case 'BBOX':
      case 'ENVELOPE':
        if (this.opts.bbox) return this.box(word);
        break;
      default:
        break;
    }
    const list = [...WKT_TYPES, ...(this.opts.bbox ? ['BBOX'] : [])].join(', ');
    throw this.error(`Expected a geometry (${list}) at position ${at} of ${this.opts.parameter}, found ${word ? `'${word}'` : this.found()}`, at);
  }

  private rings(): Ring[] {
    return this.list(() => this.list(() => this.position()));
  }

  private box(word: string): Geometry {
    const numbers = this.list(() => this.number());
    if (numbers.length === 6) throw this.error(`${word} with elevations (six numbers) is not supported, as locations have no elevation: write ${word}(west, south, east, north)`, this.pos);
    if (numbers.length !== 4) throw this.error(`${word} needs four numbers, found ${numbers.length}: write ${word}(west, south, east, north)`, this.pos);
    return { type: 'BBox', bbox: numbers as [number, number, number, number] };
  }

  private position(): Position {
    this.space();
    const x = this.number();
    const y = this.number();
    this.space();
    if (NUMBER_START.test(this.peekChar())) throw this.error(`A third number at position ${this.pos} of ${this.opts.parameter}: positions have two numbers, longitude then latitude (no elevation)`, this.pos);
    return [x, y];
  }

  private number(): number {
    this.space();
    const at = this.pos;
    const text = this.match(NUMBER);
    if (text === undefined) throw this.error(`Expected a number at position ${at} of ${this.opts.parameter}, found ${this.found()}: write positions as longitude latitude, e.g. -114.07 51.05`, at);
    return Number(text);
  }

  /** `( item, item, … )`. */
  private list<T>(item: () => T): T[] {
    return this.wrapped(() => {
      const out: T[] = [item()];
      while (this.accept(',')) out.push(item());
      return out;
    });
  }

  private wrapped<T>(inner: () => T): T {
    this.expect('(');
    const value = inner();
    this.expect(')');
    return value;
  }

  private accept(ch: string): boolean {
    this.space();
    if (this.text[this.pos] !== ch) return false;
    this.pos++;
    return true;
  }

  private expect(ch: string): void {
    if (!this.accept(ch)) throw this.error(`Expected '${ch}' at position ${this.pos} of ${this.opts.parameter}, found ${this.found()}: e.g. POLYGON((-120 49, -110 49, -110 60, -120 49))`, this.pos);
  }

  private peekChar(): string {
    this.space();
    return this.text[this.pos] ?? '';
  }

  private peekWord(): string {
    WORD.lastIndex = this.pos;
    return WORD.exec(this.text)?.[0].toUpperCase() ?? '';
  }

  private space(): void {
    this.match(SPACE);
  }

  private match(re: RegExp): string | undefined {
    re.lastIndex = this.pos;
    const m = re.exec(this.text);
    if (m === null) return undefined;
    this.pos += m[0].length;
    return m[0];
  }

  private found(): string {
    const ch = this.text[this.pos];
    return ch === undefined ? 'the end of the text' : `'${this.text.slice(this.pos, this.pos + 12)}'`;
  }

  private error(message: string, offset: number): ODataError {
    return new ODataError('invalid_geometry', `${message}.`, { parameter: this.opts.parameter, offset });
  }
}

const NUMBER_START = /^[-+0-9.]$/;

function keywordOf(g: Geometry): string {
  return g.type === 'BBox' ? 'BBOX' : g.type.toUpperCase();
}

/**
 * WKT of a geometry (BBOX in CQL2's form), numbers as JavaScript prints them, so reading it back gives equal
 * coordinates.
 *
 * @example
 * formatWkt({ type: 'Polygon', coordinates: [[[0, 0], [1, 0], [1, 1], [0, 0]]] }) // → 'POLYGON((0 0,1 0,1 1,0 0))'
 */
export function formatWkt(g: Geometry): string {
  const pos = (p: Position) => `${p[0]} ${p[1]}`;
  const line = (ps: readonly Position[]) => `(${ps.map(pos).join(',')})`;
  const rings = (rs: readonly Ring[]) => `(${rs.map(line).join(',')})`;
  switch (g.type) {
    case 'Point':
      return `POINT(${pos(g.coordinates)})`;
    case 'MultiPoint':
      return `MULTIPOINT${line(g.coordinates)}`;
    case 'LineString':
      return `LINESTRING${line(g.coordinates)}`;
    case 'MultiLineString':
      return `MULTILINESTRING(${g.coordinates.map(line).join(',')})`;
    case 'Polygon':
      return `POLYGON${rings(g.coordinates)}`;
    case 'MultiPolygon':
      return `MULTIPOLYGON(${g.coordinates.map(rings).join(',')})`;
    case 'GeometryCollection':
      return `GEOMETRYCOLLECTION(${g.geometries.map(formatWkt).join(',')})`;
    case 'BBox':
      return `BBOX(${g.bbox.join(',')})`;
    default:
      throw new Error(`unhandled geometry ${JSON.stringify(g satisfies never)}`);
  }
}
