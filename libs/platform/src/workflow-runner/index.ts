export * from './workflow-runner';
export { checkpointName as workflowCheckpointName } from './workflow-tables';
export * from './apply-once';
export * from './intent-routes';
