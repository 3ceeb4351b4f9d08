// The fixed catalogue of the interface: regions, compute sizes, plans.

export const REGIONS = [
  'us-east', 'us-south', 'us-west', 'eu-north', 'eu-west', 'eu-uk', 'ap-south', 'sea', 'ap-north',
  'ap-southeast', 'south-africa', 'south-america-brazil', 'south-america-chile',
] as const;
export type Region = (typeof REGIONS)[number];

export interface ComputeSize {
  name: string;
  vcpu: number;
  shared: boolean;
  /** CPU the Kubernetes runtime requests (cores). */
  cpuRequest: number;
  memoryMb: number;
}

export const COMPUTE_SIZES: readonly ComputeSize[] = [
  { name: 'micro', vcpu: 1, shared: true, cpuRequest: 0.25, memoryMb: 512 },
  { name: 'small', vcpu: 1, shared: true, cpuRequest: 0.5, memoryMb: 1024 },
  { name: 'medium', vcpu: 2, shared: true, cpuRequest: 1, memoryMb: 2048 },
  { name: 'large', vcpu: 2, shared: true, cpuRequest: 2, memoryMb: 4096 },
  { name: 'xlarge', vcpu: 4, shared: true, cpuRequest: 4, memoryMb: 8192 },
  { name: 'dedicated-small', vcpu: 1, shared: false, cpuRequest: 1, memoryMb: 2048 },
  { name: 'dedicated-medium', vcpu: 1, shared: false, cpuRequest: 1, memoryMb: 4096 },
  { name: 'dedicated-large', vcpu: 2, shared: false, cpuRequest: 2, memoryMb: 8192 },
  { name: 'dedicated-xlarge', vcpu: 2, shared: false, cpuRequest: 2, memoryMb: 16384 },
];
export const COMPUTE_SIZE_NAMES = COMPUTE_SIZES.map((s) => s.name);

export type Plan = 'free' | 'pro';
export const PLANS: readonly Plan[] = ['free', 'pro'];

export interface PlanLimits {
  maxActiveServers: number | null;
  /** free: every server's ttl is forced to this. */
  forcedTtl: number | null;
  maxTtl: number | null;
  computeSizes: readonly string[];
  pools: boolean;
}

export const PLAN_LIMITS: Record<Plan, PlanLimits> = {
  free: { maxActiveServers: 1, forcedTtl: 3600, maxTtl: 3600, computeSizes: ['small'], pools: false },
  pro: { maxActiveServers: null, forcedTtl: null, maxTtl: 86400, computeSizes: COMPUTE_SIZE_NAMES, pools: true },
};

export interface RateLimits {
  read_per_second: number;
  write_per_second: number;
  player_per_second: number;
}
export const DEFAULT_RATE_LIMITS: RateLimits = { read_per_second: 100, write_per_second: 10, player_per_second: 10 };
