// What a call in flight is told when its backend goes down under it (the hubs fail it at once,
// never replayed): one wording per cause, so a client and an operator can tell them apart.

/** Why a backend is stopped: a shutdown or an operator (`stopped`), a changed entry (`replaced`), a removed or disabled one. */
export type StopCause = 'stopped' | 'replaced' | 'removed';

/** Why the calls in flight were lost: supervision's verdicts, the child's exit, a remote connection lost, or a stop. */
export type LossCause = 'restarting' | 'crashLoop' | 'exited' | 'lost' | StopCause;

export function lostCallsMessage(backend: string, cause: LossCause): string {
  const name = `backend '${backend}'`;
  switch (cause) {
    case 'restarting':
      return `${name} restarted; the request was not completed and is not replayed`;
    case 'crashLoop':
      return `${name} exited and is in crash loop; the request was not completed`;
    case 'exited':
      return `${name} exited; the request was not completed`;
    case 'lost':
      return `${name} lost its connection (a remote backend, reconnected with backoff); the request was not completed`;
    case 'replaced':
      return `${name} is restarting for a change to its configuration; the request was not completed and is not replayed`;
    case 'removed':
      return `${name} was removed or disabled in the configuration; the request was not completed`;
    case 'stopped':
      return `${name} was stopped; the request was not completed`;
    default: {
      const unknown: never = cause;
      throw new Error(`unknown cause ${String(unknown)}`);
    }
  }
}
