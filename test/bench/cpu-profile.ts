import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Session } from 'node:inspector/promises';

/**
 * `BENCH_CPU_PROFILE=<dir>`: what runs between `start` and `stop` is profiled (V8's sampling profiler) and written
 * to `<dir>/<name>.cpuprofile`, for Chrome DevTools or `node --cpu-prof`'s readers. Without it, both do nothing.
 */
export async function profiled<T>(name: string, run: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_CPU_PROFILE;
  if (!dir) return run();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  try {
    return await run();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}
