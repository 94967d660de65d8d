// A learner who forgot their password, in Chromium: "Forgot password?" on the login screen
// asks for a link, the link arrives on a real SMTP server the test runs, opens the page's
// reset screen, sets the password once and logs in, every other session ended; then a new
// email, asked for in Settings and confirmed by the link mailed to it. The two reset screens
// at 1280 and 375 px; with STUDY_PAGE_SCREENSHOTS=1 they are written to docs/
// (study-page-forgot-password.png, study-page-reset-password.png and their -375 twins).
import { test } from 'tap'
import { expectOk, post } from './helpers/app.js'
import { linkIn, startMailbox } from './helpers/mailbox.js'
import { click, docsScreenshot, freePort, openStudyPage, pageIsNoWiderThan, seriousAxeViolations, withoutChromium } from './helpers/study-page.js'

const BROWSER_TEST = { skip: withoutChromium, timeout: 110_000 }
const PASSWORD = 'correct horse battery'
const NEW_PASSWORD = 'a fresh start at last'

test('forgot password: a link by mail, the reset screen, logged in with the new password', BROWSER_TEST, async (t) => {
  const mailbox = await startMailbox(t)
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const study = await openStudyPage(t, import.meta.filename, { mail: { smtpUrl: mailbox.url, from: 'Flashcards <no-reply@example.com>', publicUrl: base } }, port)
  const { page, app } = study
  const { email } = await expectOk<{ email: string }>(app, 'get-user', { jwtToken: study.token })
  const otherDevice = (await expectOk<{ jwtToken: string }>(app, 'login', { email, password: PASSWORD })).jwtToken

  await click(page, '#logout-button')
  await page.waitForSelector('#login-form')
  await click(page, '#forgot-password-link')
  await page.waitForSelector('#forgot-password-form')
  t.equal(await page.evaluate(() => location.hash), '#/forgot-password', 'the form has an address of its own')
  await page.type('#forgot-password-form input[type="email"]', email)
  await click(page, '#forgot-password-form button[type="submit"]')
  const sent = await page.waitForSelector('#reset-mail-sent')
  t.match(await sent?.evaluate((element) => element.textContent), `If an account has the email ${email}, a mail with a link to choose a new password is on its way`,
    'the page says a mail was sent if the account exists, as the service answers alike either way')

  const mail = await mailbox.mailAfter(0)
  t.same(mail.to, [email])
  const { link } = linkIn(mail)
  t.match(link, `${base}/#/reset-password?token=`, 'the link opens the study page\'s reset screen')

  await page.goto(link, { waitUntil: 'load' })
  await page.waitForSelector('#reset-password-form')
  t.ok(await page.$eval('#main-nav', (nav) => (nav as HTMLElement).hidden), 'no menu on the reset screen')
  const [password, again] = await page.$$('#reset-password-form input[type="password"]')
  await password?.type(NEW_PASSWORD)
  await again?.type('a fresh start at least')
  await click(page, '#reset-password-form button[type="submit"]')
  await page.waitForFunction(() => /differ/.test(document.querySelector('#reset-problem')?.textContent ?? ''))
  t.pass('two different passwords are caught before anything is sent')
  t.equal(await post(app, 'login', { email, password: PASSWORD }).then((response) => response.statusCode), 200, 'and the password is as it was')

  await again?.click({ count: 3 })
  await again?.type(NEW_PASSWORD)
  await click(page, '#reset-password-form button[type="submit"]')
  await page.waitForSelector('#main-nav a[data-screen="library"][aria-current="page"]', { visible: true })
  t.equal(await page.evaluate(() => location.hash), '#/library', 'logged in, at the library, the token gone from the address')
  const session = await page.evaluate(() => JSON.parse(localStorage.getItem('flashcards.session') ?? 'null') as { jwtToken: string } | null)
  t.equal((await post(app, 'get-user', { jwtToken: session?.jwtToken })).statusCode, 200, 'the page holds a working token')
  t.equal((await post(app, 'get-user', { jwtToken: otherDevice })).statusCode, 401, 'the other device is logged out')
  t.equal((await post(app, 'login', { email, password: NEW_PASSWORD })).statusCode, 200, 'the new password logs in')

  // the same link again: it worked once
  await page.goto(link, { waitUntil: 'load' })
  await page.waitForSelector('#reset-password-form')
  const fields = await page.$$('#reset-password-form input[type="password"]')
  for (const field of fields) await field.type('yet another password')
  await click(page, '#reset-password-form button[type="submit"]')
  await page.waitForFunction(() => /used already/.test(document.querySelector('#reset-problem')?.textContent ?? ''))
  t.ok(await page.$eval('a[href="#/forgot-password"]', (element) => (element.parentElement as HTMLElement).hidden === false), 'a used link offers to ask for a new one')
  // the browser's own line for the refused request is the one error the page may show in its console
  t.same(study.consoleErrors.filter((line) => !/status of 410/.test(line)), [], 'no error in the page')

  // a new email, from Settings: confirmed by the link mailed to it, which the page opens
  await page.goto(`${base}/#/settings`, { waitUntil: 'load' })
  await page.waitForSelector('#main-nav a[data-screen="settings"][aria-current="page"]', { visible: true })
  await page.waitForSelector('#change-email-form')
  await page.type('#change-email-form input[type="email"]', 'ada.lovelace@example.com')
  await page.type('#change-email-form input[type="password"]', NEW_PASSWORD)
  await click(page, '#change-email-form button[type="submit"]')
  await page.waitForFunction(() => /mailed to ada\.lovelace@example\.com/.test(document.querySelector('#notice-message')?.textContent ?? ''))
  const confirmation = await mailbox.mailAfter(1)
  t.same(confirmation.to, ['ada.lovelace@example.com'])
  await page.goto(linkIn(confirmation).link, { waitUntil: 'load' })
  await page.waitForFunction(() => /email is now ada\.lovelace@example\.com/.test(document.querySelector('#email-change-result')?.textContent ?? ''))
  t.equal(await page.evaluate(() => location.hash), '#/', 'the used token is gone from the address')
  t.equal((await post(app, 'login', { email: 'ada.lovelace@example.com', password: NEW_PASSWORD })).statusCode, 200, 'the new email logs in')

  // the two screens, as a learner meets them, at both widths
  await page.evaluate(() => { localStorage.clear() })
  for (const width of [1280, 375]) {
    const suffix = width === 1280 ? '' : '-375'
    await page.setViewport({ width, height: width === 1280 ? 900 : 800 })
    await page.goto(`${base}/#/forgot-password`, { waitUntil: 'load' })
    await page.waitForSelector('#forgot-password-form')
    await page.type('#forgot-password-form input[type="email"]', 'ada@example.com')
    t.ok(await pageIsNoWiderThan(page, width), `the forgot-password form fits ${width} px`)
    t.same(await seriousAxeViolations(page), [], `the forgot-password form at ${width} px: no serious accessibility violation`)
    await docsScreenshot(page, `study-page-forgot-password${suffix}.png`)

    await page.goto(link, { waitUntil: 'load' })
    await page.waitForSelector('#reset-password-form')
    for (const field of await page.$$('#reset-password-form input[type="password"]')) await field.type(NEW_PASSWORD)
    t.ok(await pageIsNoWiderThan(page, width), `the reset screen fits ${width} px`)
    t.same(await seriousAxeViolations(page), [], `the reset screen at ${width} px: no serious accessibility violation`)
    await docsScreenshot(page, `study-page-reset-password${suffix}.png`)
  }
})
