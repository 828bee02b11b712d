// Runs a command's entry function in this process and captures what it writes to standard output
// and standard error (the write callbacks are called, as the streams would).
export interface Captured {
  status: number;
  stdout: string;
  stderr: string;
}

export async function captureOutput(body: () => Promise<number>): Promise<Captured> {
  let stdout = '';
  let stderr = '';
  const { write: outWrite } = process.stdout;
  const { write: errWrite } = process.stderr;
  const fake = (append: (text: string) => void) =>
    ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      append(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
      (rest.find((r) => typeof r === 'function') as (() => void) | undefined)?.();
      return true;
    }) as typeof process.stdout.write;
  process.stdout.write = fake((t) => (stdout += t));
  process.stderr.write = fake((t) => (stderr += t));
  try {
    return { status: await body(), stdout, stderr };
  } finally {
    process.stdout.write = outWrite;
    process.stderr.write = errWrite;
  }
}
