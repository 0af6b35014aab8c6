/**
 * Test support: a document's triples as rdflib reads them (testing/rdf-triples.py), a real JSON-LD processor and
 * Turtle parser with the network closed, and lookups over them.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface Triple {
  readonly s: string;
  readonly p: string;
  readonly o: string;
  readonly kind: 'iri' | 'blank' | 'literal';
  readonly datatype?: string;
}

const SCRIPT = join(import.meta.dirname, 'rdf-triples.py');

export function parseRdf(text: string, format: 'json-ld' | 'turtle'): Promise<Triple[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', [SCRIPT, format], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`rdflib could not read the ${format} (exit ${code}): ${err.slice(-2000)}`));
      else resolve(out.split('\n').filter(Boolean).map((l) => JSON.parse(l) as Triple));
    });
    child.stdin.end(text);
  });
}

export const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';

/** A small graph view: objects of (s, p), subjects of (p, o). */
export function graph(triples: readonly Triple[]) {
  return {
    triples,
    objects: (s: string, p: string) => triples.filter((t) => t.s === s && t.p === p),
    subjects: (p: string, o: string) => triples.filter((t) => t.p === p && t.o === o).map((t) => t.s),
    typed: (type: string) => triples.filter((t) => t.p === RDF_TYPE && t.o === type).map((t) => t.s),
    one: (s: string, p: string) => {
      const found = triples.filter((t) => t.s === s && t.p === p);
      if (found.length !== 1) throw new Error(`expected one ${p} of ${s}, found ${found.length}`);
      return found[0]!;
    },
  };
}

/** The one JSON-LD block of an HTML page, as its text (what a harvester reads). */
export function jsonLdBlock(html: string): string {
  const blocks = [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)];
  if (blocks.length !== 1) throw new Error(`expected one JSON-LD block, found ${blocks.length}`);
  return blocks[0]![1]!;
}

export const SCHEMA = (term: string) => `https://schema.org/${term}`;
