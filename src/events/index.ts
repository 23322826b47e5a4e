export * from './names.js';
export * from './codecs.js';
export * from './decode.js';
export * from './input.js';
