// Preloaded by tests with `node --import`: holds the loading of a command's
// main module (cli/salsify) once the launcher has started, until the file
// $HOLD_RELEASE exists, having first created $HOLD_REACHED. A test can so
// signal a command at a known moment while it is still loading.
import { register } from 'node:module';

register('./hold-loading-hooks.mjs', import.meta.url, {
  data: { reached: process.env.HOLD_REACHED, release: process.env.HOLD_RELEASE },
});
