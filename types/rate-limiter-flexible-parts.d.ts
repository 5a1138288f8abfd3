// The two parts of rate-limiter-flexible the service uses (the health quota, the stderr limits),
// imported alone: its package entry loads every store (Redis, Mongo, Postgres, cluster ...) for
// nothing.
declare module 'rate-limiter-flexible/lib/RateLimiterMemory.js' {
  import { RateLimiterMemory } from 'rate-limiter-flexible';
  export default RateLimiterMemory;
}
declare module 'rate-limiter-flexible/lib/RateLimiterRes.js' {
  import { RateLimiterRes } from 'rate-limiter-flexible';
  export default RateLimiterRes;
}
