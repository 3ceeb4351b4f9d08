import { Plan, RateLimits } from '../catalog';
import { ProjectSettings } from './settings';

export type ProjectState =
  | { status: 'none' }
  | {
      status: 'active';
      projectId: string;
      name: string;
      plan: Plan;
      serverKeyHash: string;
      clientKeyHash: string;
      settings: ProjectSettings;
      rateLimits: RateLimits | null;
      createdAt: string;
      updatedAt: string;
    };
