// Settings: the user's name, time zone and daily limits (get-user, update-settings),
// their memory model (schedule-fit.ts), a new email (change-email: confirmed by a mailed
// link, views/mailed-links.ts), the note types (note-types.ts) and logging out on every device
// (logout-everywhere).
import { callApi } from '../api.js'
import type { Profile, SettingsChange } from '../api-types.js'
import { confirmButton, el, field, replaceChildren } from '../dom.js'
import { act, actionForm, submitButton } from '../forms.js'
import { reportFailure, showNotice } from '../messages.js'
import { noteTypesSection } from './note-types.js'
import { scheduleSection } from './schedule-fit.js'
import type { Screen } from './screen.js'

export const showSettings: Screen = (container, { signOut }) => {
  const body = el('div', {}, [el('p', { class: 'loading' }, ['Loading your settings…'])])
  container.append(el('h1', { tabindex: -1 }, ['Settings']), body)
  let onScreen = true
  Promise.all([callApi('get-user', {}), callApi('get-schedule', {})]).then(([profile, schedule]) => {
    if (!onScreen) return
    const form = settingsForm(profile)
    const chosen = (retention: string): void => {
      const input = form.querySelector<HTMLInputElement>('#desired-retention')
      if (input !== null) input.value = retention
    }
    replaceChildren(body, [form, scheduleSection(schedule, profile.newCardsPerDay, chosen), noteTypesSection(), accountSection(profile, signOut)])
  }, reportFailure)
  return () => { onScreen = false }
}

function timeZones (): string[] {
  // every zone this browser knows, to suggest while typing; the service has the final word
  return typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : []
}

function settingsForm (profile: Profile): HTMLFormElement {
  const displayName = el('input', { type: 'text', required: true, maxlength: 100, value: profile.displayName, autocomplete: 'nickname' })
  const zoneList = el('datalist', { id: 'time-zones' }, timeZones().map((zone) => el('option', { value: zone })))
  const timezone = el('input', { type: 'text', required: true, value: profile.timezone, list: 'time-zones', autocomplete: 'off', spellcheck: false })
  const dayStartHour = el('select', {}, Array.from({ length: 24 }, (_, hour) =>
    el('option', { value: hour, selected: String(hour) === profile.dayStartHour }, [`${String(hour).padStart(2, '0')}:00`])))
  const newCardsPerDay = el('input', { type: 'number', min: 0, max: 9999, step: 1, required: true, value: profile.newCardsPerDay })
  const reviewsPerDay = el('input', { type: 'number', min: 0, max: 99999, step: 1, required: true, value: profile.reviewsPerDay })
  const desiredRetention = el('input', { type: 'number', id: 'desired-retention', min: 0.7, max: 0.99, step: 0.01, required: true, value: profile.desiredRetention })
  // Anki's three sibling options: the other cards of a note answered wait for the next day
  const bury = (id: string, on: string) => el('input', { type: 'checkbox', id, checked: on === 'true' })
  const buryNewSiblings = bury('bury-new-siblings', profile.buryNewSiblings)
  const buryReviewSiblings = bury('bury-review-siblings', profile.buryReviewSiblings)
  const buryInterdayLearningSiblings = bury('bury-interday-learning-siblings', profile.buryInterdayLearningSiblings)

  return actionForm({ class: 'panel stacked-form settings-form', id: 'settings-form', 'aria-labelledby': 'settings-heading' }, [
    el('h2', { id: 'settings-heading' }, ['Study settings']),
    field('Name', displayName),
    field('Time zone', timezone, 'An IANA name such as Europe/Paris. Your days, streaks and goals follow it.'),
    zoneList,
    field('New day starts at', dayStartHour, 'Reviews before this hour count for the day before, as in Anki.'),
    el('div', { class: 'field-row' }, [
      field('New cards a day', newCardsPerDay),
      field('Reviews a day', reviewsPerDay)
    ]),
    field('Desired retention', desiredRetention, 'The share of cards you aim to remember when they come back, 0.70 to 0.99. Higher means more reviews: "Your memory model" below says how many.'),
    el('fieldset', { class: 'plain-fieldset sibling-settings', 'aria-describedby': 'sibling-settings-hint' }, [
      el('legend', {}, ['Cards of one note']),
      el('p', { class: 'hint', id: 'sibling-settings-hint' }, ['When you answer a card, the other cards of its note (a cloze note\'s, or an Anki note\'s reverse) wait until the next day, as in Anki:']),
      el('label', { class: 'check-row' }, [buryNewSiblings, ' Bury new siblings']),
      el('label', { class: 'check-row' }, [buryReviewSiblings, ' Bury review siblings']),
      el('label', { class: 'check-row' }, [buryInterdayLearningSiblings, ' Bury interday learning siblings'])
    ]),
    submitButton('Save settings', true)
  ], async () => {
    const change: SettingsChange = {
      displayName: displayName.value,
      timezone: timezone.value.trim(),
      dayStartHour: Number(dayStartHour.value),
      newCardsPerDay: Number(newCardsPerDay.value),
      reviewsPerDay: Number(reviewsPerDay.value),
      desiredRetention: Number(desiredRetention.value),
      buryNewSiblings: buryNewSiblings.checked,
      buryReviewSiblings: buryReviewSiblings.checked,
      buryInterdayLearningSiblings: buryInterdayLearningSiblings.checked
    }
    const saved = await callApi('update-settings', change)
    desiredRetention.value = saved.desiredRetention
    showNotice('Settings saved.')
  })
}

function accountSection (profile: Profile, signOut: (notice: string) => void): HTMLElement {
  return el('section', { class: 'panel', 'aria-labelledby': 'account-heading' }, [
    el('h2', { id: 'account-heading' }, ['Account']),
    el('p', {}, [`Logged in as ${profile.email}.`]),
    emailForm(profile),
    el('div', { class: 'danger-zone' }, [
      el('p', { class: 'hint' }, ['Log out everywhere ends every session of this account, on this device and all others.']),
      confirmButton('Log out everywhere', 'End every session of this account, here and on your other devices?', (yes) => {
        act(yes, async () => {
          await callApi('logout-everywhere', {})
          signOut('You are logged out on every device.')
        })
      })
    ])
  ])
}

/** Asks for a new email: a link mailed to it confirms it, and until then the account keeps its email. */
function emailForm (profile: Profile): HTMLFormElement {
  const newEmail = el('input', { type: 'email', name: 'email', autocomplete: 'email', required: true })
  const password = el('input', { type: 'password', name: 'password', autocomplete: 'current-password', required: true })
  const form = actionForm({ id: 'change-email-form', 'aria-labelledby': 'change-email-heading' }, [
    el('h3', { id: 'change-email-heading' }, ['Change email']),
    el('div', { class: 'field-row' }, [field('New email', newEmail), field('Password', password, 'Your current password.')]),
    submitButton('Mail a link to the new email')
  ], async () => {
    const requested = await callApi('change-email', { newEmail: newEmail.value, password: password.value })
    form.reset()
    showNotice(`A link to confirm it was mailed to ${requested.newEmail}; your email stays ${profile.email} until you open it, within an hour.`)
  })
  return form
}
