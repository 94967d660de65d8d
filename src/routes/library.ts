import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { TOP_LEVEL } from '../domain/library-tree.js'
import { MAX_CARDS_PER_PAGE, MAX_PAGE_BYTES } from '../domain/limits.js'
import { refusals } from '../schemas/common.js'
import { CreatedFlashcard, CreatedFolder, CreateFlashcardBody, CreateFolderBody } from '../schemas/library.js'
import {
  AddCardsBody, AddedCards, AllCardsAnswer, AllCardsBody, CardBody, DeleteCardsBody, DeletedCard, DeletedCards, DeletedFlashcard, DeletedFolder,
  EditCardBody, EditedCard, Flashcard, FlashcardBody, FolderBody, GetFlashcardBody, LibraryBody, LibraryOutline, MovedFlashcard, MoveFlashcardBody, MoveFolderBody,
  AddedNote, AddNoteBody, CreateNoteTypeBody, DeleteNoteTypeBody, EditNoteTypeBody, NoteType, NoteTypeDeleted, NoteTypeEdited, DeletedNote, MoveCardsBody, MovedCards, EditNoteBody, Note, NoteBody, NoteEdited, NoteTypes, NoteTypesBody, PlacedFolder, RenamedFlashcard, RenameFlashcardBody, RenameFolderBody
} from '../schemas/library-manage.js'
import { JSON_TEXT } from '../schemas/study.js'
import { Refusal } from '../domain/refusals.js'

const library: FastifyPluginAsyncTypebox = async (app) => {
  const { library, notes } = app.services

  app.post('/create-folder', {
    schema: {
      summary: 'Create a folder, with any missing parents',
      tags: ['library'],
      body: CreateFolderBody,
      response: { 201: CreatedFolder, ...refusals(409) }
    }
  }, async (request, reply) => reply.code(201).send(await library.createFolder(request.account._id, request.body.path)))

  app.post('/create-flashcard', {
    schema: {
      summary: 'Create a flashcard (a set of cards) in an existing folder',
      tags: ['library'],
      body: CreateFlashcardBody,
      response: { 201: CreatedFlashcard, ...refusals(404, 409) }
    }
  }, async (request, reply) => {
    const { folder, flashcardName, description = '', cards } = request.body
    return reply.code(201).send(await library.createFlashcard(request.account._id, { folder, flashcardName, description, cards }))
  })

  app.post('/rename-folder', {
    schema: {
      summary: 'Rename a folder',
      tags: ['library'],
      body: RenameFolderBody,
      response: { 200: PlacedFolder, ...refusals(404, 409) }
    }
  }, async (request) => await library.renameFolder(request.account._id, request.body.folderID, request.body.name))

  app.post('/move-folder', {
    schema: {
      summary: 'Move a folder, with everything in it, into another folder or to the top level',
      description: 'Never into itself or its own subfolders (400); 409 when the destination already holds a folder or flashcard of its name.',
      tags: ['library'],
      body: MoveFolderBody,
      response: { 200: PlacedFolder, ...refusals(404, 409) }
    }
  }, async (request) => await library.moveFolder(request.account._id, request.body.folderID, request.body.parentID ?? TOP_LEVEL))

  app.post('/delete-folder', {
    schema: {
      summary: 'Delete a folder with its subfolders, flashcards and cards',
      description: 'The review log keeps the reviews of the deleted cards, so statistics and goals do not change.',
      tags: ['library'],
      body: FolderBody,
      response: { 200: DeletedFolder, ...refusals(404) }
    }
  }, async (request) => await library.deleteFolder(request.account._id, request.body.folderID))

  app.post('/get-flashcard', {
    schema: {
      summary: 'A flashcard with its folder path and its cards, text and schedule, a page at a time',
      description: `A page holds at most ${MAX_CARDS_PER_PAGE.toLocaleString('en')} cards and ${MAX_PAGE_BYTES / 1024 / 1024} MiB of them, in creation order; ` +
        'nextCursor, present while more follow, asks for the next page. A card added or deleted between two pages makes no other card come twice or go missing. ' +
        '400 invalid_field for a cursor this service did not give for this flashcard.',
      tags: ['library'],
      body: GetFlashcardBody,
      response: { 200: Flashcard, ...refusals(404) }
    }
  }, async (request) => {
    const { flashcardID, cursor, cardIDs } = request.body
    return await library.getFlashcard(request.account, flashcardID, { cursor, cardIDs })
  })

  app.post('/rename-flashcard', {
    schema: {
      summary: 'Rename a flashcard',
      tags: ['library'],
      body: RenameFlashcardBody,
      response: { 200: RenamedFlashcard, ...refusals(404, 409) }
    }
  }, async (request) => await library.renameFlashcard(request.account._id, request.body.flashcardID, request.body.name))

  app.post('/move-flashcard-set', {
    schema: {
      summary: 'Move a flashcard, with its cards, into another folder',
      tags: ['library'],
      body: MoveFlashcardBody,
      response: { 200: MovedFlashcard, ...refusals(404, 409) }
    }
  }, async (request) => await library.moveFlashcard(request.account._id, request.body.flashcardID, request.body.folderID))

  app.post('/delete-flashcard', {
    schema: {
      summary: 'Delete a flashcard with its cards',
      description: 'The review log keeps the reviews of the deleted cards, so statistics and goals do not change.',
      tags: ['library'],
      body: FlashcardBody,
      response: { 200: DeletedFlashcard, ...refusals(404) }
    }
  }, async (request) => await library.deleteFlashcard(request.account._id, request.body.flashcardID))

  app.post('/add-cards', {
    schema: {
      summary: 'Add new cards to a flashcard',
      tags: ['library'],
      body: AddCardsBody,
      response: { 201: AddedCards, ...refusals(404, 409) }
    }
  }, async (request, reply) => reply.code(201).send(await library.addCards(request.account._id, request.body.flashcardID, request.body.cards)))

  app.post('/edit-card', {
    schema: {
      summary: 'Change the text or format of a card, or of a cloze note; cards keep their schedules',
      description: 'A card: front, back, format. A card of a cloze note: cloze, back, format, which change the whole note in one transaction: ' +
        'its cards whose number is still in the text keep their schedules, those whose number is gone are deleted, a new number gets a new card; ' +
        'the answer is then the note, with the ids kept, added and removed.',
      tags: ['library'],
      body: EditCardBody,
      response: { 200: EditedCard, ...refusals(404, 409) }
    }
  }, async (request) => await library.editCard(request.account, request.body))

  app.post('/delete-card', {
    schema: {
      summary: 'Delete one card',
      description: 'The review log keeps its reviews, so statistics and goals do not change. ' +
        'A card of a cloze note takes its deletion out of the note\'s text (the answer stays as text); the note\'s other cards keep their schedules.',
      tags: ['library'],
      body: CardBody,
      response: { 200: DeletedCard, ...refusals(404) }
    }
  }, async (request) => await library.deleteCard(request.account._id, request.body.flashcardID, request.body.cardID))

  app.post('/delete-cards', {
    schema: {
      summary: 'Delete many cards at once (the card browser\'s selection), all or nothing',
      description: 'Each card goes as delete-card takes one: its reviews stay in the log, and a card of a cloze note takes its deletion out of the note\'s text. ' +
        'A card that is not the user\'s in the flashcard named refuses the whole request with 404, and no card is deleted.',
      tags: ['library'],
      body: DeleteCardsBody,
      response: { 200: DeletedCards, ...refusals(404) }
    }
  }, async (request) => await library.deleteCards(request.account._id, request.body.cards))

  app.post('/move-cards', {
    schema: {
      summary: 'Move cards into another flashcard (the card browser\'s selection), all or nothing',
      description: 'Each card keeps its schedule, standing and history. A card of a cloze note made here takes the note\'s other cards with it; a card of an Anki note moves alone, as in Anki. ' +
        'A card that is not the user\'s in the flashcard named, or a destination that is not the user\'s, refuses the whole request with 404, and no card moves.',
      tags: ['library'],
      body: MoveCardsBody,
      response: { 200: MovedCards, ...refusals(404) }
    }
  }, async (request) => await library.moveCards(request.account._id, request.body.cards, request.body.toFlashcardID))

  app.post('/get-note-types', {
    schema: {
      summary: 'The account\'s note types (those Anki imports brought, those it defined, Anki\'s stock ones): fields, card templates and CSS',
      description: 'A card an Anki import made names its note type (noteTypeID) in every read of its content; the study page styles the card with the note type\'s CSS, confined to the card.',
      tags: ['library'],
      body: NoteTypesBody,
      response: { 200: NoteTypes }
    }
  }, async (request) => await notes.noteTypes(request.account._id))

  app.post('/create-note-type', {
    schema: {
      summary: 'Define a note type: its fields, card templates in Anki\'s template syntax, and CSS',
      description: 'Anki\'s rules hold: fields a template can name, each of its own name; each template\'s front names a field; a cloze note type has one template of {{cloze:Field}}. ' +
        'Its notes are added with add-note; export-anki writes it under an Anki id of its own.',
      tags: ['library'],
      body: CreateNoteTypeBody,
      response: { 201: NoteType, ...refusals(409) }
    }
  }, async (request, reply) => {
    const { jwtToken, ...definition } = request.body
    void jwtToken
    return reply.code(201).send(await notes.createNoteType(request.account._id, definition))
  })

  app.post('/edit-note-type', {
    schema: {
      summary: 'Change a note type: name, fields, card templates, CSS; every note and card of it follows',
      description: 'Every card of it is rendered again by its template and keeps its schedule. A change that drops a field holding text, or a template that has cards, answers 409 note_type_in_use ' +
        'unless confirm is true. A stock note type the account has no note of is kept from then on. Anki takes an edited note type at the next export only when its fields and templates keep their names and number ' +
        '(otherwise Anki keeps it as a second note type, as for any change of schema).',
      tags: ['library'],
      body: EditNoteTypeBody,
      response: { 200: NoteTypeEdited, ...refusals(404, 409) }
    }
  }, async (request) => {
    const { jwtToken, noteTypeID, confirm, ...change } = request.body
    void jwtToken
    if (Object.keys(change).length === 0) throw new Refusal('nothing_to_change', 'body names none of "name", "fields", "templates", "css" and "sortField": send what to change')
    return await library.editNoteType(request.account._id, noteTypeID, change, confirm === true)
  })

  app.post('/delete-note-type', {
    schema: {
      summary: 'Delete a note type; one with notes only with confirm, its notes and cards with it',
      description: 'Each card goes as delete-card takes one: its reviews stay in the log.',
      tags: ['library'],
      body: DeleteNoteTypeBody,
      response: { 200: NoteTypeDeleted, ...refusals(404, 409) }
    }
  }, async (request) => await library.deleteNoteType(request.account._id, request.body.noteTypeID, request.body.confirm === true))

  app.post('/add-note', {
    schema: {
      summary: 'Add a note of one of the account\'s note types to a flashcard, with the cards its fields make',
      description: 'fields is keyed by the note type\'s field names (get-note-types); a field left out is empty. The note makes a card for each template whose question its fields fill ' +
        '(Anki\'s rule: a template that names only empty fields makes none), or for each cloze number of a cloze note type; one that makes none is refused.',
      tags: ['library'],
      body: AddNoteBody,
      response: { 201: AddedNote, ...refusals(404, 409) }
    }
  }, async (request, reply) => reply.code(201).send(await notes.addNote(request.account._id, request.body)))

  app.post('/delete-note', {
    schema: {
      summary: 'Delete a note with every card of it',
      description: 'Each card goes as delete-card takes one: its reviews stay in the log.',
      tags: ['library'],
      body: NoteBody,
      response: { 200: DeletedNote, ...refusals(404) }
    }
  }, async (request) => await library.deleteNote(request.account._id, request.body.noteID))

  app.post('/get-note', {
    schema: {
      summary: 'A note: its note type, fields, tags and cards',
      description: 'Every card names its note (noteID) in every read of its content. A note an Anki import brought or add-note made: each card of it is made from these fields by the note type\'s template. ' +
        'A card of a front and a back made here is a note of Basic under its own id, a cloze note made here one of Cloze: their fields are the cards\' sides as HTML.',
      tags: ['library'],
      body: NoteBody,
      response: { 200: Note, ...refusals(404) }
    }
  }, async (request) => await notes.getNote(request.account._id, request.body.noteID))

  app.post('/edit-note', {
    schema: {
      summary: 'Change a note\'s fields or tags: every card of it shows the change and keeps its schedule',
      description: 'The fields named change and the others stay; tags, when given, replace the note\'s. Each card is rendered again from the fields by its template, and the note counts as changed now, ' +
        'so that export-anki brings the change to the Anki note it came from.',
      tags: ['library'],
      body: EditNoteBody,
      response: { 200: NoteEdited, ...refusals(404, 409) }
    }
  }, async (request) => await library.editNote(request.account, request.body))

  app.post('/get-library', {
    schema: {
      summary: 'The folders and flashcards with their ids, card counts, and the cards each would give to study today',
      description: 'What a client needs to rename, move or delete a folder or flashcard: the tree of get-all-cards is keyed by names and gives no folder ids. ' +
        'due and new, for the whole library, each folder and each flashcard: the learning and review cards due before the day ends and the new cards that studying it today gives, ' +
        'within the daily limits left across the whole library (as get-study-queue would give them).',
      tags: ['library'],
      body: LibraryBody,
      response: { 200: LibraryOutline }
    }
  }, async (request) => await library.outline(request.account))

  app.post('/get-all-cards', {
    schema: {
      summary: 'The whole library as a tree, every card included',
      description: 'The shape of the published tree (docs/interface.md) (as get-today-cards), with every folder and flashcard: an empty folder is {}, a flashcard without cards has cards {}. ' +
        'With content: true, each card also gives its text and the HTML to show, and the answer is a page {library, nextCursor?}: ' +
        `library holds at most ${MAX_CARDS_PER_PAGE.toLocaleString('en')} cards and ${MAX_PAGE_BYTES / 1024 / 1024} MiB of them; nextCursor, present while more follow, asks for the next page.`,
      tags: ['library'],
      body: AllCardsBody,
      response: { 200: AllCardsAnswer }
    }
  }, async (request, reply) => {
    const { content, cursor } = request.body
    return reply.type(JSON_TEXT).send(await library.allCards(request.account, { content: content === true, cursor }))
  })
}

export default library
