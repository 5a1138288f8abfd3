// A call's requestTimeout as a timer that can pause: while the backend waits for the client's
// answer to its own question (elicitation, sampling), the call's clock stops (issue 15); progress
// restarts it, as the SDK's resetTimeoutOnProgress did.
export class CallTimer {
  private timer: NodeJS.Timeout | null = null;
  private pauses = 0;

  constructor(
    /** null: the call has no time limit (the clock never runs). */
    private readonly ms: number | null,
    private readonly onExpire: () => void,
  ) {
    this.arm();
  }

  private arm(): void {
    this.clear();
    if (this.pauses === 0 && this.ms !== null) this.timer = setTimeout(this.onExpire, this.ms);
  }

  /** The call showed life (progress): its full time again. */
  restart(): void {
    if (this.pauses === 0) this.arm();
  }

  /** Stops the clock until every pause has been resumed. */
  pause(): void {
    this.pauses++;
    this.clear();
  }

  /** A paused clock starts again with the full time. */
  resume(): void {
    if (this.pauses === 0) return;
    if (--this.pauses === 0) this.arm();
  }

  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
