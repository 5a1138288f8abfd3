export const HEALTH_LEVELS = ['full', 'basic', 'minimal'] as const;
export type HealthLevel = (typeof HEALTH_LEVELS)[number];
export const DEFAULT_HEALTH_LEVEL: HealthLevel = 'minimal';

export function isHealthLevel(value: unknown): value is HealthLevel {
  return typeof value === 'string' && (HEALTH_LEVELS as readonly string[]).includes(value);
}
