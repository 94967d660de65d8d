// Progress: XP, streak and cards by state (get-stats), the heatmap of reviews per
// day, and goals with their progress (update-goal-status) to create, edit and delete.
import { callApi } from '../api.js'
import type { Goal, GoalType, Profile, Stats } from '../api-types.js'
import { addDays, fromInputDate, fromServiceDate, inputDate, localDate, serviceDate, userToday, type CalendarDay } from '../calendar.js'
import { button, confirmButton, el, field, figure, plural, replaceChildren } from '../dom.js'
import { act, actionForm, submitButton } from '../forms.js'
import { reportFailure, showNotice } from '../messages.js'
import { heatmap } from './heatmap.js'
import type { Screen } from './screen.js'

interface ProgressData { profile: Profile, stats: Stats, goals: Record<string, Goal>, today: CalendarDay }

/**
 * Reads everything again and redraws. `focusOn`, after an action on goals: the goal to put
 * the focus on (its title), or null for the Goals heading (the goal is gone).
 */
type Reload = (focusOn?: string | null) => Promise<void>

export const showProgress: Screen = (container) => {
  const figures = el('section', { class: 'panel', 'aria-labelledby': 'stats-heading' }, [el('h2', { id: 'stats-heading' }, ['Your numbers'])])
  const activity = el('section', { class: 'panel', 'aria-labelledby': 'heatmap-heading' }, [el('h2', { id: 'heatmap-heading' }, ['Reviews in the last year'])])
  const goals = el('section', { class: 'panel', 'aria-labelledby': 'goals-heading' }, [el('h2', { id: 'goals-heading', tabindex: -1 }, ['Goals'])])
  container.append(el('h1', { tabindex: -1 }, ['Progress']), figures, activity, goals)
  let onScreen = true

  const reload: Reload = async (focusOn) => {
    const [profile, stats, goalMap] = await Promise.all([callApi('get-user', {}), callApi('get-stats', {}), callApi('update-goal-status', {})])
    if (!onScreen) return
    const data = { profile, stats, goals: goalMap, today: userToday(profile.timezone, Number(profile.dayStartHour)) }
    drawFigures(figures, stats)
    replaceChildren(activity, [activity.firstChild, heatmap(stats.heatmap, data.today)])
    drawGoals(goals, data, reload)
    if (focusOn !== undefined) {
      (goals.querySelector<HTMLElement>(`[data-goal-id="${focusOn}"] .goal-title`) ?? goals.querySelector<HTMLElement>('h2'))?.focus()
    }
  }

  figures.append(el('p', { class: 'loading' }, ['Loading your progress…']))
  reload().catch(reportFailure)
  return () => { onScreen = false }
}

function drawFigures (section: HTMLElement, stats: Stats): void {
  replaceChildren(section, [
    section.firstChild,
    el('dl', { class: 'figures' }, [
      figure('Total XP', stats.total_xp, 'stat-total-xp'),
      figure('XP this week', stats.weekly_xp, 'stat-weekly-xp'),
      figure('Streak', plural(Number(stats.streak), 'day'), 'stat-streak'),
      figure('Cards', stats.cards.total, 'stat-cards')
    ]),
    el('p', { class: 'hint' }, [
      `${stats.cards.new} new, ${stats.cards.learning} learning, ${stats.cards.review} in review, ${stats.cards.relearning} relearning.`
    ])
  ])
}

function drawGoals (section: HTMLElement, data: ProgressData, reload: Reload): void {
  const entries = Object.entries(data.goals)
  // goals still running first, then the soonest end date
  entries.sort(([, a], [, b]) => Number(b.status === 'in progress') - Number(a.status === 'in progress') ||
    dayNumber(a.end_date) - dayNumber(b.end_date))
  replaceChildren(section, [
    section.firstChild,
    entries.length === 0
      ? el('p', { class: 'empty' }, ['No goals yet. Set one below: cards to revise or XP to gain by a day you choose.'])
      : el('ul', { class: 'goal-list', id: 'goal-list' }, entries.map(([goalID, goal]) => goalItem(goalID, goal, data, reload))),
    createGoalForm(data, reload)
  ])
}

function dayNumber (date: string): number {
  const day = fromServiceDate(date)
  return day === null ? 0 : Date.UTC(day.year, day.month - 1, day.day)
}

const XP_PER_REVIEW = 10

/** How far a goal has come: done and target, in its own unit. */
function goalProgress (goal: Goal, data: ProgressData): { done: number, target: number, text: string } {
  if ('cards_to_revise' in goal.data) {
    const done = Number(goal.data.cards_revised_so_far)
    const target = Number(goal.data.cards_to_revise)
    return { done, target, text: `${done} of ${plural(target, 'card')} revised` }
  }
  // As the service counts it: the XP gained since the goal was created, the total less
  // starting_xp, without the XP gained after end_date (which cannot meet the goal, and is
  // there only for a goal looked at later). get-stats' heatmap gives the reviews per day in
  // the user's calendar, at 10 XP each, to take that off.
  const target = Number(goal.data.goal_xp)
  const end = dayNumber(goal.end_date)
  let afterEnd = 0
  for (const [date, reviews] of Object.entries(data.stats.heatmap)) {
    if (dayNumber(date) > end) afterEnd += Number(reviews) * XP_PER_REVIEW
  }
  const done = Math.max(0, Number(data.stats.total_xp) - Number(goal.data.starting_xp) - afterEnd)
  return { done, target, text: `${done} of ${target} XP gained` }
}

/**
 * The goal's title in the page's words and date format: the service's title says the same
 * with its DD/MM/YYYY, which is for the wire.
 */
function goalTitle (goal: Goal): string {
  const end = fromServiceDate(goal.end_date)
  const by = end === null ? goal.end_date : localDate(end)
  return 'cards_to_revise' in goal.data
    ? `Revise ${plural(Number(goal.data.cards_to_revise), 'card')} by ${by}`
    : `Gain ${goal.data.goal_xp} XP by ${by}`
}

function statusText (goal: Goal): string {
  if (goal.status === 'failed') {
    const failed = fromServiceDate(goal.fail_date)
    return failed === null ? 'Failed' : `Failed on ${localDate(failed)}`
  }
  return goal.status === 'completed' ? 'Completed' : 'In progress'
}

function goalItem (goalID: string, goal: Goal, data: ProgressData, reload: Reload): HTMLElement {
  const progress = goalProgress(goal, data)
  const end = fromServiceDate(goal.end_date)
  const item = el('li', { class: `goal goal-${goal.status.replace(' ', '-')}`, 'data-goal-id': goalID })
  const progressId = `goal-progress-${goalID}`
  const title = goalTitle(goal)
  /** Shows the goal; after an edit left unsaved, the focus goes back to its Edit button. */
  const showGoal = (focusEdit = false) => {
    const edit = goal.status === 'in progress' && button('Edit', editGoal, { 'aria-label': `Edit goal: ${title}` })
    replaceChildren(item, [
      el('div', { class: 'goal-head' }, [
        el('h3', { class: 'goal-title', tabindex: -1 }, [title]),
        el('span', { class: 'goal-status' }, [statusText(goal)])
      ]),
      el('progress', { max: Math.max(1, progress.target), value: Math.min(progress.done, progress.target), 'aria-labelledby': progressId }),
      el('p', { class: 'goal-progress', id: progressId }, [
        // the day it ends is in its title
        progress.text
      ]),
      el('div', { class: 'button-row' }, [
        // completed and failed are final: the service refuses to edit them
        edit,
        confirmButton('Delete', `Delete the goal "${title}"?`, (yes) => {
          act(yes, async () => {
            await callApi('delete-goal', { goalID })
            showNotice('Goal deleted.')
            await reload(null)
          })
        }, { 'aria-label': `Delete goal: ${title}` })
      ])
    ])
    if (focusEdit && edit !== false) edit.focus()
  }
  const editGoal = () => {
    const target = el('input', { type: 'number', min: 1, max: 1000000, step: 1, required: true, value: progress.target })
    const endDate = el('input', { type: 'date', required: true, min: inputDate(data.today), value: end === null ? '' : inputDate(end) })
    const cancel = button('Cancel', () => { showGoal(true) })
    replaceChildren(item, [
      el('h3', { class: 'goal-title', tabindex: -1 }, [title]),
      actionForm({ class: 'inline-form' }, [
        field(goal.type === 'Card' ? 'Cards to revise' : 'XP to gain', target),
        field('By', endDate),
        el('div', { class: 'button-row' }, [submitButton('Save goal', true), cancel])
      ], async () => {
        const day = fromInputDate(endDate.value)
        if (day === null) throw new Error('Choose the day the goal ends.')
        await callApi('edit-goal', { goalID, target: Number(target.value), end_date: serviceDate(day) })
        showNotice('Goal saved.')
        await reload(goalID)
      })
    ])
    target.focus()
  }
  showGoal()
  return item
}

function createGoalForm (data: ProgressData, reload: Reload): HTMLFormElement {
  const type = el('select', {}, [el('option', { value: 'Card' }, ['Cards to revise']), el('option', { value: 'XP' }, ['XP to gain'])])
  const target = el('input', { type: 'number', min: 1, max: 1000000, step: 1, required: true, value: 50 })
  // a week is a reasonable first horizon; any day from today on is allowed
  const endDate = el('input', { type: 'date', required: true, min: inputDate(data.today), value: inputDate(addDays(data.today, 7)) })
  return actionForm({ class: 'panel-section create-goal-form', id: 'create-goal-form', 'aria-labelledby': 'new-goal-heading' }, [
    el('h3', { id: 'new-goal-heading' }, ['New goal']),
    el('div', { class: 'field-row' }, [field('Kind of goal', type), field('Target', target), field('By', endDate)]),
    submitButton('Create goal', true)
  ], async () => {
    const day = fromInputDate(endDate.value)
    if (day === null) throw new Error('Choose the day the goal ends.')
    const created = await callApi('create-goal', { type: type.value as GoalType, target: Number(target.value), end_date: serviceDate(day) })
    showNotice(`Goal created: ${goalTitle(created.goal)}.`)
    await reload(created.goalID)
  })
}
