import { spawn } from 'node:child_process'
import { join } from 'node:path'

export interface ScriptRun { code: number | null, stdout: string, stderr: string }

/**
 * Runs `npm run backup -- FILE` or `npm run restore -- FILE` as npm does, on the
 * embedded database of `dataDir` (the DATA_DIR of a service, running there or not).
 */
export async function runScript (script: 'backup' | 'restore', args: readonly string[], dataDir: string): Promise<ScriptRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir }
  // the test run's own database server is not the one these scripts are to reach
  delete env.MONGODB_URL
  delete env.JWT_SECRET
  const child = spawn(process.execPath, ['--import', 'tsx', join('scripts', `${script}.ts`), ...args], {
    cwd: join(import.meta.dirname, '..', '..'), env, stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const code = await new Promise<number | null>((resolve) => child.once('exit', (exitCode) => resolve(exitCode)))
  return { code, stdout, stderr }
}
