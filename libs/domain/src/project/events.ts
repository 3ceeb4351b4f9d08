import { DomainEvent } from '../kit';
import { Plan, RateLimits } from '../catalog';
import { ProjectSettings } from './settings';

export type ProjectCreated = DomainEvent<'ProjectCreated', {
  projectId: string;
  name: string;
  plan: Plan;
  serverKeyHash: string;
  clientKeyHash: string;
  settings: ProjectSettings;
  at: string;
}>;
export type ProjectSettingsUpdated = DomainEvent<'ProjectSettingsUpdated', {
  projectId: string;
  settings: ProjectSettings;
  at: string;
}>;
export type ProjectKeysRotated = DomainEvent<'ProjectKeysRotated', {
  projectId: string;
  previousServerKeyHash: string;
  previousClientKeyHash: string;
  serverKeyHash: string;
  clientKeyHash: string;
  at: string;
}>;
export type ProjectPlanChanged = DomainEvent<'ProjectPlanChanged', {
  projectId: string;
  plan: Plan;
  rateLimits: RateLimits | null;
  at: string;
}>;

export type ProjectEvent = ProjectCreated | ProjectSettingsUpdated | ProjectKeysRotated | ProjectPlanChanged;
