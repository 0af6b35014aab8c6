export * from './field.js';
export * from './dimensions.js';
export * from './catalogue.js';
export * from './metadata-fields.js';
export * from './location-fields.js';
export * from './observation-fields.js';
export * from './record-fields.js';
export * from './storage.js';
