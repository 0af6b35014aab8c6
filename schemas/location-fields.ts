import type { FieldDef } from './field.js';

/**
 * Locations: one row per (DOI, MonitoringLocationID). `ID` is the provider's MonitoringLocationID; it gets its
 * own column name because DuckDB identifiers are case-insensitive and `Id` is taken.
 */
export const locationFields: readonly FieldDef[] = [
  { name: 'Id', column: 'Id', type: 'integer', nullable: false, selectable: true, description: 'Location identifier (integer); observations refer to it as LocationId.' },
  { name: 'DOI', column: 'DOI', type: 'string', nullable: false, selectable: true, description: 'DOI of the dataset the location belongs to.' },
  { name: 'ID', column: 'MonitoringLocationID', type: 'string', nullable: false, selectable: true, description: "The data provider's MonitoringLocationID." },
  { name: 'Name', column: 'Name', type: 'string', nullable: false, selectable: true, description: 'Monitoring location name.' },
  { name: 'Latitude', column: 'Latitude', type: 'number', nullable: false, selectable: true, description: 'Latitude in decimal degrees.' },
  { name: 'Longitude', column: 'Longitude', type: 'number', nullable: false, selectable: true, description: 'Longitude in decimal degrees.' },
  { name: 'HorizontalCoordinateReferenceSystem', column: 'HorizontalCoordinateReferenceSystem', type: 'string', nullable: false, selectable: true, description: 'Datum of the coordinates, e.g. NAD83, WGS84.' },
  { name: 'HorizontalAccuracyMeasure', column: 'HorizontalAccuracyMeasure', type: 'number', nullable: true, selectable: true, description: 'Accuracy of the coordinates.' },
  { name: 'HorizontalAccuracyUnit', column: 'HorizontalAccuracyUnit', type: 'string', nullable: true, selectable: true, description: 'Unit of HorizontalAccuracyMeasure.' },
  { name: 'VerticalMeasure', column: 'VerticalMeasure', type: 'number', nullable: true, selectable: true, description: 'Elevation of the location.' },
  { name: 'VerticalUnit', column: 'VerticalUnit', type: 'string', nullable: true, selectable: true, description: 'Unit of VerticalMeasure.' },
  { name: 'MonitoringLocationType', column: 'MonitoringLocationType', type: 'string', nullable: false, selectable: true, description: 'Kind of water body, e.g. River/Stream, Lake.' },
];
