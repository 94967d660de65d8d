import { test } from 'tap'
import {
  addDays,
  canonicalTimezone,
  dayOf,
  daysBetween,
  displayDayOf,
  displayDaysOf,
  formatDay,
  isLocalDay,
  isTimezone,
  parseDisplayDay,
  startOfDay,
  userDay,
  type UserCalendar
} from '../../src/domain/calendar.js'

const HOUR = 3_600_000

function at (iso: string): Date {
  return new Date(iso)
}

test('the same instant is a different day at either end of the date line', async t => {
  const instant = at('2026-06-15T12:00:00Z')
  const kiritimati = { timezone: 'Pacific/Kiritimati', dayStartHour: 0 }
  const pagoPago = { timezone: 'Pacific/Pago_Pago', dayStartHour: 0 }
  t.equal(dayOf(instant, kiritimati), '2026-06-16', 'UTC+14 is already tomorrow')
  t.equal(dayOf(instant, pagoPago), '2026-06-15', 'UTC-11 is still today')
  t.same(userDay(instant, kiritimati).start, at('2026-06-15T10:00:00Z'))
  t.same(userDay(instant, pagoPago).start, at('2026-06-15T11:00:00Z'))
})

test('the day starts at dayStartHour, not at midnight', async t => {
  const early = { timezone: 'UTC', dayStartHour: 4 }
  const midnight = { timezone: 'UTC', dayStartHour: 0 }
  const twoAm = at('2026-03-10T02:00:00Z')
  t.equal(dayOf(twoAm, early), '2026-03-09', 'at 02:00 with a 04:00 start it is still yesterday')
  t.equal(dayOf(twoAm, midnight), '2026-03-10')
  t.equal(dayOf(at('2026-03-10T03:59:59.999Z'), early), '2026-03-09')
  t.equal(dayOf(at('2026-03-10T04:00:00Z'), early), '2026-03-10', 'the start instant belongs to the new day')

  t.same(userDay(twoAm, early), {
    day: '2026-03-09',
    start: at('2026-03-09T04:00:00Z'),
    end: at('2026-03-10T04:00:00Z')
  })
})

test('a local day start is computed in the user zone', async t => {
  const berlin = { timezone: 'Europe/Berlin', dayStartHour: 4 }
  t.same(userDay(at('2026-01-15T12:00:00Z'), berlin), {
    day: '2026-01-15',
    start: at('2026-01-15T03:00:00Z'),
    end: at('2026-01-16T03:00:00Z')
  })
  t.equal(dayOf(at('2026-01-15T02:30:00Z'), berlin), '2026-01-14', '03:30 local is before 04:00')
  t.same(startOfDay('2026-07-01', berlin), at('2026-07-01T02:00:00Z'), 'summer time is UTC+2')
})

function hoursOf (day: string, calendar: UserCalendar): number {
  return (startOfDay(addDays(day, 1), calendar).getTime() - startOfDay(day, calendar).getTime()) / HOUR
}

test('spring-forward and fall-back nights make 23 and 25 hour days', async t => {
  // With a 04:00 start the switch at 02:00/03:00 falls in the night that ends the
  // previous date's study day: that day is the short (or long) one
  const berlin = { timezone: 'Europe/Berlin', dayStartHour: 4 }
  t.same(startOfDay('2026-03-28', berlin), at('2026-03-28T03:00:00Z'), '04:00 CET')
  t.same(startOfDay('2026-03-29', berlin), at('2026-03-29T02:00:00Z'), '04:00 CEST')
  t.equal(dayOf(at('2026-03-29T01:30:00Z'), berlin), '2026-03-28', '03:30 CEST, just after the switch, is still the night of the 28th')
  const newYork = { timezone: 'America/New_York', dayStartHour: 4 }
  t.same(startOfDay('2026-03-07', newYork), at('2026-03-07T09:00:00Z'), '04:00 EST')
  t.same(startOfDay('2026-03-08', newYork), at('2026-03-08T08:00:00Z'), '04:00 EDT')

  // the length of each day; a day that starts at midnight makes the DST dates themselves short and long
  const hours: Array<[typeof berlin, string, number]> = [
    [berlin, '2026-03-28', 23], [berlin, '2026-03-29', 24], [berlin, '2026-10-24', 25], [berlin, '2026-10-25', 24],
    [newYork, '2026-03-07', 23], [newYork, '2026-10-31', 25], [newYork, '2026-11-01', 24],
    [{ timezone: 'America/New_York', dayStartHour: 0 }, '2026-03-08', 23], [{ timezone: 'America/New_York', dayStartHour: 0 }, '2026-11-01', 25],
    [{ timezone: 'Europe/Berlin', dayStartHour: 0 }, '2026-03-29', 23], [{ timezone: 'Europe/Berlin', dayStartHour: 0 }, '2026-10-25', 25]
  ]
  for (const [calendar, day, expected] of hours) {
    t.equal(hoursOf(day, calendar), expected, `${day} in ${calendar.timezone} from ${calendar.dayStartHour}:00`)
  }
})

test('a start hour that does not exist that day begins at the first instant after the gap', async t => {
  // New York skips 02:00-03:00 on 8 March 2026
  const newYork = { timezone: 'America/New_York', dayStartHour: 2 }
  t.same(startOfDay('2026-03-08', newYork), at('2026-03-08T07:00:00Z'), '03:00 EDT')
  t.equal(dayOf(at('2026-03-08T06:59:59Z'), newYork), '2026-03-07', '01:59:59 EST is still the day before')
  t.equal(dayOf(at('2026-03-08T07:00:00Z'), newYork), '2026-03-08')

  // Havana switches at midnight: 00:00 does not exist on 8 March 2026
  const havana = { timezone: 'America/Havana', dayStartHour: 0 }
  t.same(startOfDay('2026-03-08', havana), at('2026-03-08T05:00:00Z'), '01:00 CDT')
  t.equal(hoursOf('2026-03-07', havana), 24)
  t.equal(hoursOf('2026-03-08', havana), 23)

  // Lord Howe moves its clocks by half an hour, from 02:00 to 02:30
  const lordHowe = { timezone: 'Australia/Lord_Howe', dayStartHour: 2 }
  t.same(startOfDay('2026-10-04', lordHowe), at('2026-10-03T15:30:00Z'), '02:30 +11')
  t.equal(hoursOf('2026-10-04', lordHowe), 23.5)
})

test('a start hour that happens twice begins at its first occurrence', async t => {
  // New York repeats 01:00-02:00 on 1 November 2026
  const newYork = { timezone: 'America/New_York', dayStartHour: 1 }
  t.same(startOfDay('2026-11-01', newYork), at('2026-11-01T05:00:00Z'), '01:00 EDT')
  t.equal(dayOf(at('2026-11-01T06:30:00Z'), newYork), '2026-11-01', '01:30 EST, the second time round, is the same day')
  t.equal(hoursOf('2026-11-01', newYork), 25)
  t.equal(hoursOf('2026-10-31', newYork), 24)
})

test('400 consecutive days tile time with no gap, overlap, skip or repeat', async t => {
  const startHours: Record<string, number[]> = {
    'Europe/Berlin': [0, 2, 3, 4],
    'America/New_York': [0, 1, 2, 23],
    'America/Havana': [0],
    'America/Santiago': [0],
    'Australia/Lord_Howe': [2],
    'Pacific/Kiritimati': [4],
    UTC: [4]
  }
  const calendars: UserCalendar[] = Object.entries(startHours).flatMap(([timezone, hours]) => hours.map((dayStartHour) => ({ timezone, dayStartHour })))
  for (const calendar of calendars) {
    const label = `${calendar.timezone} from ${calendar.dayStartHour}:00`
    let day = '2026-01-01'
    let today = userDay(startOfDay(day, calendar), calendar)
    const lengths = new Map<number, number>()
    const problems: string[] = []
    for (let i = 0; i < 400; i++) {
      if (today.day !== day) problems.push(`${day}: userDay says ${today.day}`)
      if (dayOf(new Date(today.end.getTime() - 1), calendar) !== day) problems.push(`${day}: last instant elsewhere`)
      const hours = (today.end.getTime() - today.start.getTime()) / HOUR
      lengths.set(hours, (lengths.get(hours) ?? 0) + 1)
      const next = userDay(today.end, calendar)
      if (next.day !== addDays(day, 1)) problems.push(`${day}: next day is ${next.day}`)
      if (next.start.getTime() !== today.end.getTime()) problems.push(`${day}: gap or overlap`)
      day = next.day
      today = next
    }
    t.same(problems, [], `${label}: every day follows the one before`)
    const long = [...lengths.keys()].filter(hours => hours > 24)
    const short = [...lengths.keys()].filter(hours => hours < 24)
    for (const hours of [...long, ...short]) {
      t.ok(Math.abs(hours - 24) <= 1, `${label}: a ${hours}h day is at most an hour off`)
    }
    if (calendar.timezone === 'Europe/Berlin' || calendar.timezone === 'America/New_York') {
      t.same(Object.fromEntries(lengths), { 23: 1, 24: 398, 25: 1 }, `${label}: one short and one long day in the year`)
    }
  }
})

test('every hour of a year lands in the day whose bounds hold it', async t => {
  for (const calendar of [{ timezone: 'Europe/Berlin', dayStartHour: 2 }, { timezone: 'America/New_York', dayStartHour: 1 }]) {
    const misplaced: string[] = []
    const from = startOfDay('2026-01-01', calendar).getTime()
    for (let instant = from; instant < from + 366 * 24 * HOUR; instant += HOUR / 2) {
      const today = userDay(new Date(instant), calendar)
      if (!(today.start.getTime() <= instant && instant < today.end.getTime())) {
        misplaced.push(new Date(instant).toISOString())
      }
    }
    t.same(misplaced, [], calendar.timezone)
  }
})

test('addDays and daysBetween count calendar days', async t => {
  t.equal(addDays('2024-02-28', 1), '2024-02-29', 'leap day')
  t.equal(addDays('2023-02-28', 1), '2023-03-01')
  t.equal(addDays('2026-12-31', 1), '2027-01-01')
  t.equal(addDays('2026-03-01', -1), '2026-02-28')
  t.equal(addDays('2026-01-01', 365), '2027-01-01')
  t.equal(addDays('2026-05-05', 0), '2026-05-05')
  t.equal(daysBetween('2026-01-01', '2027-01-01'), 365)
  t.equal(daysBetween('2026-03-02', '2026-03-01'), -1)
  t.throws(() => addDays('2026-02-30', 1), RangeError)
})

test('formatDay writes DD/MM/YYYY', async t => {
  t.equal(formatDay('2026-03-07'), '07/03/2026')
  t.equal(formatDay('2024-02-29'), '29/02/2024')
  t.equal(formatDay('2026-12-31'), '31/12/2026')
})

test('displayDayOf, and displayDaysOf for many instants, name the same day as dayOf, in any order of asking and past the memo', async t => {
  // a calendar of its own, so the memo starts empty; UTC with a 5:00 start gives an independent answer
  const calendar: UserCalendar = { timezone: 'Etc/GMT', dayStartHour: 5 }
  const expected = (instant: number): string => {
    const date = new Date(instant - 5 * 3600_000)
    return `${String(date.getUTCDate()).padStart(2, '0')}/${String(date.getUTCMonth() + 1).padStart(2, '0')}/${date.getUTCFullYear()}`
  }
  // 5,000 days (more than the memo keeps), visited in a scrambled order at scrambled hours
  const base = Date.UTC(2015, 0, 1)
  const many = displayDaysOf(calendar)
  let wrong = 0
  let wrongOfMany = 0
  for (let n = 0; n < 5000; n++) {
    const instant = base + ((n * 2731) % 5000) * 86_400_000 + ((n * 7919) % 86_400_000)
    const shown = displayDayOf(new Date(instant), calendar)
    if (shown !== expected(instant) || shown !== formatDay(dayOf(new Date(instant), calendar))) wrong += 1
    // an hour later, by the one lookup made before the memo was emptied and refilled
    if (many(new Date(instant + 3_600_000)) !== expected(instant + 3_600_000)) wrongOfMany += 1
  }
  t.equal(wrong, 0)
  t.equal(wrongOfMany, 0, 'displayDaysOf agrees')
  // around a DST change in a real zone: 2:30 local on the night Paris moves to summer time
  const paris: UserCalendar = { timezone: 'Europe/Paris', dayStartHour: 3 }
  t.equal(displayDayOf(new Date('2026-03-29T00:30:00Z'), paris), '28/03/2026', '01:30 local is still the day before')
  t.equal(displayDayOf(new Date('2026-03-29T01:30:00Z'), paris), '29/03/2026', '03:30 local (summer time) is the new day')
})

test('parseDisplayDay accepts only real DD/MM/YYYY dates', async t => {
  t.equal(parseDisplayDay('07/03/2026'), '2026-03-07')
  t.equal(parseDisplayDay('29/02/2024'), '2024-02-29', 'leap year')
  t.equal(parseDisplayDay('29/02/2000'), '2000-02-29', 'divisible by 400 is leap')
  t.equal(parseDisplayDay('31/12/2026'), '2026-12-31')
  const refused = [
    '29/02/2023', '29/02/1900', '31/02/2026', '31/04/2026', '00/01/2026', '01/00/2026', '01/13/2026', '32/01/2026',
    '1/2/2026', '01/02/26', '2026-02-01', ' 01/02/2026', '01/02/2026 ', '01/02/2026\n', '01-02-2026', '', '01/02/0000'
  ]
  for (const text of refused) t.equal(parseDisplayDay(text), null, JSON.stringify(text))
  for (const day of ['2024-02-29', '2026-01-01', '2026-12-31']) {
    t.equal(parseDisplayDay(formatDay(day)), day, `${day} round-trips`)
  }
})

test('isLocalDay recognises stored days', async t => {
  t.ok(isLocalDay('2024-02-29'))
  t.notOk(isLocalDay('2023-02-29'))
  t.notOk(isLocalDay('29/02/2024'))
})

test('isTimezone accepts IANA names only', async t => {
  for (const name of ['UTC', 'Europe/Paris', 'America/New_York', 'Pacific/Kiritimati', 'Asia/Kolkata']) {
    t.ok(isTimezone(name), name)
  }
  for (const name of ['', '+05:00', '-0300', 'UTC+5', 'Mars/Olympus_Mons', 'Europe', 'Z']) {
    t.notOk(isTimezone(name), JSON.stringify(name))
  }
  t.equal(canonicalTimezone('europe/paris'), 'Europe/Paris')
  t.equal(canonicalTimezone('+05:00'), null)
})

test('an unknown zone or start hour is a programming error, not a silent UTC', async t => {
  t.throws(() => userDay(new Date(), { timezone: 'Mars/Olympus_Mons', dayStartHour: 4 }), RangeError)
  t.throws(() => userDay(new Date(), { timezone: 'UTC', dayStartHour: 24 }), RangeError)
  t.throws(() => userDay(new Date(), { timezone: 'UTC', dayStartHour: 1.5 }), RangeError)
  t.throws(() => userDay(new Date(Number.NaN), { timezone: 'UTC', dayStartHour: 4 }), RangeError)
})
