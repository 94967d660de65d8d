"""Makes the Anki packages the importer's tests read, and what Anki itself says about them.

Run by `npm run anki-fixtures` (scripts/anki-fixtures.ts), which makes the virtual environment
under .tools/anki-fixtures-venv with the pinned packages and sets TZ, so the collection's day
rollover falls at a fixed UTC offset. Writes into test/fixtures/anki/:

  collection.apkg         current Anki's .apkg: collection.anki21b (schema 18, zstd), protobuf media map
  legacy-anki21.apkg      Anki's "support older versions" .apkg: collection.anki21 (schema 11), JSON media map
  legacy-anki2.apkg       the oldest layout: collection.anki2 (schema 11) alone, no `meta`, JSON media map
  collection.colpkg       a whole-collection backup (collection.anki21b)
  genanki.apkg            a deck made by genanki, as many shared decks are
  refused/*.apkg, *.bin   packages the reader must refuse, one per refusal code
  expected.json           what Anki reports: decks, notes, cards (schedule, due calendar day, FSRS memory
                          state stored and computed, rendered question and answer), presets, media
  history.apkg            620 cards, 600 of them with 300 days of review history (3,158 revlog rows, about
                          1,900 training items) from a simulated learner with a seeded RNG
  history-parameters.json what Anki's own FSRS optimizer computes for history.apkg: its parameters, the
                          items it trained on, and Anki's log loss and RMSE(bins) of those and of the defaults

With --large CARDS REVLOG OUT it instead writes one big .apkg at OUT (not a fixture: for measuring).
With --history [OUT] it writes only history.apkg and history-parameters.json.

LICENCE NOTE: PyPI's `anki` is AGPL-3.0. It is a tool this script runs at fixture time to make test
data; nothing of it is copied into, linked with or shipped by the service, which never runs it.
"""

import hashlib
import json
import os
import random
import struct
import sys
import tempfile
import time
import zipfile
import zlib
from datetime import date, datetime, timedelta, timezone

import genanki
import zstandard
from anki.collection import Collection, ExportAnkiPackageOptions
from anki.import_export_pb2 import ExportLimit, MediaEntries, PackageMetadata
from anki import deck_config_pb2

# The fixtures' clock: local time is UTC-5 without daylight saving (TZ=Etc/GMT+5, set by the caller),
# the day rolls over at 04:00 local, and the collection was created on 2025-01-06.
UTC_OFFSET_MINUTES_WEST = 300
ROLLOVER_HOUR = 4
LOCAL = timezone(timedelta(minutes=-UTC_OFFSET_MINUTES_WEST))
CREATION_DATE = date(2025, 1, 6)
CREATION_STAMP = int(datetime(2025, 1, 6, ROLLOVER_HOUR, tzinfo=LOCAL).timestamp())

# The learner's own parameters: not FSRS's defaults, so a reader that ignores them fails.
DEFAULT_PRESET_PARAMS6 = [0.25, 1.4, 2.6, 9.1, 6.2, 0.8, 2.9, 0.002, 1.7, 0.15, 0.85, 1.5, 0.07, 0.3,
                          1.6, 0.55, 1.9, 0.5, 0.1, 0.07, 0.2]
DEFAULT_PRESET_RETENTION = 0.85
DEFAULT_PRESET_HISTORICAL_RETENTION = 0.87
SECOND_PRESET_PARAMS5 = [0.4, 1.2, 3.1, 15.5, 7.2, 0.5, 1.5, 0.005, 1.55, 0.12, 1.0, 1.9, 0.11, 0.29,
                         2.3, 0.25, 2.9, 0.52, 0.66]
SECOND_PRESET_RETENTION = 0.92
DECK_B_RETENTION = 0.8

CUSTOM_FRONT = ('<div class=front>{{Front}}</div>'
                '{{#Extra}}<div class=extra>{{Extra}}</div>{{/Extra}}'
                '{{^Extra}}<i>no extra</i>{{/Extra}}'
                '{{hint:Hint}}'
                '<span class=plain>{{text:Back}}</span>'
                '<!-- a comment {{Front}} -->'
                ' {{Tags}} / {{Deck}} / {{Subdeck}} / {{Card}} / {{Type}}')
CUSTOM_BACK = '{{FrontSide}}<hr id=answer>{{Back}}{{#Hint}}<p>hint was {{Hint}}</p>{{/Hint}}'


def local_ms(day: int, hour: int, minute: int = 0, second: int = 0) -> int:
    """Epoch milliseconds of a local wall-clock time, `day` days after the creation date."""
    moment = datetime.combine(CREATION_DATE + timedelta(days=day), datetime.min.time(), LOCAL)
    return int((moment + timedelta(hours=hour, minutes=minute, seconds=second)).timestamp() * 1000)


def tiny_png(red: int, green: int, blue: int) -> bytes:
    """A real 2x2 PNG of one colour."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data) & 0xffffffff)
    rows = b''.join(b'\x00' + bytes([red, green, blue]) * 2 for _ in range(2))
    return (b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 2, 2, 8, 2, 0, 0, 0))
            + chunk(b'IDAT', zlib.compress(rows, 9)) + chunk(b'IEND', b''))


def tiny_mp3(frames: int) -> bytes:
    """A real MPEG-1 layer III stream of silent frames (32 kbit/s, 32 kHz mono: 144 bytes a frame)."""
    header = bytes([0xFF, 0xFB, 0x18, 0xC4])
    return (header + bytes(140)) * frames


# ---------------------------------------------------------------- the collection


class Builder:
    def __init__(self, folder: str):
        self.col = Collection(os.path.join(folder, 'collection.anki2'))
        col = self.col
        col.set_config('rollover', ROLLOVER_HOUR)
        col.set_config('creationOffset', UTC_OFFSET_MINUTES_WEST)
        col.set_config('localOffset', UTC_OFFSET_MINUTES_WEST)
        col.db.execute('update col set crt = ?', CREATION_STAMP)
        # today's unburying has happened, so the buried cards below stay buried
        col.set_config('lastUnburied', col.sched.today)
        self.decks: dict[str, int] = {}
        self.cards: dict[str, int] = {}  # a label per card the tests name
        self.media: dict[str, str] = {}
        self.revlog_rows = 0

    def deck(self, name: str) -> int:
        if name not in self.decks:
            self.decks[name] = self.col.decks.id(name)
        return self.decks[name]

    def add_media(self, name: str, data: bytes) -> str:
        stored = self.col.media.write_data(name, data)
        assert stored == name, (stored, name)
        self.media[name] = hashlib.sha1(data).hexdigest()
        return name

    def note(self, notetype: str, fields: list[str], deck: str, tags: list[str], label: str):
        col = self.col
        model = col.models.by_name(notetype)
        assert model is not None, notetype
        note = col.new_note(model)
        for index, value in enumerate(fields):
            note.fields[index] = value
        note.tags = tags
        # a fixed guid, so that remade fixtures differ from the last only where Anki's output does
        note.guid = f'fixture-{label}'
        col.add_note(note, self.deck(deck))
        for card in note.cards():
            self.cards[f'{label}/{card.ord}'] = card.id
        return note

    def custom_notetype(self):
        mm = self.col.models
        model = mm.new('Custom filters')
        for name in ['Front', 'Back', 'Hint', 'Extra']:
            mm.add_field(model, mm.new_field(name))
        template = mm.new_template('Forward')
        template['qfmt'] = CUSTOM_FRONT
        template['afmt'] = CUSTOM_BACK
        mm.add_template(model, template)
        model['css'] = '.card { font-family: serif; }'
        mm.add(model)

    def schedule(self, label: str, *, ctype: int, queue: int, due: int, ivl: int, factor: int,
                 reps: int, lapses: int, left: int = 0):
        self.col.db.execute('update cards set type=?, queue=?, due=?, ivl=?, factor=?, reps=?, lapses=?, left=? '
                            'where id=?', ctype, queue, due, ivl, factor, reps, lapses, left, self.cards[label])

    def revlog(self, label: str, rows: list[tuple]):
        """rows: (ms, button, ivl, lastIvl, factor, taken ms, type)"""
        for ms, button, ivl, last_ivl, factor, taken, kind in rows:
            # a few milliseconds apart, as revlog ids are unique across cards
            self.revlog_rows += 1
            ms += self.revlog_rows
            self.col.db.execute('insert into revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) '
                                'values (?, ?, -1, ?, ?, ?, ?, ?, ?)',
                                ms, self.cards[label], button, ivl, last_ivl, factor, taken, kind)


LEARN, REVIEW, RELEARN, FILTERED, MANUAL, RESCHEDULED = 0, 1, 2, 3, 4, 5


def build(folder: str) -> Builder:
    b = Builder(folder)
    col = b.col
    b.custom_notetype()

    b.add_media('paris.png', tiny_png(200, 30, 30))
    b.add_media('café au lait.png', tiny_png(120, 80, 40))
    b.add_media('chien.mp3', tiny_mp3(3))
    b.add_media('unused-but-kept.png', tiny_png(0, 0, 255))

    # decks: A::B has cards of its own and a subdeck; A::B::C has its own preset
    for name in ['A', 'A::B', 'A::B::C', 'Langues::Français']:
        b.deck(name)

    b.note('Basic', ['<b>Capital</b> of France?', 'Paris <img src="paris.png">'], 'A', ['geo', 'europe'], 'basic')
    b.note('Basic', ['Truncated history', 'only reviews'], 'A', [], 'truncated')
    b.note('Basic', ['No history', 'converted from SM-2'], 'A', [], 'nohistory')
    b.note('Basic', ['Reset', 'forgotten and relearnt'], 'A', ['marked'], 'reset')
    b.note('Basic (and reversed card)', ['dog', 'chien [sound:chien.mp3]'], 'Langues::Français', ['vocab'], 'reversed')
    b.note('Basic (optional reversed card)', ['cat', 'chat', 'y'], 'Langues::Français', ['vocab'], 'optional2')
    b.note('Basic (optional reversed card)', ['bird', 'oiseau', ''], 'Langues::Français', ['vocab'], 'optional1')
    b.note('Basic (type in the answer)', ['2 + 2 =', '4'], 'A::B', ['maths'], 'typed')
    b.note('Cloze', ['{{c1::Paris}} is the capital of {{c2::France::country}}; the {{c1::Seine}} flows '
                     'through it, and {{c3::Lyon}} is <img src="café au lait.png"> not.', 'extra <i>info</i>'],
           'A::B', ['geo'], 'cloze')
    b.note('Cloze', ['{{c1::Nested {{c2::inner}} outer}} and \\({{c3::x^2}}\\)', ''], 'A::B::C', [], 'cloze2')
    b.note('Custom filters', ['Front one', 'Back &amp; <b>bold</b> &lt;tag&gt;', 'a hint', 'some extra'],
           'A::B::C', ['custom', 'deep::tag'], 'custom1')
    b.note('Custom filters', ['Front two', 'plain back', '', ''], 'A::B::C', [], 'custom2')
    b.note('Basic', ['Learning now', 'due in minutes'], 'A::B', [], 'learning')
    b.note('Basic', ['Relearning now', 'lapsed'], 'A::B', [], 'relearning')
    b.note('Basic', ['Learning across days', 'day learning'], 'A::B', [], 'daylearn')
    b.note('Basic', ['Suspended', 'kept suspended'], 'A', [], 'suspended')
    b.note('Basic', ['Buried by the user', 'kept buried'], 'A', [], 'userburied')
    b.note('Basic (and reversed card)', ['sibling', 'buried new sibling'], 'A', [], 'siblings')
    b.note('Basic', ['Filtered early review', 'rescheduled in a filtered deck'], 'A::B::C', [], 'early')

    # ---- schedules and review history, written as Anki writes them
    # basic: a learning block, reviews on both sides of the 04:00 rollover and of UTC midnight
    # (19:00 here), a cram row and a set-due-date row (both ignored by FSRS), a lapse and relearning
    b.revlog('basic/0', [
        (local_ms(0, 10, 0), 1, -60, -60, 0, 6000, LEARN),
        (local_ms(0, 10, 1), 3, -600, -60, 0, 4000, LEARN),
        (local_ms(0, 10, 12), 3, 1, -600, 2500, 3000, LEARN),
        (local_ms(1, 20, 0), 3, 3, 1, 2500, 5000, REVIEW),         # 01:00 UTC on day 2
        (local_ms(2, 8, 0), 3, 0, 0, 0, 2000, FILTERED),            # cram: factor 0
        (local_ms(2, 9, 0), 0, 9, 3, 2500, 0, MANUAL),               # set due date
        (local_ms(5, 3, 50), 2, 4, 3, 2350, 8000, REVIEW),          # before rollover: Anki's day 4
        (local_ms(9, 4, 10), 1, -600, 4, 2150, 9000, REVIEW),       # lapse
        (local_ms(9, 4, 25), 3, 1, -600, 2150, 3000, RELEARN),
        (local_ms(10, 23, 30), 3, 3, 1, 2150, 4000, REVIEW),
    ])
    b.schedule('basic/0', ctype=2, queue=2, due=13, ivl=3, factor=2150, reps=8, lapses=1)
    # truncated: no learning rows (history cut), so FSRS starts from the first review's interval and ease
    b.revlog('truncated/0', [
        (local_ms(3, 12), 3, 10, 4, 2500, 5000, REVIEW),
        (local_ms(13, 12), 4, 30, 10, 2650, 5000, REVIEW),
        (local_ms(43, 18), 3, 70, 30, 2650, 5000, REVIEW),
    ])
    b.schedule('truncated/0', ctype=2, queue=2, due=113, ivl=70, factor=2650, reps=3, lapses=0)
    # nohistory: a review card with no revlog at all
    b.schedule('nohistory/0', ctype=2, queue=2, due=40, ivl=30, factor=2300, reps=5, lapses=0)
    # reset: reviewed, forgotten (a manual row with factor 0), learnt anew
    b.revlog('reset/0', [
        (local_ms(0, 11), 3, -600, 0, 0, 3000, LEARN),
        (local_ms(0, 11, 10), 3, 1, -600, 2500, 3000, LEARN),
        (local_ms(1, 11), 3, 4, 1, 2500, 3000, REVIEW),
        (local_ms(6, 11), 0, 0, 4, 0, 0, MANUAL),                  # Forget
        (local_ms(7, 11), 2, -300, 0, 0, 3000, LEARN),
        (local_ms(7, 11, 5), 3, -600, -300, 0, 3000, LEARN),
        (local_ms(7, 11, 15), 4, 4, -600, 2500, 3000, LEARN),
        (local_ms(11, 3, 59), 3, 9, 4, 2500, 3000, REVIEW),
    ])
    b.schedule('reset/0', ctype=2, queue=2, due=19, ivl=9, factor=2500, reps=6, lapses=0)
    # reversed siblings: one reviewed, one new
    b.revlog('reversed/0', [
        (local_ms(2, 15), 3, -600, 0, 0, 3000, LEARN),
        (local_ms(2, 15, 11), 3, 1, -600, 2500, 3000, LEARN),
        (local_ms(3, 16), 4, 5, 1, 2650, 3000, REVIEW),
    ])
    b.schedule('reversed/0', ctype=2, queue=2, due=8, ivl=5, factor=2650, reps=3, lapses=0)
    # learning now (intraday, due in epoch seconds)
    b.revlog('learning/0', [
        (local_ms(20, 9), 1, -60, 0, 0, 3000, LEARN),
        (local_ms(20, 9, 2), 3, -600, -60, 0, 3000, LEARN),
    ])
    learning_due = local_ms(20, 9, 12) // 1000
    b.schedule('learning/0', ctype=1, queue=1, due=learning_due, ivl=0, factor=0, reps=2, lapses=0, left=1001)
    # relearning now
    b.revlog('relearning/0', [
        (local_ms(4, 9), 3, -600, 0, 0, 3000, LEARN),
        (local_ms(4, 9, 10), 3, 1, -600, 2500, 3000, LEARN),
        (local_ms(5, 9), 3, 3, 1, 2500, 3000, REVIEW),
        (local_ms(8, 9), 1, -600, 3, 2300, 3000, REVIEW),
    ])
    relearning_due = local_ms(8, 9, 10) // 1000
    b.schedule('relearning/0', ctype=3, queue=1, due=relearning_due, ivl=1, factor=2300, reps=4, lapses=1, left=1001)
    # day learning: a learning step of a day or more, due as a day number
    b.revlog('daylearn/0', [
        (local_ms(14, 9), 3, -86400, 0, 0, 3000, LEARN),
    ])
    b.schedule('daylearn/0', ctype=1, queue=3, due=15, ivl=0, factor=0, reps=1, lapses=0, left=1001)
    # suspended and buried keep their history and state
    b.revlog('suspended/0', [
        (local_ms(1, 9), 3, -600, 0, 0, 3000, LEARN),
        (local_ms(1, 9, 10), 3, 2, -600, 2500, 3000, LEARN),
        (local_ms(3, 9), 2, 3, 2, 2350, 3000, REVIEW),
    ])
    b.schedule('suspended/0', ctype=2, queue=-1, due=6, ivl=3, factor=2350, reps=3, lapses=0)
    b.revlog('userburied/0', [
        (local_ms(1, 10), 4, 4, 0, 2500, 3000, LEARN),
    ])
    b.schedule('userburied/0', ctype=2, queue=-3, due=5, ivl=4, factor=2500, reps=1, lapses=0)
    b.schedule('siblings/1', ctype=0, queue=-2, due=30, ivl=0, factor=0, reps=0, lapses=0)
    # the second cloze of the first cloze note (deck A::B, whose own desired retention is 0.8): a
    # learning block with two agains, then a review at 02:00, still the day before by the rollover
    b.revlog('cloze/1', [
        (local_ms(5, 14), 1, -60, 0, 0, 3000, LEARN),
        (local_ms(5, 14, 1), 1, -60, -60, 0, 3000, LEARN),
        (local_ms(5, 14, 3), 3, -600, -60, 0, 3000, LEARN),
        (local_ms(6, 10), 3, 1, -600, 2500, 3000, LEARN),
        (local_ms(7, 2), 3, 2, 1, 2500, 3000, REVIEW),              # 02:00 local: still Anki's day 6
    ])
    b.schedule('cloze/1', ctype=2, queue=2, due=8, ivl=2, factor=2500, reps=5, lapses=0)
    # the second preset (FSRS-5 parameters, 19 of them) in A::B::C
    b.revlog('custom1/0', [
        (local_ms(2, 12), 3, -600, 0, 0, 3000, LEARN),
        (local_ms(2, 12, 10), 3, 1, -600, 2500, 3000, LEARN),
        (local_ms(3, 12), 3, 3, 1, 2500, 3000, REVIEW),
        (local_ms(6, 12), 3, 8, 3, 2500, 3000, REVIEW),
    ])
    b.schedule('custom1/0', ctype=2, queue=2, due=14, ivl=8, factor=2500, reps=4, lapses=0)
    # early: a review in a filtered deck that reschedules (type 3, factor kept): FSRS counts it
    b.revlog('early/0', [
        (local_ms(2, 13), 3, -600, 0, 0, 3000, LEARN),
        (local_ms(2, 13, 10), 3, 2, -600, 2500, 3000, LEARN),
        (local_ms(3, 13), 3, 5, 2, 2500, 3000, FILTERED),
        (local_ms(8, 13), 3, 12, 5, 2500, 3000, REVIEW),
    ])
    b.schedule('early/0', ctype=2, queue=2, due=20, ivl=12, factor=2500, reps=4, lapses=0)

    # ---- presets: the learner's FSRS parameters and desired retention, then FSRS turned on, so
    # that Anki computes and stores every card's memory state from its history
    decks = col.decks
    default_conf = decks.get_config(1)
    default_conf['fsrsParams6'] = DEFAULT_PRESET_PARAMS6
    default_conf['desiredRetention'] = DEFAULT_PRESET_RETENTION
    default_conf['sm2Retention'] = DEFAULT_PRESET_HISTORICAL_RETENTION
    decks.update_config(default_conf)
    second = decks.add_config('Second')
    second['fsrsParams5'] = SECOND_PRESET_PARAMS5
    second['desiredRetention'] = SECOND_PRESET_RETENTION
    decks.update_config(second)
    deck_c = decks.get(b.deck('A::B::C'))
    deck_c['conf'] = second['id']
    decks.save(deck_c)
    deck_b = decks.get(b.deck('A::B'))
    deck_b['desiredRetention'] = int(DECK_B_RETENTION * 100)
    decks.save(deck_b)

    for_update = col._backend.get_deck_configs_for_update(1)
    selected = next(c.config for c in for_update.all_config if c.config.id == 1)
    col._backend.update_deck_configs(
        target_deck_id=1, configs=[selected], removed_config_ids=[],
        mode=deck_config_pb2.UpdateDeckConfigsMode.UPDATE_DECK_CONFIGS_MODE_NORMAL,
        card_state_customizer='', limits=for_update.current_deck.limits,
        new_cards_ignore_review_limit=False, fsrs=True, apply_all_parent_limits=False,
        fsrs_reschedule=False, fsrs_health_check=False)
    return b


# ---------------------------------------------------------------- what Anki says


def rendered(col: Collection, card_id: int) -> dict:
    out = col._backend.render_existing_card(card_id=card_id, browser=False, partial_render=False)
    assert len(out.question_nodes) == 1 and len(out.answer_nodes) == 1
    return {'question': out.question_nodes[0].text, 'answer': out.answer_nodes[0].text}


def expected_of(b: Builder) -> dict:
    col = b.col
    today = col.sched.today
    now = time.time()
    anki_today = (datetime.fromtimestamp(now, LOCAL) - timedelta(hours=ROLLOVER_HOUR)).date()
    labels = {card_id: label for label, card_id in b.cards.items()}
    notes = {}
    for note_id in col.find_notes(''):
        note = col.get_note(note_id)
        notes[note.guid] = {'notetype': note.note_type()['name'], 'fields': list(note.fields), 'tags': note.tags}
    cards = []
    for card_id in sorted(col.find_cards('')):
        card = col.get_card(card_id)
        note = card.note()
        row = col.db.first('select data from cards where id = ?', card_id)
        stored = json.loads(row[0]) if row[0] else {}
        computed = col.compute_memory_state(card_id)
        # the state the scheduler starts from when the card is next shown: for a card with no usable
        # history, Anki's conversion from its interval and ease
        current = col._backend.get_scheduling_states(card_id).current
        kind = current.WhichOneof('kind')
        normal = getattr(current, kind) if kind == 'normal' else current.filtered.rescheduling.original_state
        which = normal.WhichOneof('kind')
        shown = getattr(normal, which)
        if which == 'relearning':
            shown = shown.learning
        shown_state = shown.memory_state if which != 'new' and shown.HasField('memory_state') else None
        if card.queue in (2, 3) or (card.queue in (-1, -2, -3) and card.type == 2):
            due_day = (anki_today + timedelta(days=card.due - today)).isoformat()
        elif card.queue == 1 or (card.queue in (-1, -2, -3) and card.type in (1, 3) and card.due > 1_000_000_000):
            due_day = datetime.fromtimestamp(card.due - ROLLOVER_HOUR * 3600, LOCAL).date().isoformat()
        else:
            due_day = None
        cards.append({
            'label': labels.get(card_id), 'noteGuid': note.guid, 'ord': card.ord,
            'deck': col.decks.name(card.did), 'type': card.type, 'queue': card.queue, 'due': card.due,
            'dueDay': due_day, 'interval': card.ivl, 'factor': card.factor, 'reps': card.reps,
            'lapses': card.lapses,
            'stored': {'stability': stored.get('s'), 'difficulty': stored.get('d'),
                       'desiredRetention': stored.get('dr'), 'decay': stored.get('decay')},
            'computed': {'stability': computed.stability, 'difficulty': computed.difficulty,
                         'desiredRetention': computed.desired_retention, 'decay': computed.decay},
            'whenShown': None if shown_state is None else {'stability': shown_state.stability,
                                                           'difficulty': shown_state.difficulty},
            'revlogCount': col.db.scalar('select count() from revlog where cid = ?', card_id),
            **rendered(col, card_id),
        })
    presets = {}
    for conf in col.decks.all_config():
        presets[conf['name']] = {
            'fsrsParams6': conf.get('fsrsParams6', []), 'fsrsParams5': conf.get('fsrsParams5', []),
            'desiredRetention': conf.get('desiredRetention'), 'historicalRetention': conf.get('sm2Retention'),
        }
    decks = {}
    for deck in col.decks.all():
        if deck['dyn']:
            continue
        conf = col.decks.config_dict_for_deck_id(deck['id'])
        decks[deck['name']] = {'preset': conf['name'], 'desiredRetention': deck.get('desiredRetention')}
    return {
        'creationStamp': CREATION_STAMP, 'creationDate': CREATION_DATE.isoformat(),
        'rolloverHour': ROLLOVER_HOUR, 'utcOffsetMinutesWest': UTC_OFFSET_MINUTES_WEST,
        'ankiToday': today, 'ankiTodayDate': anki_today.isoformat(), 'exportedAt': int(now),
        'revlogCount': col.db.scalar('select count() from revlog'),
        'decks': decks, 'presets': presets, 'notes': notes, 'cards': cards, 'media': b.media,
        'customTemplates': {'front': CUSTOM_FRONT, 'back': CUSTOM_BACK},
    }


# ---------------------------------------------------------------- packages


def export_apkg(col: Collection, path: str, legacy: bool):
    options = ExportAnkiPackageOptions(with_scheduling=True, with_deck_configs=True, with_media=True, legacy=legacy)
    col.export_anki_package(out_path=path, options=options, limit=ExportLimit())


def rezip(source: str, target: str, entries: dict[str, bytes | None], drop: set[str] = frozenset(),
          rename: dict[str, str] | None = None):
    """Copies a package, dropping, renaming or replacing entries (None in `entries` keeps the original)."""
    rename = rename or {}
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, 'w', zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            if info.filename in drop or info.filename in entries:
                continue
            out.writestr(rename.get(info.filename, info.filename), src.read(info.filename),
                         compress_type=info.compress_type)
        for name, data in entries.items():
            if data is not None:
                out.writestr(name, data)


def legacy_collection_bytes(package: str, edit_sql: str | None = None) -> bytes:
    with zipfile.ZipFile(package) as zf:
        data = zf.read('collection.anki21')
    if edit_sql is None:
        return data
    import sqlite3
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'c.db')
        with open(path, 'wb') as f:
            f.write(data)
        db = sqlite3.connect(path)
        db.execute(edit_sql)
        db.commit()
        db.close()
        with open(path, 'rb') as f:
            return f.read()


def tiny_packages(folder: str) -> tuple[str, str]:
    """A one-note collection as a legacy (schema 11, vacuumed) and a current package: the base of the
    refusal fixtures, each broken in one way only and otherwise readable."""
    col = Collection(os.path.join(folder, 'tiny.anki2'))
    note = col.new_note(col.models.by_name('Basic'))
    note.fields = ['tiny', 'package']
    col.add_note(note, 1)
    legacy, latest = os.path.join(folder, 'tiny-legacy.apkg'), os.path.join(folder, 'tiny-latest.apkg')
    export_apkg(col, legacy, legacy=True)
    export_apkg(col, latest, legacy=False)
    col.close()
    import sqlite3
    with zipfile.ZipFile(legacy) as zf:
        data = zf.read('collection.anki21')
    path = os.path.join(folder, 'vacuum.db')
    with open(path, 'wb') as f:
        f.write(data)
    db = sqlite3.connect(path)
    db.execute('vacuum')
    db.close()
    with open(path, 'rb') as f:
        vacuumed = f.read()
    small_legacy = os.path.join(folder, 'tiny-legacy-small.apkg')
    rezip(legacy, small_legacy, {'collection.anki21': vacuumed}, drop={'collection.anki2'})
    small_latest = os.path.join(folder, 'tiny-latest-small.apkg')
    rezip(latest, small_latest, {}, drop={'collection.anki2'})
    return small_legacy, small_latest


def refusals(out: str, legacy_anki21: str, latest: str) -> dict:
    folder = os.path.join(out, 'refused')
    os.makedirs(folder, exist_ok=True)
    made = {}

    def path(name: str, code: str) -> str:
        made[name] = code
        return os.path.join(folder, name)

    with open(path('not-a-zip.apkg', 'not_a_zip'), 'wb') as f:
        f.write(b'This is a text file, not a zip archive.\n' * 4)
    # a truncated zip: the central directory is gone
    with open(latest, 'rb') as f:
        head = f.read(600)
    with open(path('truncated-zip.apkg', 'not_a_zip'), 'wb') as f:
        f.write(head)
    # 16 MiB of zeros deflated to a few KB
    with zipfile.ZipFile(path('zip-bomb.apkg', 'zip_bomb'), 'w', zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr('collection.anki21', legacy_collection_bytes(legacy_anki21))
        zf.writestr('media', json.dumps({'0': 'zeros.png'}))
        zf.writestr('0', bytes(16 * 1024 * 1024))
    # the same inside a zstd frame: the zip's own ratio looks harmless, the frame expands
    with zipfile.ZipFile(latest) as zf:
        meta = zf.read('meta')
        collection = zf.read('collection.anki21b')
    entries = MediaEntries()
    entries.entries.add(name='zeros.png', size=64 * 1024 * 1024, sha1=hashlib.sha1(b'').digest())
    with zipfile.ZipFile(path('zstd-bomb.apkg', 'zip_bomb'), 'w', zipfile.ZIP_STORED) as zf:
        zf.writestr('meta', meta)
        zf.writestr('collection.anki21b', collection)
        zf.writestr('media', zstandard.ZstdCompressor().compress(entries.SerializeToString()))
        zf.writestr('0', zstandard.ZstdCompressor(level=19).compress(bytes(64 * 1024 * 1024)))
    for name, unsafe in [('media-dotdot.apkg', '../evil.png'), ('media-absolute.apkg', '/etc/evil.png'),
                         ('media-drive.apkg', 'C:\\evil.png'), ('media-subfolder.apkg', 'sub/evil.png'),
                         ('media-dot.apkg', '..')]:
        rezip(legacy_anki21, path(name, 'unsafe_media_name'), {'media': json.dumps({'0': unsafe}).encode(),
                                                               '0': tiny_png(1, 2, 3)})
    # the same in a current package's protobuf map
    entries = MediaEntries()
    entries.entries.add(name='..\\evil.png', size=3, sha1=hashlib.sha1(b'abc').digest())
    with zipfile.ZipFile(path('media-backslash-latest.apkg', 'unsafe_media_name'), 'w') as zf:
        zf.writestr('meta', meta)
        zf.writestr('collection.anki21b', collection)
        zf.writestr('media', zstandard.ZstdCompressor().compress(entries.SerializeToString()))
        zf.writestr('0', zstandard.ZstdCompressor().compress(b'abc'))
    rezip(legacy_anki21, path('media-missing.apkg', 'missing_media'),
          {'media': json.dumps({'0': 'here.png', '1': 'missing.png'}).encode(), '0': tiny_png(1, 2, 3)})
    # SQLite's header, then garbage
    good = legacy_collection_bytes(legacy_anki21)
    rng = random.Random(7)
    corrupt = good[:100] + bytes(rng.randrange(256) for _ in range(4096 - 100)) + good[4096:]
    rezip(legacy_anki21, path('corrupt-collection.apkg', 'corrupt_collection'), {'collection.anki21': corrupt})
    rezip(legacy_anki21, path('not-sqlite.apkg', 'corrupt_collection'),
          {'collection.anki21': b'not a database at all' * 20})
    rezip(legacy_anki21, path('unknown-schema.apkg', 'unknown_schema'),
          {'collection.anki21': legacy_collection_bytes(legacy_anki21, 'update col set ver = 99')})
    rezip(legacy_anki21, path('old-schema.apkg', 'unknown_schema'),
          {'collection.anki21': legacy_collection_bytes(legacy_anki21, 'update col set ver = 5')})
    rezip(latest, path('unknown-package-version.apkg', 'unknown_schema'),
          {'meta': PackageMetadata(version=7).SerializeToString()})
    with zipfile.ZipFile(path('no-collection.apkg', 'corrupt_collection'), 'w') as zf:
        zf.writestr('media', '{}')
    return made


def redeflate(path: str):
    """Deflates every entry of a package (Anki and genanki store some uncompressed): the same entries,
    byte for byte, in fewer bytes of zip."""
    with zipfile.ZipFile(path) as zf:
        entries = [(info.filename, zf.read(info.filename)) for info in zf.infolist()]
    with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for name, data in entries:
            zf.writestr(name, data)


def genanki_package(out: str, media_dir: str) -> dict:
    model = genanki.Model(1607392319, 'Simple Model',
                          fields=[{'name': 'Question'}, {'name': 'Answer'}],
                          templates=[{'name': 'Card 1', 'qfmt': '{{Question}}',
                                      'afmt': '{{FrontSide}}<hr id="answer">{{Answer}}'}])
    deck = genanki.Deck(2059400110, 'Shared::Country Capitals')
    deck.add_note(genanki.Note(model=model, fields=['Capital of Argentina', 'Buenos Aires <img src="flag.png">'],
                               guid='genanki-guid-1', tags=['shared']))
    deck.add_note(genanki.Note(model=model, fields=['Capital of Peru', 'Lima [sound:lima.mp3]'],
                               guid='genanki-guid-2'))
    flag = os.path.join(media_dir, 'flag.png')
    sound = os.path.join(media_dir, 'lima.mp3')
    with open(flag, 'wb') as f:
        f.write(tiny_png(10, 200, 10))
    with open(sound, 'wb') as f:
        f.write(tiny_mp3(2))
    package = genanki.Package(deck)
    package.media_files = [flag, sound]
    package.write_to_file(os.path.join(out, 'genanki.apkg'))
    return {'flag.png': hashlib.sha1(tiny_png(10, 200, 10)).hexdigest(),
            'lima.mp3': hashlib.sha1(tiny_mp3(2)).hexdigest()}


# ---------------------------------------------------------------- a collection with history


# A learner who forgets faster than FSRS's average user, with a steeper forgetting curve, while
# Anki schedules them with FSRS's defaults at 90%: what a new user's first months look like, and
# far enough from the defaults for the optimizer to have something to find.
HISTORY_LEARNER = [0.2, 0.6, 1.2, 4.0, 6.8, 0.6, 2.2, 0.01, 1.2, 0.2, 0.9, 1.8, 0.08, 0.3, 1.7, 0.5,
                   2.2, 0.5, 0.15, 0.08, 0.3]
FSRS6_DEFAULTS = [0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796,
                  1.4835, 0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542]
HISTORY_CARDS = 620
HISTORY_STUDIED = 600         # the last 20 stay new
HISTORY_NEW_PER_DAY = 6
HISTORY_DAYS = 300
HISTORY_SEED = 28
HISTORY_NOTE_IDS = CREATION_STAMP * 1000


def fsrs_retrievability(w: list[float], days: float, stability: float) -> float:
    decay = -w[20]
    factor = 0.9 ** (1 / decay) - 1
    return (days / stability * factor + 1) ** decay


def fsrs_interval(w: list[float], stability: float, retention: float) -> float:
    decay = -w[20]
    factor = 0.9 ** (1 / decay) - 1
    return stability / factor * (retention ** (1 / decay) - 1)


def fsrs_first(w: list[float], rating: int) -> tuple[float, float]:
    return max(0.001, w[rating - 1]), min(10.0, max(1.0, w[4] - pow(2.718281828459045, w[5] * (rating - 1)) + 1))


def fsrs_next(w: list[float], state: tuple[float, float], days: int, rating: int) -> tuple[float, float]:
    """FSRS-6's next state, as the fsrs crate computes it (a same-day answer takes the short-term formula)."""
    import math
    s, d = state
    if days == 0:
        growth = math.exp(w[17] * (rating - 3 + w[18])) * s ** -w[19]
        s2 = s * (max(growth, 1) if rating >= 2 else growth)
    else:
        r = fsrs_retrievability(w, days, s)
        if rating == 1:
            s2 = min(w[11] * d ** -w[12] * ((s + 1) ** w[13] - 1) * math.exp((1 - r) * w[14]),
                     s / math.exp(w[17] * w[18]))
        else:
            hard = w[15] if rating == 2 else 1
            easy = w[16] if rating == 4 else 1
            s2 = s * (math.exp(w[8]) * (11 - d) * s ** -w[9] * (math.exp((1 - r) * w[10]) - 1) * hard * easy + 1)
    damped = d + (10 - d) * (-w[6] * (rating - 3)) / 9
    d0_easy = w[4] - math.exp(w[5] * 3) + 1
    return min(36500.0, max(0.001, s2)), min(10.0, max(1.0, w[7] * (d0_easy - damped) + damped))


def simulate_history(rng: random.Random, cards: list[int]) -> tuple[list[tuple], dict[int, dict]]:
    """Months of study by HISTORY_LEARNER: revlog rows (id ms, card, button, ivl, lastIvl, factor, taken
    ms, type) and each card's schedule at the end. Anki's scheduler is played by FSRS's defaults at 90%
    retention with a little fuzz; the learner recalls with the probability their own parameters give.
    They skip about one day in eight (what is due waits), study at a time of day that varies (past
    UTC midnight, which is 19:00 here, and past local midnight, before the 04:00 rollover), and now and
    then cram a card in a filtered deck, review one early in a filtered deck that reschedules, set a
    due date by hand or forget a card and learn it anew."""
    truth, scheduler = HISTORY_LEARNER, FSRS6_DEFAULTS
    rows: list[tuple] = []
    # per card: true state, scheduler's state, last answer day, due day, interval, reps, lapses
    live: dict[int, dict] = {}
    due: dict[int, list[int]] = {}
    introduced = 0
    taken = lambda: 2000 + rng.randrange(12000)

    def schedule(card: int, today: int, days: int | None = None):
        c = live[card]
        if days is None:
            ivl = fsrs_interval(scheduler, c['model'][0], 0.9)
            days = max(1, round(ivl * (0.95 + 0.1 * rng.random())))
        c['due'], c['ivl'] = today + days, days
        due.setdefault(today + days, []).append(card)

    def learn(card: int, today: int, clock: list[int], first_kind: int):
        """A new (or forgotten) card's learning steps, today: a first answer, and good after an again or a hard."""
        c = live[card]
        rating = rng.choices([1, 2, 3, 4], [0.2, 0.1, 0.6, 0.1])[0]
        c['truth'], c['model'] = fsrs_first(truth, rating), fsrs_first(scheduler, rating)
        if rating <= 2:
            rows.append((clock[0], card, rating, -600, 0, 0, taken(), first_kind))
            clock[0] += 600_000 + rng.randrange(300_000)
            c['truth'], c['model'] = fsrs_next(truth, c['truth'], 0, 3), fsrs_next(scheduler, c['model'], 0, 3)
            rating = 3
        c['last'], c['reps'] = today, c['reps'] + 1
        schedule(card, today)
        rows.append((clock[0], card, rating, c['ivl'], -600, 2500, taken(), LEARN))
        clock[0] += 20_000 + rng.randrange(40_000)

    for today in range(HISTORY_DAYS):
        if rng.random() < 0.125:
            # a day off: what was due waits for the next study day
            due.setdefault(today + 1, []).extend(due.pop(today, []))
            continue
        # the session starts between 08:00 and 02:00 the next night (still today, for Anki)
        clock = [local_ms(today, 4) + rng.randrange(4 * 3600, 22 * 3600) * 1000]
        todays = sorted(set(due.pop(today, [])))
        rng.shuffle(todays)
        for card in todays:
            c = live[card]
            if c['due'] != today:
                continue  # rescheduled since
            elapsed = today - c['last']
            if rng.random() < 0.01:
                # Forget, then learnt anew at once
                rows.append((clock[0], card, 0, 0, c['ivl'], 0, 0, MANUAL))
                clock[0] += 5000
                learn(card, today, clock, LEARN)
                continue
            if rng.random() < 0.01:
                # set due date by hand: no answer, the card comes back on the day chosen
                days = 1 + rng.randrange(10)
                rows.append((clock[0], card, 0, days, c['ivl'], 2500, 0, MANUAL))
                clock[0] += 5000
                schedule(card, today, days)
                continue
            recalled = rng.random() < fsrs_retrievability(truth, elapsed, c['truth'][0])
            rating = rng.choices([2, 3, 4], [0.15, 0.75, 0.1])[0] if recalled else 1
            c['truth'] = fsrs_next(truth, c['truth'], elapsed, rating)
            c['model'] = fsrs_next(scheduler, c['model'], elapsed, rating)
            last_ivl = c['ivl']
            c['last'], c['reps'] = today, c['reps'] + 1
            if rating == 1:
                c['lapses'] += 1
                rows.append((clock[0], card, 1, -600, last_ivl, 2500, taken(), REVIEW))
                clock[0] += 600_000 + rng.randrange(300_000)
                c['truth'], c['model'] = fsrs_next(truth, c['truth'], 0, 3), fsrs_next(scheduler, c['model'], 0, 3)
                schedule(card, today)
                rows.append((clock[0], card, 3, c['ivl'], -600, 2500, taken(), RELEARN))
            else:
                schedule(card, today)
                rows.append((clock[0], card, rating, c['ivl'], last_ivl, 2500, taken(), REVIEW))
            clock[0] += 5000 + rng.randrange(20_000)
        # new cards
        for _ in range(HISTORY_NEW_PER_DAY):
            if introduced == HISTORY_STUDIED:
                break
            card = cards[introduced]
            introduced += 1
            live[card] = {'reps': 0, 'lapses': 0}
            learn(card, today, clock, LEARN)
        # now and then a few cards crammed in a filtered deck that does not reschedule (type 3, factor 0),
        # on a day they are not due: training leaves these out, and their schedule and memory are untouched
        if live and rng.random() < 0.3:
            for card in rng.sample(sorted(live), min(len(live), 3)):
                c = live[card]
                if today - c['last'] > 0 and c['due'] > today:
                    recalled = rng.random() < fsrs_retrievability(truth, today - c['last'], c['truth'][0])
                    rows.append((clock[0], card, 3 if recalled else 1, 0, 0, 0, taken(), FILTERED))
                    clock[0] += 10_000
        # now and then a card reviewed early in a filtered deck that reschedules (type 3, factor kept)
        if live and rng.random() < 0.1:
            card = rng.choice(sorted(live))
            c = live[card]
            elapsed = today - c['last']
            if elapsed > 0 and c['due'] > today:
                recalled = rng.random() < fsrs_retrievability(truth, elapsed, c['truth'][0])
                rating = 3 if recalled else 1
                c['truth'] = fsrs_next(truth, c['truth'], elapsed, rating)
                c['model'] = fsrs_next(scheduler, c['model'], elapsed, rating)
                last_ivl = c['ivl']
                c['last'], c['reps'], c['lapses'] = today, c['reps'] + 1, c['lapses'] + (rating == 1)
                schedule(card, today)
                rows.append((clock[0], card, rating, c['ivl'], last_ivl, 2500, taken(), FILTERED))
                clock[0] += 10_000
    return rows, live


def history_package(out: str, tmp: str) -> dict:
    """history.apkg: one deck of HISTORY_CARDS cards, most with months of review history, exported by
    Anki; and what Anki's own optimizer computes for it (history-parameters.json)."""
    folder = os.path.join(tmp, 'history')
    os.makedirs(folder)
    col = Collection(os.path.join(folder, 'collection.anki2'))
    col.set_config('rollover', ROLLOVER_HOUR)
    col.set_config('creationOffset', UTC_OFFSET_MINUTES_WEST)
    col.set_config('localOffset', UTC_OFFSET_MINUTES_WEST)
    col.db.execute('update col set crt = ?', CREATION_STAMP)
    # the default deck (id 1) renamed, so that the deck's id is the same from one run to the next
    deck = 1
    col.decks.rename(deck, 'History')
    model = col.models.by_name('Basic')
    for i in range(HISTORY_CARDS):
        note = col.new_note(model)
        note.fields = [f'Word {i + 1}', f'Meaning {i + 1}']
        note.guid = f'history-{i + 1}'
        col.add_note(note, deck)
    # fixed note and card ids, so that the revlog is the same from one run to the next
    for i, (nid,) in enumerate(col.db.all('select id from notes order by id')):
        col.db.execute('update cards set nid = ?, id = ? where nid = ?', HISTORY_NOTE_IDS + i, HISTORY_NOTE_IDS + i, nid)
        col.db.execute('update notes set id = ? where id = ?', HISTORY_NOTE_IDS + i, nid)
    cards = [HISTORY_NOTE_IDS + i for i in range(HISTORY_CARDS)]
    rng = random.Random(HISTORY_SEED)
    rows, live = simulate_history(rng, cards)
    seen: set[int] = set()
    for ms, card, button, ivl, last_ivl, factor, taken, kind in rows:
        while ms in seen:  # revlog ids are unique
            ms += 1
        seen.add(ms)
        col.db.execute('insert into revlog (id, cid, usn, ease, ivl, lastIvl, factor, time, type) '
                       'values (?, ?, -1, ?, ?, ?, ?, ?, ?)', ms, card, button, ivl, last_ivl, factor, taken, kind)
    for card, c in live.items():
        col.db.execute('update cards set type = 2, queue = 2, due = ?, ivl = ?, factor = 2500, reps = ?, lapses = ? '
                       'where id = ?', c['due'], c['ivl'], c['reps'], c['lapses'], card)
    # and the history's last day for the notes' and cards' modification times, rather than now
    last_stamp = local_ms(HISTORY_DAYS, 0) // 1000
    col.db.execute('update notes set mod = ?', last_stamp)
    col.db.execute('update cards set mod = ?', last_stamp)
    # Anki's optimizer, as its deck options' "Optimize" button runs it: every card of the preset,
    # one relearning step (the default preset's), starting from FSRS's defaults
    search = 'deck:History'
    fitted = col._backend.compute_fsrs_params(search=search, current_params=[], ignore_revlogs_before_ms=0,
                                              num_of_relearning_steps=1, health_check=False)
    # f32 on the wire: six decimals say all they hold
    params = [round(x, 6) for x in fitted.params]
    # and how well they predict the history, by Anki's own measure: on the items they were fitted to
    evaluated = col._backend.evaluate_params_legacy(params=params, search=search, ignore_revlogs_before_ms=0)
    defaults = col._backend.evaluate_params_legacy(params=FSRS6_DEFAULTS, search=search, ignore_revlogs_before_ms=0)
    export_apkg(col, os.path.join(out, 'history.apkg'), legacy=False)
    reported = {
        'parameters': params, 'fsrsItems': fitted.fsrs_items,
        # f32 sums in parallel: the last digits vary from run to run
        'logLoss': round(evaluated.log_loss, 6), 'rmseBins': round(evaluated.rmse_bins, 6),
        'defaultParameters': {'logLoss': round(defaults.log_loss, 6), 'rmseBins': round(defaults.rmse_bins, 6)},
        'learnerParameters': HISTORY_LEARNER,
        'revlogCount': len(rows), 'cards': HISTORY_CARDS,
        'rolloverHour': ROLLOVER_HOUR, 'utcOffsetMinutesWest': UTC_OFFSET_MINUTES_WEST,
        'ankiVersion': '26.9.3',
    }
    col.close()
    with open(os.path.join(out, 'history-parameters.json'), 'w') as f:
        json.dump(reported, f, indent=1)
        f.write('\n')
    return reported


def main(out: str):
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        b = build(tmp)
        col = b.col
        expected = expected_of(b)
        latest = os.path.join(out, 'collection.apkg')
        legacy = os.path.join(out, 'legacy-anki21.apkg')
        export_apkg(col, latest, legacy=False)
        export_apkg(col, legacy, legacy=True)
        # the oldest layout: collection.anki2 is the collection itself, and there is no meta
        with zipfile.ZipFile(legacy) as zf:
            numbered = [n for n in zf.namelist() if n.isdigit()]
        rezip(legacy, os.path.join(out, 'legacy-anki2.apkg'), {}, drop={'meta', 'collection.anki2'},
              rename={'collection.anki21': 'collection.anki2'})
        colpkg = os.path.join(out, 'collection.colpkg')
        col.export_collection_package(colpkg, include_media=True, legacy=False)
        tiny_legacy, tiny_latest = tiny_packages(tmp)
        expected['refusals'] = refusals(out, tiny_legacy, tiny_latest)
        os.makedirs(os.path.join(tmp, 'genanki'))
        expected['genanki'] = {'media': genanki_package(out, os.path.join(tmp, 'genanki'))}
        for name in ['legacy-anki21.apkg', 'collection.colpkg', 'genanki.apkg']:
            redeflate(os.path.join(out, name))
        expected['packages'] = ['collection.apkg', 'legacy-anki21.apkg', 'legacy-anki2.apkg', 'collection.colpkg']
        history_package(out, tmp)
        expected['numberedMediaEntries'] = len(numbered)
        with open(os.path.join(out, 'expected.json'), 'w') as f:
            json.dump(expected, f, indent=1, ensure_ascii=False, sort_keys=True)
            f.write('\n')
        col.close()


def large(cards: int, revlog: int, target: str):
    """A collection of `cards` Basic cards in 100 decks and `revlog` review rows, exported as .apkg.
    The rows go in with Python's sqlite3 in one transaction while Anki has the collection closed:
    through Anki's backend, row by row, this takes minutes."""
    import sqlite3
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, 'collection.anki2')
        col = Collection(path)
        col.set_config('rollover', ROLLOVER_HOUR)
        col.set_config('creationOffset', UTC_OFFSET_MINUTES_WEST)
        col.db.execute('update col set crt = ?', CREATION_STAMP)
        decks = [col.decks.id(f'Big::Part {i // 10}::Deck {i}') for i in range(100)]
        note = col.new_note(col.models.by_name('Basic'))
        note.fields = ['seed', 'seed']
        col.add_note(note, decks[0])
        col.close()
        db = sqlite3.connect(path)
        base_note = db.execute('select * from notes').fetchone()
        base_card = db.execute('select * from cards').fetchone()
        per_card = max(1, revlog // cards)

        def note_rows():
            for i in range(cards - 1):
                row = list(base_note)
                row[0], row[1] = base_note[0] + 1 + i, f'g{i:08d}'
                row[6] = f'Question {i} <b>bold</b>\x1fAnswer {i} with some longer text, as real answers have'
                yield row

        def card_rows():
            for i in range(cards - 1):
                row = list(base_card)
                row[0], row[1], row[2] = base_card[0] + 1 + i, base_note[0] + 1 + i, decks[i % 100]
                row[6], row[7], row[8], row[9], row[10], row[11] = 2, 2, rng.randrange(0, 600), rng.randrange(1, 200), 2500, per_card
                yield row

        def revlog_rows():
            stamp = local_ms(0, 10)
            for i in range(cards - 1):
                t = stamp + i
                for k in range(per_card):
                    yield (t, base_card[0] + 1 + i, -1, 3 if k % 7 else 1, k + 1, k, 2500, 4000,
                           LEARN if k < 2 else REVIEW)
                    t += 86_400_000 * (k % 5 + 1)

        with db:
            db.executemany(f'insert into notes values ({",".join("?" * len(base_note))})', note_rows())
            db.executemany(f'insert into cards values ({",".join("?" * len(base_card))})', card_rows())
            db.executemany('insert into revlog values (?,?,?,?,?,?,?,?,?)', revlog_rows())
        db.close()
        col = Collection(path)
        export_apkg(col, target, legacy=False)
        col.close()


if __name__ == '__main__':
    if len(sys.argv) >= 2 and sys.argv[1] == '--large':
        large(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif len(sys.argv) >= 2 and sys.argv[1] == '--history':
        with tempfile.TemporaryDirectory() as tmp:
            history_package(sys.argv[2] if len(sys.argv) > 2 else 'test/fixtures/anki', tmp)
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else 'test/fixtures/anki')
