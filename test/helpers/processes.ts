// Process-tree facts from /proc (Linux), so a test can prove no backend survives. One
// implementation serves the tests and the benchmarks.
export { descendants, isAlive, processesWith } from '../../benchmarks/lib/procs.ts';
