import type { ChildProcess } from 'node:child_process'

/**
 * Asks a child process to stop (SIGTERM), and kills it if it has not exited
 * after `graceMs`. The embedded database, the bench and the fuzzer all stop
 * their children this way: SIGTERM lets WiredTiger write a last checkpoint,
 * and every commit is already on disk, so a kill after the grace loses nothing.
 */
export async function stopProcess (child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
  await exited
  clearTimeout(timer)
}
