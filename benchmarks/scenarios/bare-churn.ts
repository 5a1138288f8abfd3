// `bare-churn` (issue 13): bare-churn.mjs, the bare node:http server that also spawns and restarts
// the churn mix itself, probed like every scenario: the physical limit under churn on this machine,
// the yardstick of `churn`.
import type { ScenarioContext } from '../lib/context.ts';
import { saturate } from '../lib/load.ts';
import { type FixedPhase, fixedBoth, phase, type SaturationPhase } from '../lib/phases.ts';
import { type BareChurnConfig, type StopReport, startBare } from '../lib/service.ts';
import { sleep } from '../lib/stats.ts';

export type BareChurn = {
  bodyBytes: number;
  rssMB: number;
  churn: BareChurnConfig;
  saturation: SaturationPhase;
  fixed: FixedPhase;
  /** Crasher restarts per second during the load phases. */
  restartsPerSecond: number;
  /** What the flooders wrote that it read, MB/s over the load phases (all flooders together). */
  stderrMBps: number;
};

export async function bareChurn(
  ctx: ScenarioContext,
  body: string,
  churn: BareChurnConfig,
  /** `warmMs`: how long the mix runs before the phases (as long as `churn`'s took to be ready and settle). */
  seconds: { saturation: number; fixed: number; warmMs: number },
  stops: StopReport[],
): Promise<BareChurn> {
  const bare = await startBare(body, { marker: ctx.marker, tmp: ctx.tmp, churn });
  try {
    // As in `churn`, the crashers' backoff has grown and the flooders flood before the phases.
    await sleep(seconds.warmMs);
    const s0 = await bare.churnStats();
    const saturation = await phase(bare, () => saturate(`${bare.base}/`, seconds.saturation, ctx.connections));
    const fixed = await phase(bare, () => fixedBoth(`${bare.base}/`, `${bare.base}/`, ctx.fixedRate, seconds.fixed));
    const s1 = await bare.churnStats();
    return {
      bodyBytes: Buffer.byteLength(body),
      rssMB: bare.rss(),
      churn,
      saturation,
      fixed,
      restartsPerSecond: (s1.restarts - s0.restarts) / ((s1.elapsedMs - s0.elapsedMs) / 1000),
      stderrMBps: (s1.stderrBytes - s0.stderrBytes) / 1e3 / (s1.elapsedMs - s0.elapsedMs),
    };
  } finally {
    stops.push(await bare.stop());
  }
}
