// The one place where stored values become the strings of the wire format.
import type { FastifyReply } from 'fastify'
import { displayDayOf, type UserCalendar } from '../domain/calendar.js'
import type { CardLeaf, FlashcardNode, FolderNode } from '../domain/library-tree.js'
import { reviewStatus, type CardSchedule } from '../domain/scheduling.js'
import type { LibraryNodeDocument } from '../repositories/library.js'
import { TOP_LEVEL } from '../repositories/library.js'
import type { UserDocument } from '../repositories/users.js'

export function calendarOf (user: UserDocument): UserCalendar {
  return { timezone: user.timezone, dayStartHour: user.dayStartHour }
}

/** DD/MM/YYYY of the user-day an instant falls in. */
export function displayDay (instant: Date, calendar: UserCalendar): string {
  return displayDayOf(instant, calendar)
}

/** A card as the tree shows it; a card never reviewed shows its creation day. */
export function cardLeaf (card: Pick<CardSchedule, 'state' | 'learningSteps' | 'scheduledDays' | 'lastReview'> & { _id: string, flashcardID: string, createdAt: Date }, calendar: UserCalendar): CardLeaf {
  return {
    id: card._id,
    flashcardID: card.flashcardID,
    last_review: displayDay(card.lastReview ?? card.createdAt, calendar),
    review_status: reviewStatus(card)
  }
}

export function treeNodes (nodes: readonly LibraryNodeDocument[]): { folders: FolderNode[], flashcards: FlashcardNode[] } {
  const folders: FolderNode[] = []
  const flashcards: FlashcardNode[] = []
  for (const node of nodes) {
    if (node.kind === 'folder') {
      folders.push({ id: node._id, parentID: node.parentID === TOP_LEVEL ? null : node.parentID, name: node.name })
    } else {
      flashcards.push({ id: node._id, folderID: node.parentID, name: node.name })
    }
  }
  return { folders, flashcards }
}

/** JSON the route wrote itself (a tree from treeJson): sent as it is, not serialised again. */
export function jsonText (reply: FastifyReply, json: string): string {
  void reply.type('application/json; charset=utf-8')
  return json
}
