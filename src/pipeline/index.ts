export * from './pipeline.js';
export * from './dispatch.js';
export * from './session.js';
