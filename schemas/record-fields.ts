import type { FieldDef } from './field.js';
import { activityFields } from './observation-fields.js';

/** The location columns of the upload schema, as Records serves them (denormalised into `observations`). */
export const monitoringLocationFields: readonly FieldDef[] = [
  { name: 'MonitoringLocationID', column: 'MonitoringLocationID', type: 'string', nullable: false, selectable: true, description: "The data provider's location identifier." },
  { name: 'MonitoringLocationName', column: 'MonitoringLocationName', type: 'string', nullable: false, selectable: true, description: 'Monitoring location name.' },
  { name: 'MonitoringLocationLatitude', column: 'MonitoringLocationLatitude', type: 'number', nullable: false, selectable: true, description: 'Latitude in decimal degrees.' },
  { name: 'MonitoringLocationLongitude', column: 'MonitoringLocationLongitude', type: 'number', nullable: false, selectable: true, description: 'Longitude in decimal degrees.' },
  { name: 'MonitoringLocationHorizontalCoordinateReferenceSystem', column: 'MonitoringLocationHorizontalCoordinateReferenceSystem', type: 'string', nullable: false, selectable: true, description: 'Datum of the coordinates.' },
  { name: 'MonitoringLocationHorizontalAccuracyMeasure', column: 'MonitoringLocationHorizontalAccuracyMeasure', type: 'number', nullable: true, selectable: true, description: 'Accuracy of the coordinates.' },
  { name: 'MonitoringLocationHorizontalAccuracyUnit', column: 'MonitoringLocationHorizontalAccuracyUnit', type: 'string', nullable: true, selectable: true, description: 'Unit of the accuracy.' },
  { name: 'MonitoringLocationVerticalMeasure', column: 'MonitoringLocationVerticalMeasure', type: 'number', nullable: true, selectable: true, description: 'Elevation of the location.' },
  { name: 'MonitoringLocationVerticalUnit', column: 'MonitoringLocationVerticalUnit', type: 'string', nullable: true, selectable: true, description: 'Unit of the elevation.' },
  { name: 'MonitoringLocationType', column: 'MonitoringLocationType', type: 'string', nullable: false, selectable: true, description: 'Kind of water body, e.g. River/Stream.' },
];

/** Records: the upload schema's columns with Id and DOI, "intended for streaming into a CSV file". */
export const recordFields: readonly FieldDef[] = [
  { name: 'Id', column: 'Id', type: 'integer', nullable: false, selectable: true, description: 'Observation identifier.' },
  { name: 'DOI', column: 'DOI', type: 'string', nullable: false, selectable: true, description: 'DOI of the dataset.' },
  { name: 'DatasetName', column: 'DatasetName', type: 'string', nullable: false, selectable: true, description: 'Name of the dataset.' },
  ...monitoringLocationFields,
  ...activityFields,
];

/** The upload columns `observations` stores: every Record column except Id and DOI (DOI comes from metadata.json). */
export const storedUploadColumns: readonly FieldDef[] = recordFields.filter((f) => f.name !== 'Id' && f.name !== 'DOI');
