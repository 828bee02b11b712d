// CPU time this process has used so far (user + system, all threads), in ms:
// recorded at the end of a live run, so that its cost can be reported.
export function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
