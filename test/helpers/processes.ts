// Process-tree facts from /proc (Linux), so a test can prove no backend survives. One
// implementation serves the tests and the benchmarks.
export { descendants, isAlive } from '../../benchmarks/lib/procs.ts';
