// The game runtime's injection token: local processes or Kubernetes pods (servers.module.ts chooses).
export const RUNTIME = Symbol('RUNTIME');
