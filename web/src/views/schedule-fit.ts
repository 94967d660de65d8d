// The settings screen's memory model: fitting FSRS parameters to the user's own
// reviews (optimize-schedule), the figures of the defaults and of the fitted
// parameters, going back to the defaults (reset-schedule), and the reviews a day
// each desired retention costs, to choose one with numbers (update-settings).
import { ApiError, callApi } from '../api.js'
import type { ScheduleFit, ScheduleStatus } from '../api-types.js'
import { localDateOfInstant as localDate } from '../calendar.js'
import { button, el, plural, replaceChildren } from '../dom.js'
import { act } from '../forms.js'
import { showNotice } from '../messages.js'

function inUseText (status: ScheduleStatus): string {
  if (status.fitted === 'true') {
    return `Your reviews are scheduled with parameters fitted to your own reviews${status.lastFit === undefined ? '' : ` on ${localDate(status.lastFit.fittedAt)}`}.`
  }
  return 'Your reviews are scheduled with FSRS\'s default parameters, fitted to many learners.'
}

function figuresTable (fit: ScheduleFit): HTMLTableElement {
  const row = (label: string, figures: ScheduleFit['default'], id: string) => el('tr', { id }, [
    el('th', { scope: 'row' }, [label]), el('td', {}, [figures.logLoss]), el('td', {}, [figures.rmseBins])
  ])
  return el('table', { class: 'fit-figures', id: 'fit-figures' }, [
    el('caption', {}, [`How well each predicts your last reviews (lower is better), from ${Number(fit.items).toLocaleString()} of your ${Number(fit.reviews).toLocaleString()} reviews`]),
    el('thead', {}, [el('tr', {}, [el('th', { scope: 'col' }, ['Parameters']), el('th', { scope: 'col' }, ['Log loss']), el('th', { scope: 'col' }, ['RMSE (bins)'])])]),
    el('tbody', {}, [row('Default', fit.default, 'fit-default'), row('Fitted to you', fit.fitted, 'fit-fitted')])
  ])
}

function outcomeText (fit: ScheduleFit): string {
  const rescheduled = fit.rescheduled === '0' ? '' : ` ${Number(fit.rescheduled).toLocaleString()} cards got new due dates.`
  return fit.adopted === 'true'
    ? `The fitted parameters predict your reviews better, and now schedule them.${rescheduled}`
    : 'The fitted parameters predict your reviews no better than the defaults, so nothing changed.'
}

/**
 * The reviews a day of each desired retention, each with a button that makes it the user's,
 * and what the figures assume. A retention is shown once: the user's own is among those
 * compared, and one kept with more decimals (as an Anki import brings it) reads as one
 * of them.
 */
function workloadTable (fit: ScheduleFit, current: string, newCardsPerDay: string, choose: (retention: string) => void): HTMLTableElement {
  const costs = fit.workload.filter((cost, index) => fit.workload.findIndex((other) => other.desiredRetention === cost.desiredRetention) === index)
  const newCards = Number(fit.newCardsPerDay ?? newCardsPerDay)
  return el('table', { class: 'fit-figures', id: 'retention-costs' }, [
    el('caption', {}, [
      `Reviews a day each desired retention takes, on average over the next year, if you add ${plural(newCards, 'new card')} a day all year ` +
      '(an estimate from your cards and your answers)'
    ]),
    el('thead', {}, [el('tr', {}, [el('th', { scope: 'col' }, ['Desired retention']), el('th', { scope: 'col' }, ['Reviews a day']), el('th', { scope: 'col' }, [el('span', { class: 'visually-hidden' }, ['Choice'])])])]),
    el('tbody', {}, costs.map((cost) => el('tr', { 'data-retention': cost.desiredRetention }, [
      el('th', { scope: 'row' }, [`${Math.round(Number(cost.desiredRetention) * 100)}%`]),
      el('td', {}, [Number(cost.reviewsPerDay).toLocaleString()]),
      el('td', {}, [cost.desiredRetention === current
        ? el('span', { class: 'hint' }, ['yours'])
        : button('Use', () => { choose(cost.desiredRetention) }, { 'aria-label': `Use a desired retention of ${cost.desiredRetention}` })])
    ])))
  ])
}

/**
 * The section, drawn from the schedule's status; `retentionChosen` tells the
 * settings form of a desired retention chosen here.
 */
export function scheduleSection (status: ScheduleStatus, newCardsPerDay: string, retentionChosen: (retention: string) => void): HTMLElement {
  const section = el('section', { class: 'panel', id: 'schedule-section', 'aria-labelledby': 'schedule-heading' })
  let current = status

  const draw = (fit: ScheduleFit | undefined, outcome: string | null): void => {
    const reschedule = el('input', { type: 'checkbox', id: 'reschedule-cards' })
    const optimize = button('Fit to my reviews', () => {
      act(optimize, async () => {
        try {
          const answer = await callApi('optimize-schedule', { reschedule: reschedule.checked })
          current = await callApi('get-schedule', {})
          draw(answer, outcomeText(answer))
        } catch (error) {
          // too short a history is not a failure: it says how many more reviews a fit takes
          if (!(error instanceof ApiError && error.code === 'not_enough_history')) throw error
          draw(fit, `Not enough reviews to fit to yet: ${error.message}.`)
        }
        document.getElementById('fit-outcome')?.focus()
      })
    }, { class: 'primary', id: 'optimize-schedule' })
    const useDefaults = current.fitted === 'true'
      ? button('Use the default parameters again', () => {
        act(useDefaults, async () => {
          const answer = await callApi('reset-schedule', { reschedule: reschedule.checked })
          current = answer
          draw(answer.lastFit, `Your reviews are scheduled with the default parameters again.${answer.rescheduled === '0' ? '' : ` ${Number(answer.rescheduled).toLocaleString()} cards got new due dates.`}`)
        })
      }, { id: 'use-defaults' })
      : null
    const choose = (retention: string): void => {
      act(null, async () => {
        const profile = await callApi('update-settings', { desiredRetention: Number(retention) })
        current = { ...current, desiredRetention: profile.desiredRetention }
        retentionChosen(profile.desiredRetention)
        draw(fit, null)
        showNotice(`Desired retention set to ${profile.desiredRetention}.`)
      })
    }
    replaceChildren(section, [
      el('h2', { id: 'schedule-heading' }, ['Your memory model']),
      el('p', { id: 'schedule-in-use' }, [inUseText(current)]),
      el('p', { class: 'hint' }, [
        `Fitting reads your review history (it takes at least ${Number(current.minimumItems).toLocaleString()} reviews of cards on a later day than their review before) ` +
        'and keeps the fitted parameters only if they predict your reviews better than the defaults, judged on reviews they were not fitted to.'
      ]),
      el('label', { class: 'check-row' }, [reschedule, ' Also give my studied cards new due dates with the parameters I end up with']),
      el('div', { class: 'button-row' }, [optimize, useDefaults]),
      outcome === null ? null : el('p', { id: 'fit-outcome', class: 'fit-outcome', tabindex: -1 }, [outcome]),
      fit === undefined ? null : figuresTable(fit),
      fit === undefined ? null : workloadTable(fit, current.desiredRetention, newCardsPerDay, choose)
    ])
  }
  draw(status.lastFit, null)
  return section
}
