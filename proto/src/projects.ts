import type { Plan, ProjectSettings, RateLimits } from './shared';

export interface CreateProjectRequest { name: string; plan: Plan; serverKey?: string; clientKey?: string; projectId?: string }
export interface CreatedProject { project_id: string; name: string; plan: Plan; server_key: string; client_key: string }
export interface RotateKeysRequest { projectId: string; serverKey?: string; clientKey?: string }
export interface ChangePlanRequest { projectId: string; plan?: Plan; rate_limits?: RateLimits | null }
export interface ProjectAdminView { project_id: string; name: string; plan: Plan; rate_limits: RateLimits; created_at: string; updated_at: string }

export interface AuthenticateRequest { keyHash: string }
/** Who an api-key is: null when unknown. */
export interface Principal {
  projectId: string;
  kind: 'server' | 'client';
  plan: Plan;
  rateLimits: RateLimits;
  clientKeyServerControl: boolean;
}

export interface GetProjectRequest { projectId: string }
export interface ProjectView { projectId: string; name: string; plan: Plan; settings: ProjectSettings; rateLimits: RateLimits }

export type SettingsView = ProjectSettings & { updated_at: string };

/** What settings answers show in place of an auth_config secret (write-only). */
export const REDACTED_SECRET = '********';
export interface UpdateSettingsRequest { projectId: string; patch: Partial<ProjectSettings> }

/** projects.authConfig answers the stored auth_config, secrets included: never send it to a client. */
export type ProjectAuthConfig = ProjectSettings['auth_config'];
