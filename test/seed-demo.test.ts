// `npm run seed`'s demo learner, made in a database of its own and read back through
// the API: a year of history in which the streak, the heatmap, the XP, the goals and the
// fitted parameters all tell one story, and decks that show what cards can be.
import { test } from 'tap'
import { addDays, formatDay, userDay } from '../src/domain/calendar.js'
import { DEMO_SETTINGS } from '../scripts/demo/plan.js'
import { seedDemo } from '../scripts/demo/seed-demo.js'
import { buildTestApp, databaseOf, expectOk } from './helpers/app.js'

interface Stats { total_xp: string, streak: string, heatmap: Record<string, string>, cards: { total: string, new: string, review: string } }
interface Goal { status: string, type: string, data: Record<string, string> }
interface OutlineFolder { name: string, folders: OutlineFolder[], flashcards: Array<{ flashcardID: string, flashcardName: string, cards: string }> }
interface ShownCard { frontHtml: string, backHtml: string, noteID?: string, clozeNumber?: string }

// a Saturday afternoon in London, a few weeks after the clocks went forward
const NOW = new Date('2025-04-12T15:40:00Z')

function deckNamed (folders: OutlineFolder[], name: string): OutlineFolder['flashcards'][number] | undefined {
  for (const folder of folders) {
    const found = folder.flashcards.find((deck) => deck.flashcardName === name) ?? deckNamed(folder.folders, name)
    if (found !== undefined) return found
  }
  return undefined
}

test('the demo learner: a year of reviews that streak, heatmap, XP, goals and fit agree on, and decks of every kind of card', { timeout: 400_000 }, async (t) => {
  let clock = NOW
  const app = await buildTestApp(t, import.meta.filename, {
    clock: () => clock,
    loadShedding: { maxInFlight: 100_000, maxInFlightPerUser: 100_000, maxEventLoopDelayMs: 0, maxEventLoopUtilization: 0 }
  })
  const demo = await seedDemo(app, (instant) => { clock = instant }, NOW)
  t.equal(clock, NOW, 'the clock is left at now')
  const jwtToken = demo.jwtToken
  const today = userDay(NOW, DEMO_SETTINGS).day
  const answers = demo.answers.inBulk + demo.answers.throughService

  // ---- a year of history, recorded as review-card records it
  t.ok(demo.answers.throughService > 300, `the last days went through review-card (${demo.answers.throughService} answers)`)
  const reviews = await databaseOf(app).collection('reviews').countDocuments({ userID: demo.userID })
  t.equal(reviews, answers, 'every answer is in the log')
  const stats = await expectOk<Stats>(app, 'get-stats', { jwtToken })
  t.equal(stats.total_xp, String(answers * 10), 'the XP is 10 an answer')
  const profile = await expectOk<{ total_xp: string }>(app, 'get-user', { jwtToken })
  t.equal(profile.total_xp, stats.total_xp, 'the account holds the same total')

  const heatmap = Object.entries(stats.heatmap).map(([day, count]) => [day, Number(count)] as const)
  t.ok(heatmap.length >= 330, `the heatmap's year is filled (${heatmap.length} of 365 days)`)
  t.ok(stats.heatmap[formatDay(addDays(today, -364))] !== undefined || stats.heatmap[formatDay(addDays(today, -363))] !== undefined, 'from its first days')
  const busy = heatmap.filter(([, count]) => count >= 100 && count <= 300).length
  t.ok(busy >= 0.8 * heatmap.length, `100 to 300 reviews on most days (${busy} of ${heatmap.length})`)
  const inWindow = heatmap.reduce((sum, [, count]) => sum + count, 0)
  t.ok(inWindow <= answers && inWindow > 0.95 * answers, 'the heatmap counts the log')

  t.ok(Number(stats.streak) >= 150, `a streak of months (${stats.streak} days)`)
  t.ok((stats.heatmap[formatDay(today)] ?? '0') !== '0', 'that includes today')
  t.ok(demo.dueToday > 20, `with cards still to study today (${demo.dueToday})`)

  // ---- a fitted schedule: far more than the 1,000 reviews a fit needs
  t.ok(Number(demo.fit.items) >= 1000, `${demo.fit.items} reviews to fit to`)
  const schedule = await expectOk<{ fitted: string, lastFit?: { workload: unknown[] } }>(app, 'get-schedule', { jwtToken })
  t.equal(schedule.fitted, 'true', 'the parameters fitted to the year predict it better than the defaults, and are in use')
  t.ok((schedule.lastFit?.workload.length ?? 0) >= 7, 'with the cost of each desired retention')

  // ---- goals met, missed and under way, each as its days' reviews decide
  const goals = Object.values(await expectOk<Record<string, Goal>>(app, 'update-goal-status', { jwtToken }))
  const statuses = goals.map((goal) => goal.status)
  for (const status of ['completed', 'failed', 'in progress']) t.ok(statuses.includes(status), `a goal ${status}`)
  for (const goal of goals.filter((each) => each.type === 'Card')) {
    const done = Number(goal.data.cards_revised_so_far)
    const target = Number(goal.data.cards_to_revise)
    t.ok(goal.status === 'completed' ? done >= target : done < target, `a card goal ${goal.status}: ${done} of ${target}`)
  }

  // ---- decks of formatted cards with images, sounds and cloze notes
  const library = await expectOk<{ folders: OutlineFolder[] }>(app, 'get-library', { jwtToken })
  t.equal(demo.cards, Number((await expectOk<Stats>(app, 'get-stats', { jwtToken })).cards.total), `${demo.cards} cards`)
  const cardsOf = async (name: string): Promise<ShownCard[]> => {
    const deck = deckNamed(library.folders, name)
    if (deck === undefined) throw new Error(`no deck ${name}`)
    return (await expectOk<{ cards: ShownCard[] }>(app, 'get-flashcard', { jwtToken, flashcardID: deck.flashcardID })).cards
  }
  const flags = await cardsOf('Flags')
  t.ok(flags.length > 10 && flags.every((card) => /<img src="\/media\/\d+\?[^"]+" alt="A flag of three stripes"/.test(card.frontHtml)), 'a deck of images')
  const image = /<img src="([^"]+)"/.exec(flags[0]?.frontHtml ?? '')?.[1]?.replace(/&amp;/g, '&') ?? ''
  const served = await app.inject({ method: 'GET', url: image })
  t.equal(served.statusCode, 200, 'its images are served')
  t.equal(served.headers['content-type'], 'image/png', 'as the PNG they are')
  const notes = await cardsOf('Notes by ear')
  t.ok(notes.length > 10 && notes.every((card) => /<audio src="\/media\/\d+\?[^"]+" controls/.test(card.frontHtml)), 'a deck of sounds')
  const capitals = await cardsOf('Capitals of the world')
  t.ok(capitals.length > 50 && capitals.every((card) => card.noteID !== undefined && /<span class="cloze">/.test(card.frontHtml)), 'a deck of cloze notes')
  t.match(capitals[0]?.backHtml ?? '', /<b>.*<\/b>.*<i>/, 'formatted, with a back extra')
  const verbs = await cardsOf('Verbs: present and preterite')
  t.match(verbs[0]?.backHtml ?? '', /<table>/, 'and formatted cards with tables')
})
