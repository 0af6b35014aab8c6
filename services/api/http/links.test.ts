/** The cite-as link: which filters pin one DOI, the order of links in the `Link` header, the citation's URLs. */
import { describe, expect, it } from 'vitest';
import { parseQuery } from '../odata/index.js';
import { citationUrl, doiUrl, linkHeader, pinnedDoi, pinnedQueryUrl } from './links.js';

/** datastreamjs's transport (@datastream/fetch 0.0.x, parseLinkFromHeader): a lazy match from the first `<`. */
const DATASTREAMJS_NEXT = /<(.*?)>; rel="next"/;

const q = (filter: string, extra = '') => parseQuery(`$filter=${encodeURIComponent(filter)}${extra}`);

describe('pinnedDoi', () => {
  it.each([
    ["DOI eq '10.25976/abcd-ef12'", '10.25976/abcd-ef12'],
    ["CharacteristicName eq 'pH' and DOI eq '10.1/x'", '10.1/x'],
    ["(DOI eq '10.1/x' and LocationId eq 3) and ActivityStartYear ge 2020", '10.1/x'],
    ["DOI eq '10.1/x' and DOI eq '10.1/x'", '10.1/x'],
    ["'10.1/x' eq DOI", '10.1/x'],
  ])('%s pins %s', (filter, doi) => {
    expect(pinnedDoi(q(filter))).toBe(doi);
  });

  it.each([
    "DOI eq '10.1/x' or DOI eq '10.1/y'",
    "DOI ne '10.1/x'",
    "not (DOI eq '10.1/x')",
    "DOI in ('10.1/x')",
    "DOI eq '10.1/x' and DOI eq '10.1/y'",
    "startswith(DOI, '10.1/x')",
    "CharacteristicName eq 'pH'",
  ])('%s pins none', (filter) => {
    expect(pinnedDoi(q(filter))).toBeUndefined();
  });

  it('reads the $apply filter too', () => {
    const query = parseQuery(`$apply=${encodeURIComponent("filter(DOI eq '10.1/x')/groupby((CharacteristicName),aggregate($count as Count))")}`);
    expect(pinnedDoi(query)).toBe('10.1/x');
  });
});

describe('Link header', () => {
  const next = 'https://api.example.org/v1/odata/v4/Observations?$top=10&$skiptoken=Id%3A42';

  it('puts rel="next" first, so the lazy pattern of datastreamjs reads the next page', () => {
    const header = linkHeader(next, q("DOI eq '10.25976/abcd-ef12'"))!;
    expect(header).toBe(`<${next}>; rel="next", <https://doi.org/10.25976/abcd-ef12>; rel="cite-as"`);
    expect(DATASTREAMJS_NEXT.exec(header)?.[1]).toBe(next);
  });

  it('regression: with cite-as first, the lazy pattern would read a wrong URL', () => {
    const reversed = `<https://doi.org/10.25976/abcd-ef12>; rel="cite-as", <${next}>; rel="next"`;
    expect(DATASTREAMJS_NEXT.exec(reversed)?.[1]).not.toBe(next);
  });

  it('carries cite-as alone on the last page, and nothing when no DOI is pinned', () => {
    expect(linkHeader(undefined, q("DOI eq '10.1/x'"))).toBe('<https://doi.org/10.1/x>; rel="cite-as"');
    expect(DATASTREAMJS_NEXT.exec(linkHeader(undefined, q("DOI eq '10.1/x'"))!)).toBeNull();
    expect(linkHeader(next, q("CharacteristicName eq 'pH'"))).toBe(`<${next}>; rel="next"`);
    expect(linkHeader(undefined, parseQuery(''))).toBeUndefined();
  });

  it('percent-encodes what cannot appear in the link target, keeping the DOI slash', () => {
    expect(doiUrl('10.1000/a>b; rel="next", <c')).toBe('https://doi.org/10.1000/a%3Eb%3B%20rel%3D%22next%22%2C%20%3Cc');
    expect(doiUrl('10.1002/(SICI)1097')).toBe('https://doi.org/10.1002/%28SICI%291097');
  });
});

describe('signposting: describedby and license after next and cite-as', () => {
  const next = 'https://api.example.org/v1/odata/v4/Records?$top=10&$skiptoken=Id%3A42';
  const described = 'https://api.example.org/v1/citation/Records?$filter=DOI%20eq%20%2710.1%2Fx%27&publication=p1';
  const license = 'https://creativecommons.org/licenses/by/4.0/';

  it('keeps rel="next" first, whatever else the header carries', () => {
    const header = linkHeader(next, q("DOI eq '10.1/x'"), { describedBy: described, license })!;
    expect(header).toBe(
      `<${next}>; rel="next", <https://doi.org/10.1/x>; rel="cite-as", <${described}>; rel="describedby"; type="application/vnd.citationstyles.csl+json", <${license}>; rel="license"`,
    );
    expect(DATASTREAMJS_NEXT.exec(header)?.[1]).toBe(next);
  });

  it('on the last page, no link is read as a next one', () => {
    const header = linkHeader(undefined, q("CharacteristicName eq 'pH'"), { describedBy: described })!;
    expect(header).toBe(`<${described}>; rel="describedby"; type="application/vnd.citationstyles.csl+json"`);
    expect(DATASTREAMJS_NEXT.exec(header)).toBeNull();
  });

  it('the citation and the pinned query carry the same $filter and the publication', () => {
    const filter = q("CharacteristicName eq 'pH' and DOI eq 'a/b'").filter;
    expect(citationUrl('https://h', 'Records', filter, 'p1')).toBe("https://h/v1/citation/Records?$filter=CharacteristicName%20eq%20%27pH%27%20and%20DOI%20eq%20%27a%2Fb%27&publication=p1");
    expect(pinnedQueryUrl('https://h', 'Records', filter, 'p1')).toBe("https://h/v1/odata/v4/Records?$filter=CharacteristicName%20eq%20%27pH%27%20and%20DOI%20eq%20%27a%2Fb%27&publication=p1");
    expect(citationUrl('https://h', 'Locations', undefined, undefined)).toBe('https://h/v1/citation/Locations');
  });
});
