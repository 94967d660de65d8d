"""Imports an .apkg into the collection a deck came from, with Anki's own backend (PyPI `anki`) and
the options Anki's import dialog starts with (notes and note types updated when newer, note types
not merged), learning progress included; prints what the collection held before and after, as JSON.
The test of the way back (test/anki/round-trip-pypi-anki.test.ts) runs it in .tools/anki-fixtures-venv.

    python round_trip.py ORIGINAL.colpkg PACKAGE.apkg

ORIGINAL.colpkg is the whole collection (Anki's "collection package"), restored afresh each run.

LICENCE NOTE: PyPI's `anki` is AGPL-3.0. It is a tool the tests run; nothing of it is copied into,
linked with or shipped by the service, which never runs it.
"""

import json
import os
import sys
import tempfile

from anki._backend import RustBackend
from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest


def state(col: Collection) -> dict:
    notes = {}
    for note_id in col.find_notes(''):
        note = col.get_note(note_id)
        notes[note.guid] = {'id': note.id, 'notetype': note.note_type()['name'], 'fields': list(note.fields),
                            'tags': note.tags, 'mod': note.mod}
    cards = {}
    for card_id in col.find_cards(''):
        card = col.get_card(card_id)
        cards[f'{card.note().guid}/{card.ord}'] = {'id': card.id, 'queue': card.queue, 'type': card.type,
                                                  'flags': card.flags, 'reps': card.reps,
                                                  'revlog': col.db.scalar('select count() from revlog where cid = ?', card_id)}
    return {
        'notes': notes,
        # the notes by guid hide two of one guid: counted apart
        'noteCount': col.note_count(),
        'cardCount': col.card_count(),
        'cards': cards,
        'notetypes': sorted(name_id.name for name_id in col.models.all_names_and_ids()),
        'revlogCount': col.db.scalar('select count() from revlog'),
        'revlogIds': col.db.scalar('select count(distinct id) from revlog'),
    }


def restored(original: str, folder: str) -> tuple[Collection, str]:
    path = os.path.join(folder, 'collection.anki2')
    media = os.path.join(folder, 'collection.media')
    os.mkdir(media)
    RustBackend().import_collection_package(col_path=path, backup_path=original, media_folder=media,
                                            media_db=os.path.join(folder, 'collection.media.db2'))
    return Collection(path), media


def main(original: str, package: str):
    # what Check Database would repair in the original itself, untouched
    with tempfile.TemporaryDirectory() as folder:
        col, _ = restored(original, folder)
        problems_before = col.fix_integrity()[0].splitlines()
        col.close()
    with tempfile.TemporaryDirectory() as folder:
        col, media = restored(original, folder)
        before = state(col)
        result = col.import_anki_package(ImportAnkiPackageRequest(
            package_path=package, options=ImportAnkiPackageOptions(with_scheduling=True)))
        log = result.log
        after = state(col)
        out = {
            'before': before,
            'after': after,
            'imported': {'new': len(log.new), 'updated': len(log.updated), 'duplicate': len(log.duplicate),
                         'conflicting': len(log.conflicting), 'missingNotetype': len(log.missing_notetype)},
            'media': sorted(os.listdir(media)),
            # Anki's Check Database: what it would have to repair after the import, and in the original
            'problems': col.fix_integrity()[0].splitlines(),
            'problemsBefore': problems_before,
        }
        col.close()
    json.dump(out, sys.stdout, ensure_ascii=False)


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
