import type { Plugin } from 'esbuild';
export declare const sdkShims: Plugin;
