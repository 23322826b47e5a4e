export * from '../registry/dialect.js';
export * from './tools.js';
export * from './events.js';
export * from './answer.js';
export * from './env.js';
export * from './import.js';
