"""Anki's own import of a package into a new, empty collection, timed in-process, for the
benchmark to set beside the service's (scripts/bench.ts, BENCH_ONLY=import). Prints one JSON
line: the seconds the import took, and what Anki counted afterwards.

Usage: python time_import.py PACKAGE FOLDER
"""
import json
import os
import sys
import time

from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest


def main() -> None:
    package, folder = sys.argv[1], sys.argv[2]
    col = Collection(os.path.join(folder, 'collection.anki2'))
    started = time.perf_counter()
    # File > Import's defaults, learning progress kept
    col.import_anki_package(ImportAnkiPackageRequest(
        package_path=package,
        options=ImportAnkiPackageOptions(with_scheduling=True, with_deck_configs=False, merge_notetypes=False)))
    seconds = time.perf_counter() - started
    counts = {
        'seconds': seconds,
        'notes': col.note_count(),
        'cards': col.card_count(),
        'revlog': col.db.scalar('select count() from revlog'),
    }
    col.close()
    print(json.dumps(counts))


if __name__ == '__main__':
    main()
