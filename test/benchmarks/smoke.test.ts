// A few-seconds smoke run of the benchmark harness (benchmarks/run.ts) with tiny phases and one
// or two backends per scenario, so the suite cannot rot. It asserts only that every figure is a
// sane number; performance targets are never asserted here (they are timing-dependent).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runBench } from '../../benchmarks/run.ts';

/** Every number in `value` (recursively), with its path. */
function numbers(value: unknown, path = '$', out: [string, number][] = []): [string, number][] {
  if (typeof value === 'number') out.push([path, value]);
  else if (Array.isArray(value)) value.forEach((v, i) => numbers(v, `${path}[${i}]`, out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) numbers(v, `${path}.${k}`, out);
  return out;
}

test('the benchmark harness produces sane, non-empty figures', async () => {
  const result = await runBench({
    rounds: 1,
    saturationSeconds: 0.3,
    connections: 4,
    fixedRate: 40,
    fixedSeconds: 0.3,
    settleMs: 0,
    idleBackends: 1,
    churn: { healthy: 1, crashers: 1, flooders: 1, floodMBps: 2 },
    scaleBackends: 2,
    largeBackends: 3,
    scaleAfterSeconds: 0.3,
    statusRuns: 1,
    settledSeconds: 0.2,
    toolSerialSeconds: 0.1,
    toolConcurrentSeconds: 0.2,
    toolCallers: 2,
    toolWarmupCalls: 2,
    floodSeconds: 0.3,
    traffic: { backends: 1, clients: 2, textBytes: 256, warmupCalls: 2, warmupSeconds: 0.1 },
    sweep: { variants: [{ mcpWorkers: 2, workerNice: 19 }], fixedSeconds: 0.3, saturationSeconds: 0.3 },
    profile: { fixedSeconds: 0.3, saturationSeconds: 0.3 },
    overhead: { textBytes: 256, warmupCalls: 2, serialSeconds: 0.2, concurrentSeconds: 0.2, callers: 2, traceCalls: 5 },
    entry: 'source',
    log: () => {},
  });
  assert.is(result.rounds.length, 1);
  const round = result.rounds[0]!;

  const all = numbers(result.rounds);
  assert.ok(all.length > 100, `only ${all.length} figures`);
  const broken = all.filter(([, v]) => Number.isNaN(v) || !Number.isFinite(v));
  assert.equal(broken, [], 'no NaN or infinite figure');

  // The figures that must be positive whatever the machine does.
  const positive: [string, number][] = [
    ['bare saturation rps', round.bare.saturation.rps],
    ['idle /health saturation rps', round.idle.saturationHealth.rps],
    ['bare saturation rps, in turns with idle', round.idle.bareInTurns.rps],
    ['idle /health/live saturation rps', round.idle.saturationLive?.rps ?? 0],
    ['churn /health saturation rps', round.churn.saturationHealth.rps],
    ['scale /health saturation rps', round.scale.saturationHealth.rps],
    ['idle /health saturation p99', round.idle.saturationHealth.p99],
    ['idle fixed-rate /health p99', round.idle.fixed.health.p99],
    ['idle fixed-rate /health/live p50', round.idle.fixed.live.p50],
    ['bare fixed-rate p99', round.bare.fixed.health.p99],
    ['idle ready ms', round.idle.readyMs],
    ['scale ready ms', round.scale.readyMs],
    ['plain script ready ms', round.plain.readyMs],
    ["plain script ready ms, the service's handshake", round.plainService?.readyMs ?? Number.NaN],
    ['RSS with 0 backends', round.empty.rssMB],
    ['RSS idle', round.idle.rssMB],
    ['RSS scale', round.scale.rssMB],
    ['RSS empty, settled', round.empty.settledRssMB],
    ['RSS scale, settled', round.scale.rssSettledMB],
    ['RSS large, settled', round.large.rssSettledMB],
    ['idle event-loop samples', round.idle.fixed.eld.samples],
    ['/mcp tool calls per second', round.idle.toolCalls.mcpLegacy.concurrent.perSecond],
    ['/mcp tool call p50', round.idle.toolCalls.mcpLegacy.serial.p50],
    ['direct tool calls per second', round.direct.toolCalls.concurrent.perSecond],
    ['direct tool call p50', round.direct.toolCalls.serial.p50],
    ['flood captured MB/s', round.flood.captured.mbps],
    ['flood /dev/null MB/s', round.flood.devNull.mbps],
    ['flood RSS', round.flood.captured.rssEndMB],
    ['churn flooder MB/s', round.churn.flooders[0]?.mbps ?? 0],
    ['bare-churn saturation rps', round.bareChurn.saturation.rps],
    ['bare-churn fixed-rate p99', round.bareChurn.fixed.health.p99],
    ['traffic fixed-rate /health p99', round.traffic.fixed.health.p99],
    ['traffic /health saturation rps', round.traffic.saturation.rps],
    ['bare under traffic fixed-rate p99', round.traffic.bare?.fixed.health.p99 ?? Number.NaN],
    ['bare under traffic saturation rps', round.traffic.bare?.saturation.rps ?? Number.NaN],
    ['traffic MCP calls per second', round.traffic.fixed.calls.perSecond],
    ['traffic MCP call p50', round.traffic.fixed.calls.p50],
    ['traffic main-thread CPU', round.traffic.fixed.mainCpuPct],
    ['traffic hub CPU', round.traffic.saturation.hubCpuPct[0] ?? 0],
    ['traffic main-thread profile samples', round.profile?.busySamples ?? 0],
    ['overhead direct p50', round.overhead.direct.serial.p50],
    ['overhead service p50', round.overhead.service.serial.p50],
    ['overhead thin gateway p50', round.overhead.thin.serial.p50],
    ['overhead service traced p50', round.overhead.service.traced.totalP50Ms],
    ['sweep (2 hubs) MCP calls per second', round.sweep[0]?.fixed.calls.perSecond ?? 0],
    ['scale /health p99 during start-up', round.scale.startup.p99],
    ['scale /health p99 after start-up', round.scale.after.p99],
    ['scale agent mcp status ms', round.scale.status.p50],
    ['large ready ms', round.large.readyMs],
    ['large plain script ready ms', round.large.plain.readyMs],
    ['large RSS', round.large.rssMB],
    ['large /health p99 during start-up', round.large.startup.p99],
    ['large agent mcp status ms', round.large.status.p50],
  ];
  for (const [name, value] of positive) assert.ok(value > 0, `${name} = ${value}`);

  assert.is(round.idle.fixed.health.ok, round.idle.fixed.health.sent, 'every idle probe answered 2xx');
  assert.is(round.overhead.service.traced.complete, 5, 'every traced call seen at every hop');
  assert.is(round.overhead.direct.traced.complete, 5, 'every traced direct call seen at every hop');
  assert.is(round.sweep[0]!.saturation.hubCpuPct.length, 2, 'both hubs of --mcp-workers 2 measured');
  assert.equal(round.profile?.forbiddenFrames, [], 'no SDK, zod or JSON-RPC frame on the main thread');
  assert.is(round.large.backends, 3);
  assert.is(round.large.plain.count, 3, 'the plain script started as many backends as large');
  assert.is(round.large.plainService.count, 3, "the plain script with the service's handshake too");
  assert.ok(round.scale.startup.sent >= 1, 'the start-up was probed');
  assert.ok(round.large.limits.threads > 3 && round.large.limits.fds > 3 && round.large.limits.maps > 10, 'threads, fds and mappings read');
  assert.is(result.targets.length, 20);
  for (const t of result.targets) assert.ok(Number.isFinite(t.achieved), `${t.name}: ${t.achieved}`);
  assert.ok(result.table.includes('TARGET'), 'the table lists the targets');
  assert.equal(result.leftovers, [], 'no process left behind');
  for (const stop of result.stops) assert.equal(stop.leftovers, [], 'no backend outlived its service');
});

test.run();
