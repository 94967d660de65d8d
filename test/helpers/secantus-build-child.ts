// A start that needs the embedded database's binary, in a process of its own, with a builder that
// stands for cargo: it notes its pid in a file, takes `buildMs` and writes a stand-in binary.
// Arguments: the cache folder, the file of builds, buildMs. Prints its log, then "binary: <path>".
import { appendFile, chmod, mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { ensureSecantus } from '../../src/db/secantus-install.js'

const [root = '', builds = '', buildMs = '1000'] = process.argv.slice(2)
const binary = await ensureSecantus((line) => console.log(line), {
  root,
  pollMs: 50,
  build: async (into) => {
    await appendFile(builds, `${process.pid}\n`)
    await sleep(Number(buildMs))
    await mkdir(join(into, 'bin'), { recursive: true })
    const file = join(into, 'bin', 'secantusd-rs')
    await writeFile(file, '#!/bin/sh\n')
    await chmod(file, 0o755)
  }
})
console.log(`binary: ${binary}`)
