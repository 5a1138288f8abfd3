// Lowers the calling worker thread's priority before it loads its code, for the entries in this
// folder that run before any bundle (script-loader.cjs, module-loader.mjs, the tsx bootstraps).
// As lib/shared/priority.ts does, in plain JavaScript: Linux only, never raised; where it fails,
// the bundle's own call tries again and says why.
'use strict';
const fs = require('node:fs');
const os = require('node:os');

exports.lowerPriority = function lowerPriority(nice) {
  if (!(nice > 0) || process.platform !== 'linux') return;
  try {
    const link = fs.readlinkSync('/proc/thread-self');
    const tid = Number(link.slice(link.lastIndexOf('/') + 1));
    if (os.getPriority(tid) < nice) os.setPriority(tid, nice);
  } catch {
    /* the bundle tries again and reports why */
  }
};
