import { Type, type Static } from '@sinclair/typebox'
import { Id, JwtToken, StringEnum } from './common.js'
import { CardDetails, Cursor, NextCursor, PAGE_LIMITS } from './library-manage.js'

// ---- what to study

export const StudyQueueBody = Type.Object({
  jwtToken: JwtToken,
  folderID: Type.Optional(Id),
  flashcardID: Type.Optional(Id),
  cursor: Type.Optional(Cursor('the nextCursor of the previous answer, as it came (opaque), with the same folderID or flashcardID: the cards of the queue after ' +
    'the previous page\'s, as the queue is now (those given and not yet answered are not given again); absent: the first page. ' +
    'One given on an earlier day of the user gives today\'s first page'))
}, { description: 'folderID: study that folder and everything below it; flashcardID: study that flashcard; neither: the whole library (the cards of get-today-cards). Not both' })
export type StudyQueueBody = Static<typeof StudyQueueBody>

const Left = (what: string) => Type.String({ description: `how many ${what} are left today in this queue of cards` })

const queueCounts = (description: string) => Type.Object({
  new: Left('new cards'),
  learning: Left('learning and relearning cards'),
  review: Left('review cards')
}, { description })

export const StudyCounts = queueCounts('the three numbers of a study header (as Anki\'s): the cards of the whole queue by queue, not only this page\'s')

export const StudyQueueCard = Type.Object({
  flashcardID: Id,
  flashcardName: Type.String(),
  folder: Type.Array(Type.String(), { description: 'the path of the folder holding the flashcard' }),
  queue: StringEnum(['new', 'learning', 'review'] as const, { description: 'which of the counts the card is in' }),
  ...CardDetails.properties
})

export const StudyQueue = Type.Object({
  counts: StudyCounts,
  cards: Type.Array(StudyQueueCard, {
    description: `a page of the queue, ${PAGE_LIMITS}, in the order to study them: learning and review cards most overdue first, then new cards by card type (every note's first card, then every second), then creation order; ` +
      'within what the daily limits leave today across the whole library'
  }),
  countsAfter: Type.Optional(queueCounts('present only with nextCursor: the cards of the queue after this page\'s, by queue, as the next pages would give them now')),
  nextCursor: Type.Optional(NextCursor)
})
