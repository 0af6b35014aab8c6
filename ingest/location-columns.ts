import { locationFields, storedUploadColumns as uploadColumns, type FieldDef } from '../schemas/index.js';

/**
 * Each column of `locations` with the upload column it comes from. The upload schema prefixes location
 * attributes with `MonitoringLocation` (Name ← MonitoringLocationName); ID and Type keep their full name.
 */
export const locationSources: readonly { readonly column: string; readonly source: FieldDef }[] = locationFields
  .filter((f) => f.column !== 'Id' && f.column !== 'DOI')
  .map((f) => {
    const source = uploadColumns.find((u) => u.name === f.column) ?? uploadColumns.find((u) => u.name === `MonitoringLocation${f.column}`);
    if (!source) throw new Error(`locations.${f.column} has no upload column`);
    return { column: f.column, source };
  });

/** Attributes whose disagreement within a dataset is reported as a conflict. */
export const conflictColumns = ['MonitoringLocationName', 'MonitoringLocationLatitude', 'MonitoringLocationLongitude'] as const;
