import type { FieldDef } from './field.js';

/**
 * Metadata: one row per dataset. Column names equal field names (table `datasets`). The free-text fields are
 * `emptyWhenAbsent`, as DataStream's contract has them; DataSourceURL is null when not given (its sample response),
 * and so are Version, the timestamps and the lists, which a DataStream dataset always has and ours may not
 * (services/api/metadata-contract.test.ts checks every field).
 */
export const metadataFields: readonly FieldDef[] = [
  { name: 'Id', column: 'Id', type: 'uuid', nullable: false, selectable: true, description: 'Dataset identifier (UUID); stable across re-ingests of the same DOI.' },
  { name: 'DOI', column: 'DOI', type: 'string', nullable: false, selectable: true, description: 'Digital Object Identifier of the dataset, e.g. 10.25976/abcd-ef12. Cite it as https://doi.org/<DOI>.' },
  { name: 'Version', column: 'Version', type: 'string', nullable: true, selectable: true, description: 'Dataset version, e.g. 1.0.0.' },
  { name: 'DatasetName', column: 'DatasetName', type: 'string', nullable: false, selectable: true, description: 'Name of the dataset.' },
  { name: 'DataStewardEmail', column: 'DataStewardEmail', type: 'string', nullable: true, emptyWhenAbsent: true, selectable: true, description: 'Contact of the data steward.' },
  { name: 'DataCollectionOrganization', column: 'DataCollectionOrganization', type: 'string', nullable: true, emptyWhenAbsent: true, selectable: true, description: 'Organization that collected the data.' },
  { name: 'DataUploadOrganization', column: 'DataUploadOrganization', type: 'string', nullable: true, emptyWhenAbsent: true, selectable: true, description: 'Organization that uploaded the data.' },
  { name: 'ProgressCode', column: 'ProgressCode', type: 'string', nullable: true, emptyWhenAbsent: true, selectable: true, description: 'ISO 19115 progress code, e.g. onGoing, completed.' },
  { name: 'MaintenanceFrequencyCode', column: 'MaintenanceFrequencyCode', type: 'string', nullable: true, emptyWhenAbsent: true, selectable: true, description: 'ISO 19115 maintenance frequency, e.g. annually.' },
  { name: 'Abstract', column: 'Abstract', type: 'string', nullable: true, emptyWhenAbsent: true, selectable: true, description: 'Summary of the dataset.' },
  { name: 'DataCollectionInformation', column: 'DataCollectionInformation', type: 'string', nullable: true, emptyWhenAbsent: true, selectable: true, description: 'How the data was collected.' },
  { name: 'DataProcessing', column: 'DataProcessing', type: 'string', nullable: true, emptyWhenAbsent: true, selectable: true, description: 'How the data was processed.' },
  { name: 'FundingSources', column: 'FundingSources', type: 'string', nullable: true, emptyWhenAbsent: true, selectable: true, description: 'Who funded the monitoring.' },
  { name: 'DataSourceURL', column: 'DataSourceURL', type: 'string', nullable: true, selectable: true, description: 'Where the data originally lives.' },
  { name: 'OtherDataSources', column: 'OtherDataSources', type: 'string', nullable: true, emptyWhenAbsent: true, selectable: true, description: 'Related data sources.' },
  { name: 'Citation', column: 'Citation', type: 'string', nullable: true, emptyWhenAbsent: true, selectable: true, description: 'How to cite the dataset (with its DOI link).' },
  { name: 'Licence', column: 'Licence', type: 'string', nullable: true, emptyWhenAbsent: true, selectable: true, description: 'Licence the data is published under.' },
  { name: 'Disclaimer', column: 'Disclaimer', type: 'string', nullable: true, emptyWhenAbsent: true, selectable: true, description: 'Disclaimer of the data provider.' },
  { name: 'TopicCategoryCode', column: 'TopicCategoryCode', type: 'string[]', nullable: true, selectable: true, description: 'ISO 19115 topic categories.' },
  { name: 'Keywords', column: 'Keywords', type: 'string[]', nullable: true, selectable: true, description: 'Free keywords.' },
  { name: 'CreateTimestamp', column: 'CreateTimestamp', type: 'timestamp', nullable: true, selectable: true, description: 'When the dataset was created (UTC).' },
  { name: 'PublishedTimestamp', column: 'PublishedTimestamp', type: 'timestamp', nullable: true, selectable: true, description: 'When the dataset was published (UTC).' },
  { name: 'ValidationLevel', column: 'ValidationLevel', type: 'string', nullable: false, selectable: true, onRequest: true, description: "The rules the dataset's rows passed at ingest: upstream (DataStream schema 3.0.0's upload rules, the default) or storable (only what the API needs to store and serve a row; upstream's other failures counted as warnings). Returned when $select names it." },
  { name: 'TemporalExtent', column: 'TemporalExtent', type: 'date[]', nullable: true, selectable: true, description: 'First and last ActivityStartDate of the dataset, [first, last].' },
];
