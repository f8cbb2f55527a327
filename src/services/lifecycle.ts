/** Whether the process has begun to stop (Node: after `SIGTERM`); `/readyz` answers 503 from then on (docs/reference/operations.md). */
export interface Lifecycle {
  readonly stopping: boolean;
}

/** A lifecycle the entry switches to stopping when its stop signal arrives. */
export function stoppableLifecycle(): Lifecycle & { stop(): void } {
  let stopping = false;
  return {
    get stopping() {
      return stopping;
    },
    stop() {
      stopping = true;
    },
  };
}
