import { IANAZone } from 'luxon'

/**
 * A day of the user's calendar as an ISO date, 'YYYY-MM-DD'. Kept as text so that
 * days sort, compare and serve as map keys without any time zone arithmetic.
 */
export type LocalDay = string

/** How a user counts days: where they live and when their study day turns over. */
export interface UserCalendar {
  /** IANA zone name, e.g. 'Europe/Paris'. */
  timezone: string
  /** 0-23, Anki's "next day starts at": a review at 02:00 with 4 still counts for yesterday. */
  dayStartHour: number
}

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

const ISO_DAY = /^(\d{4})-(\d{2})-(\d{2})$/
const DISPLAY_DAY = /^(\d{2})\/(\d{2})\/(\d{4})$/

function daysInMonth (year: number, month: number): number {
  if (month === 2) {
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
    return leap ? 29 : 28
  }
  return [4, 6, 9, 11].includes(month) ? 30 : 31
}

function isRealDate (year: number, month: number, day: number): boolean {
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month)
}

function pad (value: number, width: number): string {
  return String(value).padStart(width, '0')
}

function dayParts (day: LocalDay): { year: number, month: number, date: number } {
  const match = ISO_DAY.exec(day)
  if (match === null) throw new RangeError(`not a calendar day: ${JSON.stringify(day)}`)
  const year = Number(match[1])
  const month = Number(match[2])
  const date = Number(match[3])
  if (!isRealDate(year, month, date)) throw new RangeError(`not a calendar day: ${JSON.stringify(day)}`)
  return { year, month, date }
}

/** Milliseconds of the wall-clock reading `day` at `hour`, counted as if the wall clock were UTC. */
function wallClockOf (day: LocalDay, hour: number): number {
  const { year, month, date } = dayParts(day)
  // setUTCFullYear, unlike Date.UTC, does not turn years 0-99 into 1900-1999
  const wall = new Date(0)
  wall.setUTCFullYear(year, month - 1, date)
  wall.setUTCHours(hour, 0, 0, 0)
  return wall.getTime()
}

/** The calendar date a wall-clock reading (as from wallClockOf) falls on. */
function dayOfWallClock (wall: number): LocalDay {
  const date = new Date(wall)
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1, 2)}-${pad(date.getUTCDate(), 2)}`
}

function zoneOf (calendar: UserCalendar): IANAZone {
  const hour = calendar.dayStartHour
  if (!Number.isInteger(hour) || hour < 0 || hour > 23) {
    throw new RangeError(`dayStartHour must be an integer from 0 to 23, got ${hour}`)
  }
  // luxon keeps one IANAZone per name and checks it once, so this is cheap on the hot path;
  // names come from stored settings, which isTimezone vetted
  const zone = IANAZone.create(calendar.timezone)
  if (!zone.isValid) throw new RangeError(`unknown time zone: ${JSON.stringify(calendar.timezone)}`)
  return zone
}

function wallClockAt (instant: number, zone: IANAZone): number {
  return instant + zone.offset(instant) * MINUTE
}

/**
 * The first instant whose local wall clock reads `wall` or later. This one rule covers
 * every daylight-saving case: when the hour is repeated (fall-back) the day begins at its
 * first occurrence; when the hour does not exist (spring-forward, or a zone that switches
 * at midnight) the day begins at the first instant after the gap. Because the rule is
 * monotone in `wall`, consecutive days tile time: no day is skipped or repeated.
 */
function firstInstantReading (wall: number, zone: IANAZone): number {
  // Every instant reading exactly `wall` is wall - offset, for an offset the zone uses
  // within a few hours of it (offsets lie between -12h and +14h)
  const offsets = new Set([
    zone.offset(wall - 15 * HOUR),
    zone.offset(wall),
    zone.offset(wall + 15 * HOUR)
  ])
  const candidates = [...offsets].map(offset => wall - offset * MINUTE).sort((a, b) => a - b)
  const exact = candidates.find(instant => wallClockAt(instant, zone) === wall)
  if (exact !== undefined) return exact

  // `wall` falls in a gap: search between the last candidate that reads earlier and the
  // first one that reads later; the wall clock only moves forward in between
  let after = candidates.find(instant => wallClockAt(instant, zone) > wall)
  if (after === undefined) after = wall + 15 * HOUR
  let before = wall - 15 * HOUR
  for (const instant of candidates) {
    if (instant < after && wallClockAt(instant, zone) < wall) before = instant
  }
  while (after - before > 1) {
    const middle = Math.floor((before + after) / 2)
    if (wallClockAt(middle, zone) >= wall) after = middle
    else before = middle
  }
  return after
}

// Asking a zone for its offset goes through Intl and costs microseconds; statistics ask for
// the same few hundred day boundaries over and over. The answers never change while the
// process runs, so a bounded memo is safe.
const DAY_STARTS_KEPT = 20_000
const dayStarts = new Map<string, number>()

function dayStartInstant (day: LocalDay, calendar: UserCalendar, zone: IANAZone): number {
  const key = `${calendar.timezone}|${calendar.dayStartHour}|${day}`
  let start = dayStarts.get(key)
  if (start === undefined) {
    start = firstInstantReading(wallClockOf(day, calendar.dayStartHour), zone)
    if (dayStarts.size >= DAY_STARTS_KEPT) dayStarts.clear()
    dayStarts.set(key, start)
  }
  return start
}

/** The instant the user's `day` begins: its dayStartHour in their zone, with care for DST. */
export function startOfDay (day: LocalDay, calendar: UserCalendar): Date {
  return new Date(dayStartInstant(day, calendar, zoneOf(calendar)))
}

function locateDay (instant: number, calendar: UserCalendar): { day: LocalDay, start: number, end: number } {
  if (!Number.isFinite(instant)) throw new RangeError('not a valid instant')
  const zone = zoneOf(calendar)
  const startOf = (day: LocalDay): number => dayStartInstant(day, calendar, zone)

  // The wall clock, moved back by the start hour, names the day in all but DST edge cases
  let day = dayOfWallClock(wallClockAt(instant, zone) - calendar.dayStartHour * HOUR)
  let start = startOf(day)
  let end = startOf(addDays(day, 1))
  // The edge cases (an instant in a repeated hour, a day shortened by a gap) are settled
  // by the day boundaries themselves, which are what every other caller sees
  while (instant < start) {
    day = addDays(day, -1)
    end = start
    start = startOf(day)
  }
  while (instant >= end) {
    day = addDays(day, 1)
    start = end
    end = startOf(addDays(day, 1))
  }
  return { day, start, end }
}

// Which day an instant falls in (and its DD/MM/YYYY) is asked for every card of a tree:
// hundreds of instants spread over a few dozen days. The days found so far are kept per
// calendar, sorted by start, so an instant inside a known day is answered by a binary search.
const DAYS_KEPT_PER_CALENDAR = 4000

interface KnownDays {
  starts: number[]
  ends: number[]
  days: LocalDay[]
  /** each day as the wire shows it, DD/MM/YYYY */
  displays: string[]
}

const knownDays = new Map<string, KnownDays>()

/** The days known so far for `calendar`: one object per calendar for the life of the process. */
function knownDaysOf (calendar: UserCalendar): KnownDays {
  const key = `${calendar.timezone}|${calendar.dayStartHour}`
  let known = knownDays.get(key)
  if (known === undefined) {
    known = { starts: [], ends: [], days: [], displays: [] }
    knownDays.set(key, known)
  }
  return known
}

/** The place in `known` (the known days of `calendar`) of the day `instant` falls in, found first if need be. */
function placeOf (known: KnownDays, instant: number, calendar: UserCalendar): number {
  const { starts, ends } = known
  // the last known day starting at or before the instant
  let low = 0
  let high = starts.length - 1
  let found = -1
  while (low <= high) {
    const middle = (low + high) >> 1
    if ((starts[middle] as number) <= instant) {
      found = middle
      low = middle + 1
    } else {
      high = middle - 1
    }
  }
  if (found >= 0 && instant < (ends[found] as number)) return found

  const located = locateDay(instant, calendar)
  if (starts.length >= DAYS_KEPT_PER_CALENDAR) {
    for (const list of [known.starts, known.ends, known.days, known.displays]) list.length = 0
    found = -1
  }
  const at = found + 1
  known.starts.splice(at, 0, located.start)
  known.ends.splice(at, 0, located.end)
  known.days.splice(at, 0, located.day)
  known.displays.splice(at, 0, formatDay(located.day))
  return at
}

function locateKnownDay (instant: number, calendar: UserCalendar): { day: LocalDay, start: number, end: number } {
  const known = knownDaysOf(calendar)
  const at = placeOf(known, instant, calendar)
  return { day: known.days[at] as LocalDay, start: known.starts[at] as number, end: known.ends[at] as number }
}

/**
 * The user's "today" at `now`: the local day that began at the last dayStartHour, with the
 * instants it runs over, [start, end).
 */
export function userDay (now: Date, calendar: UserCalendar): { day: LocalDay, start: Date, end: Date } {
  const { day, start, end } = locateKnownDay(now.getTime(), calendar)
  return { day, start: new Date(start), end: new Date(end) }
}

/** Which of the user's days an instant (a review, a creation) belongs to. */
export function dayOf (instant: Date, calendar: UserCalendar): LocalDay {
  const known = knownDaysOf(calendar)
  return known.days[placeOf(known, instant.getTime(), calendar)] as LocalDay
}

/** The same day as the wire shows it: formatDay(dayOf(instant, calendar)). */
export function displayDayOf (instant: Date, calendar: UserCalendar): string {
  const known = knownDaysOf(calendar)
  return known.displays[placeOf(known, instant.getTime(), calendar)] as string
}

/**
 * displayDayOf for the many instants of one calendar (the cards of a tree). The
 * calendar's known days are found once: per card, the key alone left two strings
 * and a flattened copy of them for the collector every time.
 */
export function displayDaysOf (calendar: UserCalendar): (instant: Date) => string {
  const known = knownDaysOf(calendar)
  return (instant) => known.displays[placeOf(known, instant.getTime(), calendar)] as string
}

export function addDays (day: LocalDay, n: number): LocalDay {
  return dayOfWallClock(wallClockOf(day, 0) + n * DAY)
}

/** Whole days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween (from: LocalDay, to: LocalDay): number {
  return Math.round((wallClockOf(to, 0) - wallClockOf(from, 0)) / DAY)
}

export function isLocalDay (text: string): boolean {
  const match = ISO_DAY.exec(text)
  return match !== null && isRealDate(Number(match[1]), Number(match[2]), Number(match[3]))
}

/** The DD/MM/YYYY form every date on the wire takes. */
export function formatDay (day: LocalDay): string {
  const { year, month, date } = dayParts(day)
  return `${pad(date, 2)}/${pad(month, 2)}/${pad(year, 4)}`
}

/** Reads a DD/MM/YYYY date from a request; null unless it is exactly that form and a real date. */
export function parseDisplayDay (text: string): LocalDay | null {
  const match = DISPLAY_DAY.exec(text)
  if (match === null) return null
  const date = Number(match[1])
  const month = Number(match[2])
  const year = Number(match[3])
  if (!isRealDate(year, month, date)) return null
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(date, 2)}`
}

/**
 * Whether `name` is an IANA zone ('UTC', 'Europe/Paris'). Fixed offsets such as '+05:00'
 * are refused: a user lives in a place, and a place's offset changes with the seasons.
 */
export function isTimezone (name: string): boolean {
  // Intl takes offsets ('+05:00', '-0300') as zones too since Node 24: no IANA name starts with a sign
  return typeof name === 'string' && name !== '' && !/^[+\-\u2212]/.test(name) && IANAZone.isValidZone(name)
}

/** The zone's canonical spelling ('europe/paris' -> 'Europe/Paris'), or null if it is not a zone. */
export function canonicalTimezone (name: string): string | null {
  if (!isTimezone(name)) return null
  return new Intl.DateTimeFormat('en-US', { timeZone: name }).resolvedOptions().timeZone
}
