"""Imports an .apkg into a fresh Anki collection with Anki's own backend (PyPI `anki`), as a learner's
Anki would, and prints what Anki then holds, as JSON: the test of export-anki compares it with what
the service holds (test/anki/export-pypi-anki.test.ts runs it in .tools/anki-fixtures-venv).

    python import_export.py PACKAGE.apkg ROLLOVER_HOUR [presets]

With `presets`, the import takes the package's deck options presets too ("Import any deck presets").

The caller sets TZ to the learner's time zone: Anki counts days in the machine's.

LICENCE NOTE: PyPI's `anki` is AGPL-3.0. It is a tool the tests run; nothing of it is copied into,
linked with or shipped by the service, which never runs it.
"""

import hashlib
import json
import os
import sys
import tempfile
import time

from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest


def main(package: str, rollover: int, with_presets: bool):
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, 'collection.anki2')
        col = Collection(path)
        col.set_config('rollover', rollover)
        col.close()
        # opened again, so that its days are counted with that rollover from the start
        col = Collection(path)
        result = col.import_anki_package(ImportAnkiPackageRequest(
            package_path=package,
            options=ImportAnkiPackageOptions(with_scheduling=True, with_deck_configs=with_presets, merge_notetypes=False)))
        log = result.log
        cards = []
        for card_id in sorted(col.find_cards('')):
            card = col.get_card(card_id)
            note = card.note()
            memory = card.memory_state
            cards.append({
                'guid': note.guid, 'ord': card.ord, 'deck': col.decks.name(card.did),
                'type': card.type, 'queue': card.queue, 'due': card.due, 'interval': card.ivl,
                'factor': card.factor, 'reps': card.reps, 'lapses': card.lapses, 'flags': card.flags,
                'memory': None if memory is None else {'stability': memory.stability, 'difficulty': memory.difficulty},
                'revlog': col.db.list('select ease from revlog where cid = ? order by id', card_id),
            })
        notes = {}
        for note_id in col.find_notes(''):
            note = col.get_note(note_id)
            notes[note.guid] = {'notetype': note.note_type()['name'], 'fields': list(note.fields)}
        media_dir = col.media.dir()
        media = {}
        for name in sorted(os.listdir(media_dir)):
            with open(os.path.join(media_dir, name), 'rb') as f:
                media[name] = hashlib.sha256(f.read()).hexdigest()
        out = {
            'now': time.time(),
            'today': col.sched.today,
            'imported': {'new': len(log.new), 'updated': len(log.updated), 'duplicate': len(log.duplicate),
                         'conflicting': len(log.conflicting), 'missingNotetype': len(log.missing_notetype)},
            'decks': sorted(deck.name for deck in col.decks.all_names_and_ids()),
            # each deck's preset: its name, desired retention and FSRS-6 parameters
            'presets': {deck.name: {key: config.get(key) for key in ('name', 'desiredRetention', 'fsrsParams6')}
                        for deck in col.decks.all_names_and_ids()
                        for config in [col.decks.config_dict_for_deck_id(deck.id)]},
            'notes': notes,
            # the notes by guid hide two of one guid: counted apart
            'noteCount': col.note_count(),
            'cards': cards,
            'revlogCount': col.db.scalar('select count() from revlog'),
            'media': media,
            # Anki's Check Database: what it would have to repair in what was imported
            'problems': col.fix_integrity()[0].splitlines(),
        }
        col.close()
    json.dump(out, sys.stdout, ensure_ascii=False)


if __name__ == '__main__':
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3:] == ['presets'])
