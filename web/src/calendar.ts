// The user's calendar, as the service counts days: their time zone, and a day that
// begins at dayStartHour (a review at 02:00 with dayStartHour 4 counts for the day before).

export interface CalendarDay { year: number, month: number, day: number }

/**
 * The user's today, found as the service finds it: the instant read as a wall clock in
 * their time zone, then moved back by dayStartHour. (Moving the instant back first and
 * reading the clock after differs by an hour across a DST change.)
 */
export function userToday (timezone: string, dayStartHour: number, now = new Date()): CalendarDay {
  const shifted = new Date(wallClock(timezone, now) - dayStartHour * 60 * 60 * 1000)
  return { year: shifted.getUTCFullYear(), month: shifted.getUTCMonth() + 1, day: shifted.getUTCDate() }
}

const CLOCK_PARTS: Intl.DateTimeFormatOptions = { year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', hourCycle: 'h23' }

/** The time on the user's wall clock at `now`, as milliseconds of a UTC date that reads the same. */
function wallClock (timezone: string, now: Date): number {
  let parts: Intl.DateTimeFormatPart[]
  try {
    parts = new Intl.DateTimeFormat('en-GB', { ...CLOCK_PARTS, timeZone: timezone }).formatToParts(now)
  } catch {
    // a time zone this browser does not know: its own is the closest guess
    parts = new Intl.DateTimeFormat('en-GB', CLOCK_PARTS).formatToParts(now)
  }
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((candidate) => candidate.type === type)?.value)
  return Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'))
}

/** The day `days` after (or before, when negative) `day`. */
export function addDays (day: CalendarDay, days: number): CalendarDay {
  const date = new Date(Date.UTC(day.year, day.month - 1, day.day + days))
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() }
}

/** 0 for Monday to 6 for Sunday: weeks start on Monday, as the service counts them. */
export function weekday (day: CalendarDay): number {
  return (new Date(Date.UTC(day.year, day.month - 1, day.day)).getUTCDay() + 6) % 7
}

const two = (value: number) => String(value).padStart(2, '0')

/** DD/MM/YYYY, the service's way of writing a day. */
export function serviceDate (day: CalendarDay): string {
  return `${two(day.day)}/${two(day.month)}/${day.year}`
}

/** YYYY-MM-DD, the value of an <input type="date">. */
export function inputDate (day: CalendarDay): string {
  return `${day.year}-${two(day.month)}-${two(day.day)}`
}

export function fromInputDate (value: string): CalendarDay | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value)
  return match === null ? null : { year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) }
}

export function fromServiceDate (value: string): CalendarDay | null {
  const match = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(value)
  return match === null ? null : { year: Number(match[3]), month: Number(match[2]), day: Number(match[1]) }
}

/**
 * A day as the page writes it everywhere: in the user's own format, the one their
 * browser's date picker shows too (12/02/2026 in the US, 02/12/2026 in Britain,
 * 2.12.2026 in Germany). The service's DD/MM/YYYY is only for the wire.
 */
export function localDate (day: CalendarDay): string {
  return DAY_FORMAT.format(Date.UTC(day.year, day.month - 1, day.day))
}

/** An instant (an ISO-8601 time of the service), as the day it falls on for the user, in the same format. */
export function localDateOfInstant (iso: string, timezone?: string): string {
  try {
    return new Intl.DateTimeFormat(undefined, { ...DAY_PARTS, timeZone: timezone }).format(new Date(iso))
  } catch {
    return new Intl.DateTimeFormat(undefined, DAY_PARTS).format(new Date(iso))
  }
}

/** "Mar", in the user's language: the month row of the heatmap. */
export function monthName (month: number): string {
  return MONTH_FORMAT.format(Date.UTC(2000, month - 1, 1))
}

const DAY_PARTS: Intl.DateTimeFormatOptions = { year: 'numeric', month: '2-digit', day: '2-digit' }
// a calendar day held as midnight UTC is written in UTC, so no time zone moves it to another day
const DAY_FORMAT = new Intl.DateTimeFormat(undefined, { ...DAY_PARTS, timeZone: 'UTC' })
const MONTH_FORMAT = new Intl.DateTimeFormat(undefined, { month: 'short', timeZone: 'UTC' })
