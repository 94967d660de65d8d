// Reviews per day over the last year, one small cell a day, a column a week
// (Monday at the top). Colours come from classes, so the page needs no inline style.
import { addDays, localDate, monthName, serviceDate, weekday, type CalendarDay } from '../calendar.js'
import { el, plural } from '../dom.js'

/** The service's heatmap spans the last 365 days, today included. */
const DAYS = 365
const LEVELS = 4

/** `counts` is get-stats' heatmap: {"DD/MM/YYYY": "reviews"}, days without reviews left out. */
export function heatmap (counts: Record<string, string>, today: CalendarDay): HTMLElement {
  const first = addDays(today, -(DAYS - 1))
  const most = Math.max(0, ...Object.values(counts).map(Number))
  // the grid fills column by column: a month row on top, then Monday to Sunday
  const cells: HTMLElement[] = [
    el('span', { class: 'heat-label', 'aria-hidden': 'true' }),
    ...WEEKDAYS.map((name) => el('span', { class: 'heat-label heat-weekday', 'aria-hidden': 'true' }, [name]))
  ]
  let day = addDays(first, -weekday(first))
  for (let week = 0; compare(day, today) <= 0; week += 1) {
    // a month is named above the week its first day falls in, and the first month above
    // the first week when enough of it is shown for its name not to run into the next one
    const startsMonth = Array.from({ length: 7 }, (_, offset) => addDays(day, offset)).find((date) => date.day === 1)
    const firstMonthFits = week === 0 && addDays(first, 14).month === first.month
    const month = firstMonthFits ? monthName(first.month) : startsMonth === undefined ? '' : monthName(startsMonth.month)
    cells.push(el('span', { class: 'heat-label heat-month', 'aria-hidden': 'true' }, [month]))
    for (let offset = 0; offset < 7; offset += 1, day = addDays(day, 1)) {
      if (compare(day, first) < 0 || compare(day, today) > 0) {
        cells.push(el('span', { class: 'heat-cell heat-blank', 'aria-hidden': 'true' }))
      } else {
        cells.push(dayCell(day, Number(counts[serviceDate(day)] ?? 0), most, compare(day, today) === 0))
      }
    }
  }
  const grid = el('div', { class: 'heatmap-grid', id: 'heatmap' }, cells)
  const legend = el('p', { class: 'heatmap-legend', 'aria-hidden': 'true' }, [
    'Fewer ',
    ...Array.from({ length: LEVELS + 1 }, (_, index) => el('span', { class: `heat-cell heat-${index}` })),
    ' more reviews'
  ])
  // a phone shows the latest weeks first, older ones a sideways scroll away: the scroller
  // starts at its right edge (app.css), whenever and however often it gets its width
  const scroller = el('div', { class: 'heatmap-scroll', tabindex: 0, role: 'group', 'aria-label': 'Reviews per day over the last year' }, [grid])
  return el('div', { class: 'heatmap' }, [scroller, legend])
}

const WEEKDAYS = ['Mon', '', 'Wed', '', 'Fri', '', '']

function compare (a: CalendarDay, b: CalendarDay): number {
  return Date.UTC(a.year, a.month - 1, a.day) - Date.UTC(b.year, b.month - 1, b.day)
}

function dayCell (day: CalendarDay, count: number, most: number, isToday: boolean): HTMLElement {
  const label = `${localDate(day)}: ${count === 0 ? 'no reviews' : plural(count, 'review')}`
  return el('span', {
    class: `heat-cell heat-${level(count, most)}${isToday ? ' heat-today' : ''}`,
    role: 'img',
    'aria-label': isToday ? `Today, ${label}` : label,
    title: label,
    'data-date': serviceDate(day),
    'data-count': count,
    'aria-current': isToday ? 'date' : null
  })
}

/** 0 for no reviews, then 1 to LEVELS in proportion to the busiest day. */
function level (count: number, most: number): number {
  if (count === 0 || most === 0) return 0
  return Math.max(1, Math.ceil((count / most) * LEVELS))
}
