"""Takes an .apkg to Anki and back, as a learner who studies in Anki between two imports would: the
package is imported into a fresh collection with Anki's own backend (PyPI `anki`), learning progress
included; every field holding FIND gets REPLACEMENT in its place, and every card is answered Good once;
then the whole collection is exported again, with scheduling and media, as Anki's "Export" does.
With NEXT.apkg, that package is then imported into the same collection with the options Anki's import
dialog starts with (notes updated when newer), as a learner bringing a later export would.
Prints how many notes were edited and cards answered, and every note's fields at the end, as JSON.
test/anki/import-own-export.test.ts runs it in .tools/anki-fixtures-venv.

    python edit_in_anki.py PACKAGE.apkg OUT.apkg FIND REPLACEMENT [NEXT.apkg]

LICENCE NOTE: PyPI's `anki` is AGPL-3.0. It is a tool the tests run; nothing of it is copied into,
linked with or shipped by the service, which never runs it.
"""

import json
import os
import sys
import tempfile

from anki.collection import Collection, ExportAnkiPackageOptions, ImportAnkiPackageOptions, ImportAnkiPackageRequest
from anki.import_export_pb2 import ExportLimit
from anki.generic_pb2 import Empty


def main(package: str, out: str, find: str, replacement: str, following: str | None):
    with tempfile.TemporaryDirectory() as folder:
        col = Collection(os.path.join(folder, 'collection.anki2'))
        col.import_anki_package(ImportAnkiPackageRequest(
            package_path=package,
            options=ImportAnkiPackageOptions(with_scheduling=True, with_deck_configs=False, merge_notetypes=False)))
        edited = 0
        for note_id in col.find_notes(''):
            note = col.get_note(note_id)
            if any(find in field for field in note.fields):
                note.fields = [field.replace(find, replacement) for field in note.fields]
                col.update_note(note)
                edited += 1
        answered = 0
        for card_id in col.find_cards(''):
            card = col.get_card(card_id)
            card.start_timer()
            col.sched.answerCard(card, 3)
            answered += 1
        col.export_anki_package(out_path=out, limit=ExportLimit(whole_collection=Empty()),
                                options=ExportAnkiPackageOptions(with_scheduling=True, with_deck_configs=True, with_media=True, legacy=True))
        if following is not None:
            col.import_anki_package(ImportAnkiPackageRequest(
                package_path=following,
                options=ImportAnkiPackageOptions(with_scheduling=True, with_deck_configs=False, merge_notetypes=False)))
        fields = sorted(list(col.get_note(note_id).fields) for note_id in col.find_notes(''))
        col.close()
    json.dump({'edited': edited, 'answered': answered, 'fields': fields}, sys.stdout)


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5] if len(sys.argv) > 5 else None)
