// Where the packages of Anki imports wait on disk: one folder per instance of the service
// (`<directory>/<instance>/`), one folder per import in it (`<importID>/`, the package and whatever
// the staging writes beside it), each removed as a whole when its import ends. Several instances may
// share the directory (on one machine): each touches a heartbeat file in its folder, and an instance
// removes the folders of those whose heartbeat stopped, never a live one's (it may be receiving an
// upload whose import is not recorded yet).
import { mkdir, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { isId } from '../domain/ids.js'

/** How often an instance touches its heartbeat. */
export const HEARTBEAT_MS = 5_000

/**
 * A folder whose heartbeat (or, for the old flat layout, whose files) has not changed for this long
 * belongs to no live instance. Generous: removing a live instance's folder would fail its imports,
 * keeping a gone one's a little longer costs only disk.
 */
export const GONE_AFTER_MS = 24 * HEARTBEAT_MS

const HEARTBEAT = 'heartbeat'

/** The names instances' folders have (randomUUID); anything else in the directory is not theirs. */
const INSTANCE_FOLDER = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** When a path last changed (ms), or null when it is not there. */
async function changedAt (path: string): Promise<number | null> {
  try {
    return (await stat(path)).mtimeMs
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
    throw error
  }
}

async function newestChange (paths: string[]): Promise<number | null> {
  let newest: number | null = null
  for (const path of paths) {
    const at = await changedAt(path)
    if (at !== null && (newest === null || at > newest)) newest = at
  }
  return newest
}

export interface ImportFolders {
  /** the folder of one import of this instance */
  folderOf: (importID: string) => string
  /**
   * Touches this instance's heartbeat (making its folder if it is missing), then removes the
   * folders of instances gone and those of the old flat layout (`<directory>/<importID>/`) whose
   * import `held` does not say is held by a live instance. Removes nothing when this instance's own
   * previous heartbeat is overdue: the machine slept or the process stalled, and the others may
   * not have caught up yet. Answers how many folders it removed.
   */
  beat: (held: (importID: string) => Promise<boolean>) => Promise<number>
  /** removes this instance's folder: its imports are over (the service is closing) */
  remove: () => Promise<void>
}

/** The folders of `instance` in `directory`; times are the machine's, as the file system's are. */
export function importFolders (directory: string, instance: string, now: () => number = Date.now): ImportFolders {
  const own = join(directory, instance)
  let lastBeat: number | null = null

  async function sweep (held: (importID: string) => Promise<boolean>): Promise<number> {
    let entries
    try {
      entries = await readdir(directory, { withFileTypes: true })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0
      throw error
    }
    let removed = 0
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name === instance) continue
      const folder = join(directory, entry.name)
      let lastSign: number | null
      if (INSTANCE_FOLDER.test(entry.name)) {
        // a folder made a moment ago may not have its heartbeat yet: the folder's own time stands for it
        lastSign = await changedAt(join(folder, HEARTBEAT)) ?? await changedAt(folder)
      } else if (isId(entry.name)) {
        if (await held(entry.name)) continue
        // an instance of the version before may still be receiving this package, its import not recorded yet
        lastSign = await newestChange([folder, join(folder, 'package')])
      } else {
        continue
      }
      if (lastSign === null || now() - lastSign <= GONE_AFTER_MS) continue
      await rm(folder, { recursive: true, force: true })
      removed++
    }
    return removed
  }

  return {
    folderOf: (importID) => join(own, importID),

    async beat (held) {
      const at = now()
      const awake = lastBeat === null || at - lastBeat < 3 * HEARTBEAT_MS
      await mkdir(own, { recursive: true })
      await writeFile(join(own, HEARTBEAT), `${instance} ${process.pid}\n`)
      lastBeat = at
      return awake ? await sweep(held) : 0
    },

    async remove () {
      await rm(own, { recursive: true, force: true })
    }
  }
}
