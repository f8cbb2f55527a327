/**
 * The health checks. Load balancers probe them over plain HTTP, by the instance's address, from
 * inside the network: the transport and host policies let them through.
 */
export const HEALTH_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz']);
