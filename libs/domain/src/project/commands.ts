import { Plan, RateLimits } from '../catalog';
import { ProjectSettings } from './settings';

export type ProjectCommand =
  | { type: 'CreateProject'; projectId: string; name: string; plan: Plan; serverKeyHash: string; clientKeyHash: string; settings: ProjectSettings; now: string }
  | { type: 'UpdateSettings'; patch: Partial<ProjectSettings>; now: string }
  | { type: 'RotateKeys'; serverKeyHash: string; clientKeyHash: string; now: string }
  | { type: 'ChangePlan'; plan?: Plan; rateLimits?: RateLimits | null; now: string };
