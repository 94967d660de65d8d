"""Anki's own package of Cloze notes, for tests that import what Anki writes of a cloze text.

python cloze_notes.py OUT.apkg TEXT...: a collection of one Cloze note per TEXT (its Text field),
exported as OUT.apkg; prints, as JSON, the ords of the cards Anki made for each note, and each
card's question as Anki renders it (without the note type's style)."""
import json
import os
import re
import sys
import tempfile

from anki.collection import Collection, ExportAnkiPackageOptions
from anki.import_export_pb2 import ExportLimit


def main(out: str, texts: list[str]):
    notes = []
    with tempfile.TemporaryDirectory() as folder:
        col = Collection(os.path.join(folder, 'collection.anki2'))
        for text in texts:
            note = col.new_note(col.models.by_name('Cloze'))
            note.fields[0] = text
            col.add_note(note, 1)
            notes.append([{'ord': card.ord, 'question': re.sub(r'^<style>.*?</style>', '', card.question(), flags=re.S)}
                          for card in note.cards()])
        options = ExportAnkiPackageOptions(with_scheduling=True, with_deck_configs=True, with_media=True, legacy=False)
        col.export_anki_package(out_path=out, options=options, limit=ExportLimit())
        col.close()
    print(json.dumps(notes))


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2:])
