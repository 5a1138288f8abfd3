import type { Plugin } from 'esbuild';
export declare const lazySchemas: Plugin;
