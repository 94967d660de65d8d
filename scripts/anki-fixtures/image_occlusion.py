"""Anki's own package of one Image Occlusion note (Anki's stock note type), for the tests that study one.

python image_occlusion.py OUT.apkg IMAGE.png OCCLUSION: a collection of one Image Occlusion note, its
image IMAGE.png (added to the collection's media), its Occlusion field OCCLUSION, header "Bones" and
back extra "from the front"; exported as OUT.apkg. Prints, as JSON, the ords of the cards Anki made.

LICENCE NOTE: PyPI's `anki` is AGPL-3.0. It is a tool the tests run; nothing of it is copied into,
linked with or shipped by the service, which never runs it."""
import json
import os
import sys
import tempfile

from anki.collection import Collection, ExportAnkiPackageOptions
from anki.import_export_pb2 import ExportLimit


def main(out: str, image: str, occlusion: str):
    with tempfile.TemporaryDirectory() as folder:
        col = Collection(os.path.join(folder, 'collection.anki2'))
        with open(image, 'rb') as f:
            name = col.media.write_data(os.path.basename(image), f.read())
        note = col.new_note(col.models.by_name('Image Occlusion'))
        note['Occlusion'] = occlusion
        note['Image'] = f'<img src="{name}">'
        note['Header'] = 'Bones'
        note['Back Extra'] = 'from the front'
        col.add_note(note, 1)
        ords = [card.ord for card in note.cards()]
        options = ExportAnkiPackageOptions(with_scheduling=True, with_deck_configs=True, with_media=True, legacy=False)
        col.export_anki_package(out_path=out, options=options, limit=ExportLimit())
        col.close()
    print(json.dumps(ords))


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2], sys.argv[3])
