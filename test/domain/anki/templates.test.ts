import { test } from 'tap'
import { clozeNumbers, encodeAttribute, revealCloze } from '../../../src/domain/anki/cloze.js'
import { renderCard, stripHtml, TemplateError } from '../../../src/domain/anki/templates.js'
import { cardFor, deckName, expected, readFixture } from '../../helpers/anki.js'

test('every card of the fixture renders to the question and answer Anki rendered', async (t) => {
  const { pkg } = await readFixture('collection.apkg')
  const collection = pkg.collection
  const notetypes = new Map(collection.notetypes.map((notetype) => [notetype.id, notetype]))
  const notes = new Map(collection.notes.map((note) => [note.id, note]))
  const decks = new Map(collection.decks.map((deck) => [deck.id, deckName(deck)]))
  for (const want of expected.cards) {
    const card = cardFor(collection, want)
    const note = notes.get(card.noteId)
    const notetype = notetypes.get(note?.notetypeId ?? -1)
    if (note === undefined || notetype === undefined) throw new Error('card without note or note type')
    const template = notetype.cloze ? notetype.templates[0] : notetype.templates.find((candidate) => candidate.ord === card.ord)
    if (template === undefined) throw new Error('no template')
    const rendered = renderCard({
      fieldNames: notetype.fields.map((field) => field.name),
      fieldValues: note.fields,
      questionFormat: template.questionFormat,
      answerFormat: template.answerFormat,
      cloze: notetype.cloze,
      cardOrd: card.ord,
      tags: note.tags,
      notetypeName: notetype.name,
      deckName: decks.get(card.deckId) ?? '',
      templateName: template.name,
      flags: card.flags,
      cardId: card.id
    })
    const label = `${notetype.name}: ${want.label ?? want.noteGuid}/${want.ord}`
    t.equal(rendered.question, want.question, `${label}: question`)
    t.equal(rendered.answer, want.answer, `${label}: answer`)
    t.notOk(rendered.empty, `${label}: not empty`)
  }
})

test('each note type of the issue is among those rendered', async (t) => {
  const names = new Set(Object.values(expected.notes).map((note) => note.notetype))
  for (const name of ['Basic', 'Basic (and reversed card)', 'Basic (optional reversed card)', 'Basic (type in the answer)', 'Cloze', 'Custom filters']) {
    t.ok(names.has(name), name)
  }
  t.match(expected.customTemplates.front, /\{\{#Extra\}\}[\s\S]*\{\{\^Extra\}\}[\s\S]*\{\{hint:Hint\}\}[\s\S]*\{\{text:Back\}\}/)
  t.match(expected.customTemplates.back, /\{\{FrontSide\}\}/)
})

const basic = {
  fieldNames: ['Front', 'Back', 'Add Reverse'],
  questionFormat: '{{#Add Reverse}}{{Back}}{{/Add Reverse}}',
  answerFormat: '{{FrontSide}}<hr id=answer>{{Front}}',
  cloze: false,
  cardOrd: 1,
  tags: [],
  notetypeName: 'Basic (optional reversed card)',
  deckName: 'Default',
  templateName: 'Card 2'
}

test('an optional reverse card with the field empty renders empty, as Anki would not make it', async (t) => {
  t.ok(renderCard({ ...basic, fieldValues: ['front', 'back', ''] }).empty)
  t.ok(renderCard({ ...basic, fieldValues: ['front', 'back', ' <br> '] }).empty, 'whitespace and <br> count as empty')
  t.notOk(renderCard({ ...basic, fieldValues: ['front', 'back', 'y'] }).empty)
})

test('a cloze card whose number the note lacks renders empty', async (t) => {
  const card = { ...basic, fieldNames: ['Text'], questionFormat: '{{cloze:Text}}', answerFormat: '{{cloze:Text}}', cloze: true }
  t.ok(renderCard({ ...card, fieldValues: ['{{c1::only one}}'], cardOrd: 1 }).empty)
  t.notOk(renderCard({ ...card, fieldValues: ['{{c1::only one}}'], cardOrd: 0 }).empty)
})

test('a template naming a missing field, or with an unclosed conditional, is a TemplateError', async (t) => {
  t.throws(() => renderCard({ ...basic, questionFormat: '{{Nope}}', fieldValues: ['a', 'b', 'c'] }), TemplateError)
  t.throws(() => renderCard({ ...basic, questionFormat: '{{#Front}}x', fieldValues: ['a', 'b', 'c'] }), TemplateError)
})

test('cloze: numbers, hints, the same number twice, c0, several numbers in one', async (t) => {
  t.same([...clozeNumbers('{{c2::te}}{{c1::s}}t{{')].sort(), [1, 2])
  t.same([...clozeNumbers('{{c0::te}}s{{c2::t}}s')], [2])
  t.equal(revealCloze('{{c1::one}} {{c2::two::hint}}', 1, true),
    '<span class="cloze" data-cloze="one" data-ordinal="1">[...]</span> <span class="cloze-inactive" data-ordinal="2">two</span>')
  t.equal(stripHtml(revealCloze('{{c1::one}} {{c2::two::hint}}', 2, true)), 'one [hint]')
  t.equal(revealCloze('{{c1::one}} {{c2::two::hint}}', 3, true), '')
  t.equal(stripHtml(revealCloze('{{c1,2::both}}', 2, true)), '[...]')
})

test('attributes are encoded as Anki encodes them', async (t) => {
  // what Anki 26.09's backend rendered for {{c1::a <b>="c"/d-e é 'q' & ü ẞ}}
  t.equal(encodeAttribute('a <b>="c"/d-e é \'q\' & ü ẞ'),
    'a&#x20;&lt;b&gt;&#x3D;&quot;c&quot;&#x2F;d&#x2D;e&#x20;&#xE9;&#x20;&#x27;q&#x27;&#x20;&amp;&#x20;&#xFC;&#x20;ẞ')
})
