export * from './config.js';
export * from './plans.js';
