// The README and docs/ as a reader follows them: every relative link leads to a file of
// the repository (and to a heading there, when it names one), nothing points outside
// the repository, and the README stays short enough to read for its two commands.
import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { test } from 'tap'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
/** The service's own address on this machine is the only one a page may name. */
const LOCAL = /^https?:\/\/(127\.0\.0\.1|localhost)(:\d+)?(\/|$)/

async function markdownFiles (): Promise<string[]> {
  const docs = (await readdir(join(ROOT, 'docs'))).filter((name) => name.endsWith('.md')).map((name) => join(ROOT, 'docs', name))
  return [join(ROOT, 'README.md'), ...docs]
}

/** The text outside fenced blocks, which hold commands rather than headings or links. */
function outsideFences (markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '')
}

/** The text a reader sees as prose: inline code holds commands, not links. */
function prose (markdown: string): string {
  return outsideFences(markdown).replace(/`[^`\n]*`/g, '')
}

/** The anchors of a file's headings, as GitHub makes them (a repeated heading gets -1, -2, ...). */
function anchorsOf (markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const [, heading] of outsideFences(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = (heading ?? '').replace(/`/g, '').trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-')
    const times = seen.get(base) ?? 0
    seen.set(base, times + 1)
    anchors.add(times === 0 ? base : `${base}-${times}`)
  }
  return anchors
}

/** Every link target of a file: [text](target), ![alt](target) and <scheme://...>. */
function linksOf (markdown: string): string[] {
  const text = prose(markdown)
  const inline = [...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => match[1] ?? '')
  const auto = [...text.matchAll(/<([a-z][a-z0-9+.-]*:[^>\s]+)>/gi)].map((match) => match[1] ?? '')
  return [...inline, ...auto]
}

test('every relative link of the README and docs/ resolves, to a heading when it names one', async (t) => {
  const anchors = new Map<string, Set<string>>()
  const anchorsIn = async (file: string): Promise<Set<string>> => {
    let found = anchors.get(file)
    if (found === undefined) {
      found = anchorsOf(await readFile(file, 'utf8'))
      anchors.set(file, found)
    }
    return found
  }
  const broken: string[] = []
  let checked = 0
  for (const file of await markdownFiles()) {
    const name = relative(ROOT, file)
    for (const link of linksOf(await readFile(file, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue
      checked += 1
      const [path = '', anchor] = link.split('#')
      const target = path === '' ? file : resolve(dirname(file), decodeURIComponent(path))
      if (!target.startsWith(ROOT) || !existsSync(target)) {
        broken.push(`${name}: ${link} (no such file)`)
        continue
      }
      if (anchor !== undefined && target.endsWith('.md') && !(await anchorsIn(target)).has(anchor)) {
        broken.push(`${name}: ${link} (no such heading)`)
      }
    }
  }
  t.ok(checked > 50, `the links were found (${checked})`)
  t.strictSame(broken, [], 'no broken link')
})

test('nothing in the README or docs/ points outside the repository', async (t) => {
  const outside: string[] = []
  for (const file of await markdownFiles()) {
    for (const link of linksOf(await readFile(file, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link) && !LOCAL.test(link)) outside.push(`${relative(ROOT, file)}: ${link}`)
    }
  }
  t.strictSame(outside, [], 'only links into the repository, and to the service on this machine')
})

test('the README is short, and its quick start is the two commands', async (t) => {
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8')
  t.ok(readme.length <= 12_000, `at most 12,000 characters (${readme.length})`)
  t.match(readme, /^npm install && npm start {2,}#/m, 'the command that starts the service')
  t.match(readme, /^npm install && npm test {2,}#/m, 'the command that runs the tests')
})
