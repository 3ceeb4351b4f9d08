// JSON logs for every process (issue 15; docs/operations.md "Logs"): the root logger and its settings,
// a logger per component, the active span's trace ids on every line, and a readable format for terminals.
export * from './logger';
export * from './settings';
export * from './trace-fields';
export * from './pretty';
export * from './stdout-writer';
