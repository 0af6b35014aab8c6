import { createHash } from 'node:crypto';

/** RFC 4122 URL namespace; the name is the DOI's resolver URL, so the Id is reproducible anywhere. */
const URL_NAMESPACE = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';

/** UUID v5 of a name in a namespace (RFC 4122 §4.3). */
export function uuidV5(name: string, namespace = URL_NAMESPACE): string {
  const ns = Buffer.from(namespace.replaceAll('-', ''), 'hex');
  const hash = createHash('sha1').update(ns).update(name, 'utf8').digest();
  hash[6] = ((hash[6] as number) & 0x0f) | 0x50;
  hash[8] = ((hash[8] as number) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The dataset Id when metadata.json has none: stable for a DOI (DOIs are case-insensitive). */
export function datasetIdFromDoi(doi: string): string {
  return uuidV5(`https://doi.org/${doi.toLowerCase()}`);
}
