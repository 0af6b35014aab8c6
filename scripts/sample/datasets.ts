/**
 * The sample's monitoring programmes. Boxes sit well inside their province (so point-in-polygon against real
 * boundaries agrees) and, where `hub` is set, inside that polygon of hubs.geojson. Weights are shares of ROWS.
 */
export type ProgrammeKind = 'continuous' | 'field' | 'lab';

export interface DatasetSpec {
  readonly folder: string;
  readonly name: string;
  readonly kind: ProgrammeKind;
  readonly province: string;
  readonly hub: string | null;
  /** [south, west, north, east] in decimal degrees. */
  readonly box: readonly [number, number, number, number];
  readonly weight: number;
  readonly organization: string;
  /** Water bodies the location names are built from; their monitoring location types. */
  readonly waters: readonly (readonly [string, string])[];
  readonly idPrefix: string;
  readonly crs: 'NAD83' | 'WGS84';
  readonly gzip?: boolean;
  /** Column order differs from the upload schema order (real exports are not all alike). */
  readonly shuffledColumns?: boolean;
  /** Files written: locations are split evenly across them. */
  readonly files?: number;
  readonly licence: string;
  readonly timeZone: string | null;
}

const river = 'River/Stream';
const lake = 'Lake/Pond';

export const datasetSpecs: readonly DatasetSpec[] = [
  {
    folder: 'ab-bow-river-temperature', name: 'Bow River Continuous Temperature Network', kind: 'continuous', province: 'ab', hub: 'hub.lakewinnipeg',
    box: [50.85, -114.9, 51.25, -113.6], weight: 0.16, organization: 'Bow River Basin Council', idPrefix: 'BOW', crs: 'NAD83', files: 2,
    waters: [['Bow River', river], ['Elbow River', river], ['Jumpingpound Creek', river], ['Ghost Reservoir', 'Reservoir']], licence: 'ODC-By 1.0', timeZone: '-07:00',
  },
  {
    folder: 'mb-red-river-chemistry', name: 'Red River Basin Water Chemistry', kind: 'lab', province: 'mb', hub: 'hub.lakewinnipeg',
    box: [49.3, -97.8, 50.2, -96.7], weight: 0.07, organization: 'Red River Basin Commission', idPrefix: 'RRB', crs: 'NAD83',
    waters: [['Red River', river], ['Assiniboine River', river], ['Seine River', river], ['La Salle River', river], ['Rat River', river]], licence: 'CC BY 4.0', timeZone: '-06:00',
  },
  {
    folder: 'mb-lake-winnipeg-community', name: 'Lake Winnipeg Community-Based Monitoring', kind: 'field', province: 'mb', hub: 'hub.lakewinnipeg',
    box: [50.4, -97.4, 51.2, -96.5], weight: 0.07, organization: 'Lake Winnipeg Foundation', idPrefix: 'LWCBMN', crs: 'WGS84',
    waters: [['Lake Winnipeg', lake], ['Netley Creek', river], ['Brokenhead River', river], ['Icelandic River', river], ['Fisher River', river]], licence: 'ODC-By 1.0', timeZone: null,
  },
  {
    folder: 'bc-fraser-valley-streams', name: 'Fraser Valley Streamkeepers Monitoring', kind: 'field', province: 'bc', hub: 'hub.pacific',
    box: [49.08, -122.6, 49.35, -121.6], weight: 0.08, organization: 'Fraser Valley Watersheds Coalition', idPrefix: 'FVS', crs: 'WGS84',
    waters: [['Salmon River', river], ['Chilliwack River', river], ['Stave Lake', lake], ['Hope Slough', 'Wetland'], ['Kanaka Creek', river]], licence: 'CC BY 4.0', timeZone: '-08:00',
  },
  {
    folder: 'bc-okanagan-loggers', name: 'Okanagan Lakes Continuous Monitoring', kind: 'continuous', province: 'bc', hub: 'hub.pacific',
    box: [49.55, -119.75, 50.2, -119.35], weight: 0.12, organization: 'Okanagan Basin Water Board', idPrefix: 'OKL', crs: 'NAD83',
    waters: [['Okanagan Lake', lake], ['Kalamalka Lake', lake], ['Mission Creek', river], ['Skaha Lake', lake]], licence: 'ODC-By 1.0', timeZone: '-08:00',
  },
  {
    folder: 'on-great-lakes-tributaries', name: 'Great Lakes Tributaries Water Chemistry', kind: 'lab', province: 'on', hub: 'hub.greatlakes',
    box: [43.75, -80.6, 44.35, -79.45], weight: 0.07, organization: 'Lake Simcoe Region Conservation Authority', idPrefix: 'GLT', crs: 'NAD83', gzip: true,
    waters: [['Holland River', river], ['Nottawasaga River', river], ['Humber River', river], ['Credit River', river], ['Lake Simcoe', lake]], licence: 'CC BY 4.0', timeZone: '-05:00',
  },
  {
    folder: 'on-muskoka-loggers', name: 'Muskoka Lakes Continuous Monitoring', kind: 'continuous', province: 'on', hub: 'hub.greatlakes',
    box: [44.95, -79.6, 45.3, -79.05], weight: 0.12, organization: 'Muskoka Watershed Council', idPrefix: 'MUS', crs: 'NAD83',
    waters: [['Lake Muskoka', lake], ['Lake Rosseau', lake], ['Muskoka River', river], ['Lake Joseph', lake]], licence: 'ODC-By 1.0', timeZone: '-05:00',
  },
  {
    folder: 'qc-saint-charles', name: 'Suivi de la qualité de l’eau, rivière Saint-Charles et lacs de la région de Québec', kind: 'field', province: 'qc', hub: null,
    box: [46.8, -71.6, 47.3, -70.9], weight: 0.06, organization: 'Organisme des bassins versants de la Capitale', idPrefix: 'OBVC', crs: 'NAD83', shuffledColumns: true,
    waters: [['Rivière Saint-Charles', river], ['Lac Saint-Charles', lake], ['Rivière Montmorency', river], ['Lac Témiscouata', lake], ['Rivière Jacques-Cartier', river], ['Lac-Beauport', lake]],
    licence: 'CC BY 4.0', timeZone: '-05:00',
  },
  {
    folder: 'ns-lakes-survey', name: 'Nova Scotia Lakes Survey, Shubenacadie Watershed', kind: 'lab', province: 'ns', hub: 'hub.atlantic',
    box: [44.82, -63.9, 45.05, -63.4], weight: 0.04, organization: 'Shubenacadie Watershed Environmental Protection Society', idPrefix: 'SWEP', crs: 'NAD83',
    waters: [['Shubenacadie Grand Lake', lake], ['Lake Fletcher', lake], ['Shubenacadie River', river], ['Nine Mile River', river]], licence: 'CC BY 4.0', timeZone: '-04:00',
  },
  {
    folder: 'nt-mackenzie-community', name: 'Mackenzie River Basin Community-Based Monitoring', kind: 'field', province: 'nt', hub: 'hub.mackenzie',
    box: [60.9, -118.0, 61.6, -116.2], weight: 0.04, organization: 'Aboriginal Aquatic Resources and Oceans Management', idPrefix: 'NTCBM', crs: 'WGS84',
    waters: [['Hay River', river], ['Mackenzie River', river], ['Kakisa Lake', lake], ['Tathlina Lake', lake]], licence: 'ODC-By 1.0', timeZone: '-07:00',
  },
  {
    folder: 'ab-athabasca-lakes', name: 'Athabasca Lakes Field Program', kind: 'field', province: 'ab', hub: 'hub.mackenzie',
    box: [55.2, -114.4, 56.6, -112.2], weight: 0.05, organization: 'Athabasca Watershed Council', idPrefix: 'AWC', crs: 'NAD83',
    waters: [['Athabasca River', river], ['Calling Lake', lake], ['Lac La Biche', lake], ['Pembina River', river]], licence: 'ODC-By 1.0', timeZone: '-07:00',
  },
  {
    folder: 'sk-prairie-lakes', name: 'Saskatchewan Prairie Lakes Chemistry', kind: 'lab', province: 'sk', hub: 'hub.lakewinnipeg',
    box: [50.3, -106.8, 52.3, -103.3], weight: 0.04, organization: 'Saskatchewan Lake Stewards', idPrefix: 'SKL', crs: 'NAD83',
    waters: [['Last Mountain Lake', lake], ['Qu’Appelle River', river], ['Buffalo Pound Lake', 'Reservoir'], ['Wascana Creek', river]], licence: 'CC BY 4.0', timeZone: '-06:00',
  },
  {
    folder: 'nb-saint-john-temperature', name: 'Saint John River Continuous Temperature', kind: 'continuous', province: 'nb', hub: 'hub.atlantic',
    box: [45.95, -67.2, 46.5, -66.3], weight: 0.09, organization: 'Canadian Rivers Institute', idPrefix: 'SJR', crs: 'NAD83',
    waters: [['Saint John River', river], ['Nashwaak River', river], ['Keswick River', river]], licence: 'ODC-By 1.0', timeZone: '-04:00',
  },
];

/** Location-name suffixes; some carry commas, so names exercise CSV quoting. */
export const siteSuffixes: readonly string[] = [
  'upstream', 'downstream', 'at bridge', 'near mouth', 'outlet', 'inlet', 'north basin', 'south basin', ', below dam', ', at highway crossing',
];

/**
 * Occasional free-text comments, with commas, quotes and accents as real exports have; no line break, which
 * DataStream's rule WhiteSpace-ResultComment warns about (the ingest fixtures carry line breaks in fields).
 */
export const comments: readonly string[] = [
  'Ice cover, sampled at edge',
  'Probe "B" replaced after calibration check',
  'Heavy rain overnight; water turbid',
  'Échantillon prélevé près de la rive, eau trouble',
  'Low flow, "stagnant" pool',
  'Beaver dam upstream, flow reduced',
];

export const laboratories: readonly string[] = ['ALS Canada Ltd.', 'Bureau Veritas Laboratories', 'SGS AXYS Analytical Services', 'Saskatchewan Research Council'];
