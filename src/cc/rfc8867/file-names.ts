// How a controller's name appears in the names of the files ccbench writes
// (report.ts), in a module of its own so the command line can check those
// names without loading the report's plotting.

/** A controller's name as part of a file name (a path's base name, nothing but [A-Za-z0-9._-]). */
export function safeName(name: string): string {
  return (name.split('/').pop() ?? name).replace(/[^A-Za-z0-9._-]/g, '_');
}
