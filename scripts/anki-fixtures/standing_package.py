"""Makes, with Anki's own backend (PyPI `anki`), an .apkg whose cards stand in every way Anki keeps:
suspended, buried by the user, buried as a sibling, flagged, and ordinary; and prints each card as
Anki holds it, as JSON: the test of export-anki's standing (test/anki/export-standing-pypi-anki.test.ts)
imports the package into the service, exports it again and compares what Anki then holds with this.

    python standing_package.py OUT.apkg

Every change is made through Anki's own operations (set due date, suspend, bury, flag), so the
cards are as a learner's Anki leaves them. The caller sets TZ to the learner's time zone.

LICENCE NOTE: PyPI's `anki` is AGPL-3.0. It is a tool the tests run; nothing of it is copied into,
linked with or shipped by the service, which never runs it.
"""

import json
import os
import sys
import tempfile

from anki.collection import Collection, ExportAnkiPackageOptions
from anki.import_export_pb2 import ExportLimit


def main(out: str):
    with tempfile.TemporaryDirectory() as folder:
        col = Collection(os.path.join(folder, 'collection.anki2'))
        deck = col.decks.id('Standing')
        basic = col.models.by_name('Basic')
        cloze = col.models.by_name('Cloze')
        cards = {}

        def note(notetype, fields, guid):
            n = col.new_note(notetype)
            for index, value in enumerate(fields):
                n.fields[index] = value
            n.guid = guid
            col.add_note(n, deck)
            for card in n.cards():
                cards[f'{guid}/{card.ord}'] = card.id

        note(basic, ['suspended review', 'a'], 'standing-suspended')
        note(basic, ['suspended new', 'b'], 'standing-suspended-new')
        note(basic, ['buried by the user', 'c'], 'standing-user-buried')
        note(basic, ['buried new', 'd'], 'standing-user-buried-new')
        note(basic, ['flagged only', 'e'], 'standing-flagged')
        note(basic, ['ordinary', 'f'], 'standing-ordinary')
        # siblings of a cloze note: the service keeps a note of Anki's other types card by card, a cloze note as one
        note(cloze, ['{{c1::first}} and {{c2::second}}', ''], 'standing-siblings')

        review = [cards[key] for key in ('standing-suspended/0', 'standing-user-buried/0', 'standing-flagged/0',
                                         'standing-ordinary/0', 'standing-siblings/0', 'standing-siblings/1')]
        col.sched.set_due_date(review, '3')
        col.sched.suspend_cards([cards['standing-suspended/0'], cards['standing-suspended-new/0']])
        col.sched.bury_cards([cards['standing-user-buried/0'], cards['standing-user-buried-new/0']], manual=True)
        col.sched.bury_cards([cards['standing-siblings/1']], manual=False)
        col.set_user_flag_for_cards(2, [cards['standing-suspended/0']])
        col.set_user_flag_for_cards(4, [cards['standing-user-buried/0']])
        col.set_user_flag_for_cards(7, [cards['standing-flagged/0']])
        col.set_user_flag_for_cards(5, [cards['standing-siblings/1']])

        limit = ExportLimit()
        limit.whole_collection.SetInParent()
        col.export_anki_package(out_path=out, options=ExportAnkiPackageOptions(
            with_scheduling=True, with_deck_configs=False, with_media=False, legacy=True), limit=limit)
        held = []
        for key, card_id in sorted(cards.items()):
            card = col.get_card(card_id)
            held.append({'guid': card.note().guid, 'ord': card.ord, 'type': card.type, 'queue': card.queue, 'flags': card.flags})
        col.close()
    json.dump(held, sys.stdout)


if __name__ == '__main__':
    main(sys.argv[1])
