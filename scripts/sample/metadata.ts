import type { DatasetMetadata } from '../../schemas/metadata-schema.js';
import type { DatasetSpec } from './datasets.js';
import type { Random } from './prng.js';

const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const DIGITS = '0123456789';

/** A DOI of DataStream's shape (10.25976/xxxx-xxnn), drawn from the dataset's random stream. */
export function sampleDoi(random: Random): string {
  const chars = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[random.int(alphabet.length)]).join('');
  return `10.25976/${chars(ALNUM, 4)}-${chars(ALNUM, 2)}${chars(DIGITS, 2)}`;
}

/** A random (version 4 layout) UUID from the seeded stream, so it is reproducible. */
export function sampleUuid(random: Random): string {
  const hex = Array.from({ length: 32 }, () => random.int(16).toString(16));
  hex[12] = '4';
  hex[16] = (8 + random.int(4)).toString(16);
  const h = hex.join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const kindText = {
  continuous: 'Continuous loggers record water temperature (and at some stations dissolved oxygen and conductance) every 15 minutes during the open-water season.',
  field: 'Trained volunteers measure temperature, pH, dissolved oxygen and specific conductance with calibrated multiparameter meters every two to three weeks from May to October.',
  lab: 'Grab samples are collected monthly and analysed by an accredited laboratory for nutrients, major ions, bacteria and metals; results below detection are reported with their detection limits.',
} as const;

/** metadata.json of one dataset: every Metadata field a provider fills in, TemporalExtent excepted. */
export function buildMetadata(spec: DatasetSpec, doi: string, random: Random, withId: boolean): DatasetMetadata {
  const created = Date.UTC(2016 + random.int(7), random.int(12), 1 + random.int(28), 8 + random.int(10), random.int(60));
  const published = created + (1 + random.int(60)) * 86_400_000;
  const year = new Date(published).getUTCFullYear();
  const domain = spec.organization.toLowerCase().replace(/[^a-z]+/g, '').slice(0, 16);
  return {
    ...(withId ? { Id: sampleUuid(random) } : {}),
    DOI: doi,
    Version: `1.${random.int(4)}.0`,
    DatasetName: spec.name,
    DataStewardEmail: `data@${domain}.example.org`,
    DataCollectionOrganization: spec.organization,
    DataUploadOrganization: spec.organization,
    ProgressCode: 'onGoing',
    MaintenanceFrequencyCode: 'annually',
    Abstract: `${spec.name}: synthetic sample data generated for Tributary development and benchmarks. ${kindText[spec.kind]}`,
    DataCollectionInformation: kindText[spec.kind],
    DataProcessing: 'Values were reviewed by the data steward; flagged readings were removed before upload.',
    FundingSources: 'Synthetic sample: no funding.',
    DataSourceURL: `https://${domain}.example.org/data`,
    OtherDataSources: null,
    Citation: `${spec.organization}. ${year}. ${spec.name} (sample). DataStream. https://doi.org/${doi}`,
    Licence: spec.licence,
    Disclaimer: 'Synthetic data for software testing; not real measurements.',
    TopicCategoryCode: ['inlandWaters'],
    Keywords: ['water quality', spec.kind === 'continuous' ? 'continuous monitoring' : spec.kind === 'lab' ? 'water chemistry' : 'community-based monitoring', spec.province.toUpperCase()],
    CreateTimestamp: new Date(created).toISOString(),
    PublishedTimestamp: new Date(published).toISOString(),
  };
}
