import { Type, type Static } from '@sinclair/typebox'
import { Id, JwtToken, StringEnum } from './common.js'
import { CardDetails } from './library-manage.js'

// ---- what to study

export const StudyQueueBody = Type.Object({
  jwtToken: JwtToken,
  folderID: Type.Optional(Id),
  flashcardID: Type.Optional(Id)
}, { description: 'folderID: study that folder and everything below it; flashcardID: study that flashcard; neither: the whole library (the cards of get-today-cards). Not both' })
export type StudyQueueBody = Static<typeof StudyQueueBody>

const Left = (what: string) => Type.String({ description: `how many ${what} are left today in this queue of cards` })

export const StudyCounts = Type.Object({
  new: Left('new cards'),
  learning: Left('learning and relearning cards'),
  review: Left('review cards')
}, { description: 'the three numbers of a study header (as Anki\'s): the cards of `cards` by queue' })

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
    description: 'in the order to study them: learning and review cards most overdue first, then new cards in creation order; ' +
      'within what the daily limits leave today across the whole library'
  })
})
