"""Imports two .apkg files, one after the other, into one new collection with Anki's own backend
(PyPI `anki`), learning progress included, and prints as JSON what the collection held after each:
its decks, notes and cards with their ids, and what the second import's log said. The test of
export-anki's ids (test/anki/export-ids-pypi-anki.test.ts) runs it in .tools/anki-fixtures-venv.

    python import_twice.py FIRST.apkg SECOND.apkg

LICENCE NOTE: PyPI's `anki` is AGPL-3.0. It is a tool the tests run; nothing of it is copied into,
linked with or shipped by the service, which never runs it.
"""

import json
import os
import sys
import tempfile

from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest


def state(col: Collection) -> dict:
    notes = {}
    for note_id in col.find_notes(''):
        notes[col.get_note(note_id).guid] = note_id
    cards = {}
    for card_id in col.find_cards(''):
        card = col.get_card(card_id)
        cards[f'{card.note().guid}/{card.ord}'] = card_id
    return {
        'decks': {deck.name: deck.id for deck in col.decks.all_names_and_ids()},
        'notes': notes,
        'cards': cards,
        'noteCount': col.note_count(),
        'cardCount': col.card_count(),
    }


def imported(col: Collection, package: str) -> dict:
    log = col.import_anki_package(ImportAnkiPackageRequest(
        package_path=package, options=ImportAnkiPackageOptions(with_scheduling=True, merge_notetypes=False))).log
    return {'new': len(log.new), 'updated': len(log.updated), 'duplicate': len(log.duplicate),
            'conflicting': len(log.conflicting), 'missingNotetype': len(log.missing_notetype)}


def main(first: str, second: str):
    with tempfile.TemporaryDirectory() as folder:
        col = Collection(os.path.join(folder, 'collection.anki2'))
        first_log = imported(col, first)
        after_first = state(col)
        second_log = imported(col, second)
        after_second = state(col)
        col.close()
    json.dump({'first': first_log, 'afterFirst': after_first, 'second': second_log, 'afterSecond': after_second}, sys.stdout, ensure_ascii=False)


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
