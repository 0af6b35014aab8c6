import { servedField as field, type FieldDef } from './field.js';

/**
 * Guidelines (issue 45): DataStream's guideline summary (`bin/guidelines.csv` of gordonfn/guidelines, MIT), one row
 * per published guideline, with its expression as published and, where the summary's expression was wrong, the
 * reviewed correction that replaced it. Table `guidelines`, loaded into every publication.
 */
export const guidelineFields: readonly FieldDef[] = [
  field('Id', 'integer', false, 'Guideline identifier, stable for a given version of the summary.'),
  field('CharacteristicName', 'string', false, 'DataStream CharacteristicName the guideline applies to (where the summary keys it by another, Correction says why).'),
  field('Parameter', 'string', false, "The publisher's own name for what the guideline bounds, as the summary gives it (e.g. Ammonia (un-ionized))."),
  field('ResultSampleFraction', 'string', true, 'Sample fraction it applies to (Total, Dissolved, …); blank applies to any.'),
  field('MethodSpeciation', 'string', true, 'Speciation it applies to (as N, as NH3, …); blank applies to any.'),
  field('Publisher', 'string', false, 'Who publishes the guideline: CCME, a province, ECCC, US EPA, ….'),
  field('Jurisdictions', 'string[]', false, 'Where it applies: CA (Canada as a whole) or CA-XX (ISO 3166-2 province), US.'),
  field('MediaName', 'string', false, 'Medium: Water, Sediment, Pore Water.'),
  field('Ecosystem', 'string', true, 'Freshwater or Marine.'),
  field('ProtectionLevel', 'string', false, 'Acute (short-term), Chronic (long-term), a sediment level, or a life stage.'),
  field('Status', 'string', true, 'Status as published (e.g. Final, Interim).'),
  field('Bound', 'string', false, 'maximum (an upper bound), minimum (a lower bound, e.g. dissolved oxygen) or range (e.g. pH).'),
  field('Expression', 'string', false, 'The value or formula as the summary publishes it.'),
  field('Unit', 'string', true, "The guideline's unit as published (DataStream's unit name)."),
  field('Inputs', 'string[]', false, 'Inputs the formula reads: hardness, pH, temperature, DOC; empty for a constant.'),
  field('Source', 'string', true, "URL of the publisher's document."),
  field('Correction', 'string', true, 'When the served row differs from the summary (its formula, or the characteristic it is keyed by): what was wrong and the source of the correction.'),
];
