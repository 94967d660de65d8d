import type { FolderNode } from '../domain/library-tree.js'

/** A tree as stored at one version, with its size as stored. */
export interface KeptTree {
  version: number
  folders: FolderNode[]
  /** BSON bytes of the stored document */
  bytes: number
}

export interface TreeCacheOptions {
  /** trees smaller than this (stored bytes) are read whole every time: one round trip, no worth keeping */
  minBytes: number
  /** the most stored bytes kept in all; the least recently used trees go first */
  maxBytes: number
}

export const DEFAULT_TREE_CACHE: TreeCacheOptions = { minBytes: 64 * 1024, maxBytes: 24 * 1024 * 1024 }

/**
 * Large trees, as stored at a version, kept by this instance: a request
 * reads only the stored version (a few bytes) and finds the tree here when
 * it is the same. A version is written once and never reused, so a kept
 * tree at the stored version is the stored tree, whichever instance wrote
 * it; trees are put here only once their transaction has committed.
 * Whoever gets a tree from `get` shares it and must not change it: an edit
 * copies what it changes (domain/library-tree.ts).
 */
export function treeCache (options: TreeCacheOptions = DEFAULT_TREE_CACHE) {
  const kept = new Map<string, KeptTree>()
  let total = 0
  const drop = (userID: string): void => {
    const tree = kept.get(userID)
    if (tree === undefined) return
    kept.delete(userID)
    total -= tree.bytes
  }
  return {
    /** whether a tree of the user is kept, at any version: only then is the version worth reading first */
    has (userID: string): boolean {
      return kept.has(userID)
    },

    get (userID: string, version: number): KeptTree | undefined {
      const tree = kept.get(userID)
      if (tree === undefined || tree.version !== version) return undefined
      // most recently used last
      kept.delete(userID)
      kept.set(userID, tree)
      return tree
    },

    put (userID: string, tree: KeptTree): void {
      const current = kept.get(userID)
      // a read that raced an edit must not put back the version before it
      if (current !== undefined && current.version > tree.version) return
      drop(userID)
      if (tree.bytes < options.minBytes || tree.bytes > options.maxBytes) return
      kept.set(userID, tree)
      total += tree.bytes
      for (const [oldest] of kept) {
        if (total <= options.maxBytes) break
        drop(oldest)
      }
    },

    forget (userID: string): void {
      drop(userID)
    }
  }
}

export type TreeCache = ReturnType<typeof treeCache>
