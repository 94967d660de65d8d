import { Type, type Static } from '@sinclair/typebox'
import { Id, JwtToken, StringEnum } from './common.js'
import { MAX_CARDS_PER_PAGE, MAX_CARDS_PER_REQUEST, MAX_PAGE_BYTES } from '../domain/limits.js'
import { CardBack, CardFront, CardText, ClozeText, Name, TextFormat } from './library.js'
import { LibraryTree } from './study.js'
import { SelectedCards } from './card-states.js'

export const PARENT_ID_PATTERN = '^([0-9]{30,64})?$'

const Path = Type.Array(Type.String(), { description: 'folder names from the top' })

const Count = (what: string) => Type.String({ description: `how many ${what}` })

// ---- folders

export const RenameFolderBody = Type.Object({ jwtToken: JwtToken, folderID: Id, name: Name })
export type RenameFolderBody = Static<typeof RenameFolderBody>

export const MoveFolderBody = Type.Object({
  jwtToken: JwtToken,
  folderID: Id,
  parentID: Type.Optional(Type.String({
    pattern: PARENT_ID_PATTERN,
    description: 'the folder to move into; "" or absent for the top level'
  }))
})
export type MoveFolderBody = Static<typeof MoveFolderBody>

export const FolderBody = Type.Object({ jwtToken: JwtToken, folderID: Id })
export type FolderBody = Static<typeof FolderBody>

export const PlacedFolder = Type.Object({
  folderID: Id,
  path: Type.Array(Type.String(), { description: 'where the folder now is: names from the top, its own last' })
})

/** Present on the answer to a deletion past one transaction of cards that was not over when answered. */
const DeletionUnderWay = Type.Optional(Type.Literal('true', {
  description: 'present when the deletion (past 500 cards, a batch to a transaction) was still going on when the answer came: it goes on behind the answer, and the counts are of what is being deleted; get-library shows it gone once it is over'
}))

export const DeletedFolder = Type.Object({
  folderID: Id,
  folders: Count('folders were deleted, the folder itself included'),
  flashcards: Count('flashcards were deleted'),
  cards: Count('cards were deleted; their reviews stay in the log'),
  underWay: DeletionUnderWay
})

// ---- flashcards

export const FlashcardBody = Type.Object({ jwtToken: JwtToken, flashcardID: Id })
export type FlashcardBody = Static<typeof FlashcardBody>

export const PAGE_LIMITS = `at most ${MAX_CARDS_PER_PAGE.toLocaleString('en')} cards and ${MAX_PAGE_BYTES / 1024 / 1024} MiB of their JSON (always at least one card)`

/** Where a page of cards begins: after the last card of the page that gave it. */
export const Cursor = (description: string) => Type.String({ minLength: 1, maxLength: 512, description })

export const NextCursor = Type.String({
  description: 'present only when more cards follow this page: send it back as cursor for the next page; absent on the last page'
})

export const GetFlashcardBody = Type.Object({
  jwtToken: JwtToken,
  flashcardID: Id,
  cursor: Type.Optional(Cursor('the nextCursor of the previous answer, as it came (opaque): the page after it; absent: the first page')),
  cardIDs: Type.Optional(Type.Array(Id, {
    minItems: 1,
    maxItems: MAX_CARDS_PER_PAGE,
    description: `only these cards of the flashcard (1 to ${MAX_CARDS_PER_PAGE.toLocaleString('en')} ids), in creation order; an id of no card of the flashcard is left out. ` +
      'Paged as the whole flashcard is: send the same cardIDs with the cursor'
  }))
})
export type GetFlashcardBody = Static<typeof GetFlashcardBody>

/** A card's content as every read gives it. */
export const CardContent = {
  front: Type.String({ description: 'as written; for a card of a cloze note, the note\'s cloze text' }),
  back: Type.String({ description: 'as written; for a card of a cloze note, its back extra' }),
  format: TextFormat,
  frontHtml: Type.String({ description: 'the front as sanitized HTML to show (plain text escaped, line breaks <br>), media as signed addresses; of a cloze card, the question' }),
  backHtml: Type.String({ description: 'the back as sanitized HTML to show; of a cloze card, the whole answer (the deletion in <span class="cloze">), then the back extra' }),
  noteID: Type.String({ description: 'the note the card is one card of (get-note, edit-note, delete-note); a card of a front and a back made here is a note of its own, under the card\'s id' }),
  ord: Type.String({ description: 'which card of its note it is, as Anki counts them from 0: its card template, or its cloze number less one' }),
  clozeNumber: Type.Optional(Type.String({ description: 'the number of the cloze note\'s deletions this card asks for; only for a card of a cloze note' })),
  noteTypeID: Type.Optional(Type.String({ description: 'the note type (get-note-types) an Anki import made the card from, whose CSS styles it; absent for a card made here' }))
}

/** A card's standing beside its schedule, as every read of a card's content gives it. */
export const CardStanding = {
  suspended: StringEnum(['true', 'false'] as const, { description: '"true": suspended, never in today\'s cards until unsuspended (its schedule kept)' }),
  flag: Type.String({ description: 'Anki\'s flag: "0" none, "1" red, "2" orange, "3" green, "4" blue, "5" pink, "6" turquoise, "7" purple; a label only' }),
  buriedUntil: Type.Optional(Type.String({ description: 'DD/MM/YYYY, while the card is buried: the day it comes back to today\'s cards; absent when not buried' }))
}

export const CardDetails = Type.Object({
  cardID: Id,
  ...CardContent,
  review_status: Type.String({ description: '"0.0" never reviewed, "0.N" learning step N, "D.0" in review every D days' }),
  last_review: Type.String({ description: 'DD/MM/YYYY in the user\'s calendar; the creation day for a card never reviewed' }),
  due: Type.String({ description: 'ISO-8601 UTC instant' }),
  ...CardStanding,
  stability: Type.Optional(Type.String({ description: 'the card\'s memory stability in days (FSRS), as Anki\'s card info shows it; absent for a new card' })),
  difficulty: Type.Optional(Type.String({ description: 'the card\'s difficulty, 1 to 10 (FSRS); absent for a new card' })),
  retrievability: Type.Optional(Type.String({ description: 'the chance, 0 to 1, of recalling the card now (FSRS, with the user\'s parameters); absent for a new card' })),
  tags: Type.Optional(Type.Array(Type.String(), { description: 'the tags of the Anki note the card was imported from, as Anki had them; absent when it had none' }))
})

export const Flashcard = Type.Object({
  flashcardID: Id,
  flashcardName: Type.String(),
  description: Type.String(),
  folder: Path,
  cards: Type.Array(CardDetails, { description: `a page of the flashcard's cards in creation order: ${PAGE_LIMITS}; the next page follows nextCursor` }),
  nextCursor: Type.Optional(NextCursor)
})

export const RenameFlashcardBody = Type.Object({ jwtToken: JwtToken, flashcardID: Id, name: Name })
export type RenameFlashcardBody = Static<typeof RenameFlashcardBody>

export const RenamedFlashcard = Type.Object({ flashcardID: Id, flashcardName: Type.String() })

export const MoveFlashcardBody = Type.Object({ jwtToken: JwtToken, flashcardID: Id, folderID: Id })
export type MoveFlashcardBody = Static<typeof MoveFlashcardBody>

export const MovedFlashcard = Type.Object({ flashcardID: Id, folderID: Id, folder: Path })

export const DeletedFlashcard = Type.Object({
  flashcardID: Id,
  cards: Count('cards were deleted; their reviews stay in the log'),
  underWay: DeletionUnderWay
})

// ---- cards

export const AddCardsBody = Type.Object({
  jwtToken: JwtToken,
  flashcardID: Id,
  cards: Type.Array(CardText, { minItems: 1, maxItems: MAX_CARDS_PER_REQUEST, description: `1 to ${MAX_CARDS_PER_REQUEST} cards a request, a cloze note counting one for each number` })
})
export type AddCardsBody = Static<typeof AddCardsBody>

export const AddedCards = Type.Object({ cardIDs: Type.Array(Id, { description: 'in the order given' }) })

export const EditCardBody = Type.Object({
  jwtToken: JwtToken,
  flashcardID: Id,
  cardID: Id,
  front: Type.Optional(CardFront),
  back: Type.Optional(CardBack),
  cloze: Type.Optional(ClozeText),
  format: Type.Optional(TextFormat)
}, {
  description: 'a card: front, back, format, or any of them; a card of a cloze note: cloze, back, format, which change the whole note. Cards keep their schedules'
})
export type EditCardBody = Static<typeof EditCardBody>

const CardIDs = (what: string) => Type.Array(Id, { description: what })

export const EditedNote = Type.Object({
  noteID: Id,
  cards: Type.Array(CardDetails, { description: 'every card of the note as it now is, by number' }),
  kept: CardIDs('the cards whose number is still in the text: they keep their schedules'),
  added: CardIDs('new cards, for the numbers new in the text'),
  removed: CardIDs('the cards whose number is gone from the text, deleted')
}, { description: 'the answer to an edit of a card of a cloze note' })

export const EditedCard = Type.Union([CardDetails, EditedNote], {
  description: 'a card as it now is; or, for a card of a cloze note, the note as it now is and what the edit kept, added and removed'
})

export const CardBody = Type.Object({ jwtToken: JwtToken, flashcardID: Id, cardID: Id })
export type CardBody = Static<typeof CardBody>

export const DeletedCard = Type.Object({ flashcardID: Id, cardID: Id })

export const DeleteCardsBody = Type.Object({ jwtToken: JwtToken, cards: SelectedCards('deleted') })
export type DeleteCardsBody = Static<typeof DeleteCardsBody>

export const DeletedCards = Type.Object({
  deleted: Type.String({ description: 'how many cards were deleted: every card named, each once' })
})

export const MoveCardsBody = Type.Object({ jwtToken: JwtToken, cards: SelectedCards('moved'), toFlashcardID: Id })

export const MovedCards = Type.Object({
  moved: Type.String({ description: 'how many cards moved: every card named, each once, and the other cards of a cloze note made here that one of them is of' }),
  toFlashcardID: Id
})

export const AllCardsBody = Type.Object({
  jwtToken: JwtToken,
  content: Type.Optional(Type.Boolean({
    description: 'true: each card also gives its content, as get-flashcard does (front, back, format, frontHtml, backHtml; noteID and clozeNumber ' +
      'for a card of a cloze note), and the answer is a page {library, nextCursor?}. Default false: the tree itself, each card {last_review, review_status} only, ' +
      'as before, which is several times less to read and send'
  })),
  cursor: Type.Optional(Cursor('with content: true only: the nextCursor of the previous page, as it came (opaque); absent: the first page'))
})

/** A page of get-all-cards with content. */
export const LibraryPage = Type.Object({
  library: LibraryTree,
  nextCursor: Type.Optional(NextCursor)
}, {
  description: `get-all-cards with content: true: library is the tree of the library (as without content), holding only this page's cards, with their content: ${PAGE_LIMITS}, ` +
    'the library\'s cards in creation order. The first page holds every folder and flashcard, those without cards of the page too; ' +
    'the next pages only those that hold their cards. Merge the pages\' trees to have the whole library'
})

/** get-all-cards answers the tree itself without content, a page of it with content. */
export const AllCardsAnswer = Type.Union([LibraryTree, LibraryPage], { description: 'without content: the tree; with content: true, a page {library, nextCursor?}' })

// ---- the library with its ids

export const LibraryBody = Type.Object({ jwtToken: JwtToken })

/** What studying a part of the library today would give (get-study-queue), within the daily limits left across the whole library. */
const StudiedToday = {
  due: Count('learning and review cards due before the end of the user\'s day studying it would give, within the reviews left today (reviewsPerDay less those done)'),
  new: Count('new cards studying it would give, within the new cards left today (newCardsPerDay less those started)')
}

export const FlashcardOutline = Type.Object({
  flashcardID: Id,
  flashcardName: Type.String(),
  description: Type.String(),
  cards: Count('cards the flashcard holds'),
  ...StudiedToday
})

export const FolderOutline = Type.Recursive((Folder) => Type.Object({
  folderID: Id,
  name: Type.String(),
  ...StudiedToday,
  folders: Type.Array(Folder),
  flashcards: Type.Array(FlashcardOutline)
}), { $id: 'FolderOutline' })
export type FolderOutline = Static<typeof FolderOutline>

export const LibraryOutline = Type.Object({
  ...StudiedToday,
  folders: Type.Array(FolderOutline, { description: 'the top-level folders, in the order they were made; each with its folders and flashcards' })
})

export const NoteTypesBody = Type.Object({ jwtToken: JwtToken })

export const NoteType = Type.Object({
  noteTypeID: Id,
  name: Type.String(),
  kind: StringEnum(['standard', 'cloze'] as const, { description: 'standard: a card for each template; cloze: a card for each cloze number' }),
  fields: Type.Array(Type.String(), { description: 'the fields\' names, in Anki\'s order' }),
  templates: Type.Array(Type.Object({ name: Type.String(), front: Type.String(), back: Type.String() }), { description: 'the card templates in Anki\'s template syntax, in Anki\'s order' }),
  css: Type.String({ description: 'the CSS its cards are styled with, as Anki had it' }),
  sortField: Type.String({ description: 'the index in fields of the field Anki sorts and shows its notes by' }),
  rendering: Type.Optional(Type.Literal('true', { description: 'present while its cards are being rendered again after edit-note-type, behind its answer' }))
})

export const NoteTypes = Type.Object({
  noteTypes: Type.Array(NoteType, { description: 'by name' })
})

const NoteTypeName = Type.String({ minLength: 1, maxLength: 200, description: 'the note type\'s name, as Anki shows it; two of an account cannot share one' })
const FieldName = Type.String({ minLength: 1, maxLength: 200, description: 'a field\'s name, as templates name it ({{Name}}): none of : " { }, not starting with # / ^' })
const TemplateSides = {
  name: Type.String({ minLength: 1, maxLength: 200, description: 'the card template\'s name (Anki\'s "Card 1", "Card 2"...)' }),
  front: Type.String({ maxLength: 100_000, description: 'the question, in Anki\'s template syntax: {{Field}}, {{#Field}}…{{/Field}}, {{cloze:Field}}, {{type:Field}}, {{hint:Field}}…' }),
  back: Type.String({ maxLength: 100_000, description: 'the answer, in the same syntax; {{FrontSide}} shows the question' })
}
const NoteTypeCss = Type.String({ maxLength: 100_000, description: 'the CSS the note type\'s cards are styled with, confined to the card on the study page' })
const SortField = Type.Integer({ minimum: 0, maximum: 99, description: 'the index in fields of the field the card browser shows and sorts notes by' })

export const CreateNoteTypeBody = Type.Object({
  jwtToken: JwtToken,
  name: NoteTypeName,
  kind: Type.Optional(StringEnum(['standard', 'cloze'] as const, { description: 'standard (the default): a card for each template its fields fill; cloze: one template, a card for each cloze number' })),
  fields: Type.Array(FieldName, { minItems: 1, maxItems: 100 }),
  templates: Type.Array(Type.Object(TemplateSides), { minItems: 1, maxItems: 100 }),
  css: Type.Optional(NoteTypeCss),
  sortField: Type.Optional(SortField)
})

export const EditNoteTypeBody = Type.Object({
  jwtToken: JwtToken,
  noteTypeID: Type.String({ minLength: 1, maxLength: 64, description: 'one of get-note-types' }),
  name: Type.Optional(NoteTypeName),
  fields: Type.Optional(Type.Array(Type.Object({
    name: FieldName,
    from: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'the field it continues, renamed: its text in every note is kept under the new name' }))
  }), {
    minItems: 1,
    maxItems: 100,
    description: 'every field, in the new order: one of a name the note type has continues that field, one of a new name is a new field (empty in every note); a field left out is dropped'
  })),
  templates: Type.Optional(Type.Array(Type.Object({
    ...TemplateSides,
    from: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'the template it continues, renamed: its cards stay, with their schedules' }))
  }), {
    minItems: 1,
    maxItems: 100,
    description: 'every card template, in the new order, continued as fields are: a new one makes the cards its notes\' fields fill; one left out is dropped with its cards'
  })),
  css: Type.Optional(NoteTypeCss),
  sortField: Type.Optional(SortField),
  confirm: Type.Optional(Type.Boolean({ description: 'go ahead although the change drops a field that holds text, or a template that has cards (which are deleted); without it such a change answers 409 note_type_in_use' }))
})

export const NoteTypeEdited = Type.Object({
  ...NoteType.properties,
  notes: Type.String({ description: 'how many notes of it were rendered again before the answer' }),
  underWay: Type.Optional(Type.Literal('true', { description: 'present when the cards of a change of template text or names are still being rendered again, behind the answer (as many notes as the account holds: a batch of 500 at a time); a card not yet rendered shows the old template until then' })),
  added: Type.Array(Id, { description: 'cards made for templates the change added, new, in the flashcard of each note\'s first card' }),
  removed: Type.Array(Id, { description: 'cards of templates the change dropped, deleted (a note whose last card they were with them)' })
})

export const DeleteNoteTypeBody = Type.Object({
  jwtToken: JwtToken,
  noteTypeID: Type.String({ minLength: 1, maxLength: 64, description: 'one of get-note-types' }),
  confirm: Type.Optional(Type.Boolean({ description: 'delete a note type that has notes, with every note and card of it; without it, such a note type answers 409 note_type_in_use' }))
})

export const NoteTypeDeleted = Type.Object({
  noteTypeID: Type.String(),
  removed: Type.Array(Id, { description: 'the cards deleted with its notes' })
})

export const NoteBody = Type.Object({ jwtToken: JwtToken, noteID: Id })

const NoteFields = Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Type.String({ maxLength: 100_000 }), {
  maxProperties: 100,
  description: 'the fields by the note type\'s field names, each HTML as Anki keeps it (media named as in the package, or media:<mediaID>)'
})

const NoteTags = Type.Array(Type.String({ minLength: 1, maxLength: 100, pattern: '^[^\\s]+$' }), { maxItems: 100, description: 'the note\'s tags, each without spaces, as Anki keeps them' })

export const Note = Type.Object({
  noteID: Id,
  noteTypeID: Id,
  fields: NoteFields,
  tags: NoteTags,
  cardIDs: Type.Array(Id, { description: 'the note\'s cards, by template (or cloze number)' })
})

export const EditNoteBody = Type.Object({
  jwtToken: JwtToken,
  noteID: Id,
  fields: Type.Optional(NoteFields),
  tags: Type.Optional(NoteTags)
})

export const NoteEdited = Type.Object({
  noteID: Id,
  cardIDs: Type.Array(Id, { description: 'the note\'s cards, each rendered again from the fields, schedules kept' }),
  added: Type.Array(Id, { description: 'cards the edit added: one for each template (or cloze number) a field it filled made a card of, new, at the end of the flashcard of the note\'s first card' }),
  removed: Type.Array(Id, { description: 'cards the edit removed: none, as Anki keeps a card whose template or number is left empty' })
})

export const AddNoteBody = Type.Object({
  jwtToken: JwtToken,
  flashcardID: Id,
  noteTypeID: Type.String({ minLength: 1, maxLength: 64, description: 'one of get-note-types' }),
  fields: NoteFields,
  tags: Type.Optional(NoteTags)
})

export const AddedNote = Type.Object({
  noteID: Id,
  cardIDs: Type.Array(Id, { description: 'the cards the note makes, by template (or cloze number)' })
})

export const DeletedNote = Type.Object({
  noteID: Id,
  cardIDs: Type.Array(Id, { description: 'the cards deleted with it' })
})
