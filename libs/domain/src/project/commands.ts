import { Plan, RateLimits } from '../catalog';
import { ProjectSettings } from './settings';

export type ProjectCommand =
  | { type: 'CreateProject'; projectId: string; name: string; plan: Plan; serverKeyHash: string; clientKeyHash: string; settings: ProjectSettings; now: string }
  /** `newIds`: ids for lobby configs that have none given or stored (one per config given is enough). */
  | { type: 'UpdateSettings'; patch: Partial<ProjectSettings>; newIds?: string[]; now: string }
  | { type: 'RotateKeys'; serverKeyHash: string; clientKeyHash: string; now: string }
  | { type: 'ChangePlan'; plan?: Plan; rateLimits?: RateLimits | null; now: string };
