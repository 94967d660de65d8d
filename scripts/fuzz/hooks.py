# Schemathesis hooks for `npm run fuzz` (scripts/fuzz.ts sets the environment).
#
# Bodies generated from the schema alone carry random tokens and ids, so every
# authenticated operation would stop at 401 or 404. For a good share of bodies
# the token and the ids become real ones of the seeded account, so the fuzzer
# reaches the handlers, the repositories and the database. Only values that
# already fit their schema are replaced: a negative case (a mistyped or
# malformed field) stays negative.
#
# Deleting operations would soon destroy the seeded data and with it the deep
# coverage (and renaming or moving a folder would change the paths sent), so
# just before such a call a throwaway folder, flashcard, card or goal is
# created and its id sent instead; logging out everywhere gets the token of a
# throwaway account, or it would end the seeded account's token.
#
# Every answer is recorded as one JSON line in FUZZ_RECORD, for the summary.
import json
import os
import re
import threading
import urllib.request
import zlib

import schemathesis

DATA = json.loads(os.environ["FUZZ_DATA"])
ORIGIN = os.environ["FUZZ_ORIGIN"]
RECORD = os.environ["FUZZ_RECORD"]
# percentage of bodies that get the real token and ids
REAL_SHARE = int(os.environ.get("FUZZ_REAL_SHARE", "75"))

TIMEZONES = ["UTC", "Europe/London", "America/New_York", "Asia/Kathmandu", "Pacific/Chatham", "Pacific/Kiritimati"]
ID = re.compile(r"^[0-9]{30,64}$")
OPTIONAL_ID = re.compile(r"^([0-9]{30,64})?$")
REAL_IDS = set(DATA["folders"]) | set(DATA["goals"]) | {
    id for flashcard in DATA["flashcards"] for id in [flashcard["id"], *flashcard["cards"]]
}

lock = threading.Lock()
throwaway_count = 0


def pick(seed, items):
    return items[seed % len(items)]


def fits(value, pattern):
    return isinstance(value, str) and pattern.match(value) is not None


@schemathesis.hook
def map_case(context, case):
    # a case hook rather than map_body: the coverage phase applies case hooks only
    if isinstance(case.body, dict):
        case.body = with_real_values(case.path, case.body)
    return case


def with_real_values(path, body):
    # the choice follows from the body itself, so Hypothesis sees the same body for the same draw
    seed = zlib.crc32(json.dumps(body, sort_keys=True, default=str).encode())
    if seed % 100 >= REAL_SHARE:
        return body
    body = dict(body)
    token = body.get("jwtToken")
    if (isinstance(token, str) and len(token) <= 4096) or path.endswith("/update-goal-status"):
        # update-goal-status takes a token of any type or none (an invalid one answers {})
        body["jwtToken"] = DATA["token"]
    flashcard = pick(seed >> 7, DATA["flashcards"])
    if fits(body.get("flashcardID"), ID):
        body["flashcardID"] = flashcard["id"]
    if fits(body.get("cardID"), ID) and flashcard["cards"]:
        body["cardID"] = pick(seed >> 13, flashcard["cards"])
    if fits(body.get("folderID"), ID):
        body["folderID"] = pick(seed >> 17, DATA["folders"])
    if fits(body.get("parentID"), OPTIONAL_ID):
        body["parentID"] = pick(seed >> 21, DATA["folders"] + [""])
    if fits(body.get("goalID"), ID):
        body["goalID"] = pick(seed >> 25, DATA["goals"])
    if isinstance(body.get("end_date"), str) and seed % 3 != 0:
        # a random string is hardly ever a future DD/MM/YYYY date; a third keep theirs
        body["end_date"] = DATA["endDate"]
    if isinstance(body.get("folder"), list) and all(isinstance(name, str) for name in body["folder"]):
        # a random path names no folder; a real one lets create-flashcard and import-cards store
        body["folder"] = pick(seed >> 9, DATA["folderPaths"])
    if isinstance(body.get("text"), str) and seed % 2 == 0:
        body["text"] = importable_text(body)
    if isinstance(body.get("timezone"), str) and seed % 2 == 0:
        body["timezone"] = pick(seed >> 3, TIMEZONES)
    return body


def importable_text(body):
    """Text the import reads as cards, for half the imports: random text is hardly ever a valid file."""
    if body.get("format") == "csv":
        return 'front,back\n"a, b",c\n"with ""quotes""",d\n'
    term = body.get("termSeparator") if isinstance(body.get("termSeparator"), str) else "\t"
    card = body.get("cardSeparator") if isinstance(body.get("cardSeparator"), str) else "\n"
    return card.join(f"front {n}{term}back {n}" for n in range(3))


def call(operation, body, token=True):
    request = urllib.request.Request(
        f"{ORIGIN}/api/{operation}",
        data=json.dumps({"jwtToken": DATA["token"], **body} if token else body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def throwaway_count_next():
    global throwaway_count
    with lock:
        throwaway_count += 1
        return throwaway_count


def throwaway_token():
    email = f"throwaway-{os.getpid()}-{throwaway_count_next()}@example.com"
    return call("register", {"email": email, "password": "throwaway password"}, token=False)["jwtToken"]


def throwaway_folder():
    global throwaway_count
    with lock:
        throwaway_count += 1
        n = throwaway_count
    # spread over several parents, so no parent fills up in a long run
    return ["Throwaway", str(n // 200), f"folder {n}"]


# operations that would delete the seeded data, or change the folder paths the hooks send
CHANGING_PATHS = {"delete-folder", "delete-flashcard", "delete-card", "delete-goal", "rename-folder", "move-folder", "logout-everywhere"}


def swap_for_throwaway(operation, body):
    """Replaces the real ids of such a call with those of something made for it."""
    if operation in ("rename-folder", "move-folder") and body.get("folderID") in REAL_IDS:
        body["folderID"] = call("create-folder", {"path": throwaway_folder()})["folderID"]
    elif operation == "delete-folder" and body.get("folderID") in REAL_IDS:
        path = throwaway_folder()
        body["folderID"] = call("create-folder", {"path": path})["folderID"]
        call("create-flashcard", {"folder": path, "flashcardName": "inside", "cards": [{"front": "f", "back": "b"}]})
    elif operation == "delete-flashcard" and body.get("flashcardID") in REAL_IDS:
        path = throwaway_folder()
        call("create-folder", {"path": path})
        body["flashcardID"] = call("create-flashcard", {"folder": path, "flashcardName": "doomed", "cards": [{"front": "f", "back": "b"}]})["flashcardID"]
    elif operation == "delete-card" and body.get("cardID") in REAL_IDS:
        spare = DATA["spareFlashcard"]
        body["flashcardID"] = spare
        body["cardID"] = call("add-cards", {"flashcardID": spare, "cards": [{"front": "f", "back": "b"}]})["cardIDs"][0]
    elif operation == "logout-everywhere" and body.get("jwtToken") == DATA["token"]:
        body["jwtToken"] = throwaway_token()
    elif operation == "delete-goal" and body.get("goalID") in REAL_IDS:
        body["goalID"] = call("create-goal", {"type": "XP", "target": 10, "end_date": DATA["endDate"]})["goalID"]


@schemathesis.hook
def before_call(context, case, kwargs):
    operation = case.path.rsplit("/", 1)[-1]
    if isinstance(case.body, dict) and operation in CHANGING_PATHS:
        try:
            swap_for_throwaway(operation, case.body)
        except Exception:
            # the service refused or failed: the call goes out with the ids it had
            pass


@schemathesis.hook
def after_call(context, case, response):
    status = response.status_code
    line = {
        "operation": f"{case.method} {case.path}",
        "status": status,
        "real": isinstance(case.body, dict) and case.body.get("jwtToken") == DATA["token"],
    }
    if status >= 500:
        line["body"] = case.body
        line["response"] = response.text[:2000]
    elif status >= 400:
        try:
            line["error"] = str(json.loads(response.text).get("error"))[:120]
        except Exception:
            line["error"] = response.text[:120]
    with lock, open(RECORD, "a", encoding="utf-8") as record:
        record.write(json.dumps(line, default=str) + "\n")
