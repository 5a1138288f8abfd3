// The health routes' paths, as the main thread's router matches them (case-insensitive, a
// trailing slash allowed): another method on one is 405, not a route of the hub. Pure.
export const HEALTH_PATH = /^\/health(?:\/live|\/ready|\/mcp(?:\/[^/]+)?)?\/?$/i;

/** The answer's words for a method a health route or a REST view does not take. */
export function notAllowedMessage(method: string, path: string): string {
  return `Method ${method} is not allowed on ${path}; use GET or HEAD`;
}
