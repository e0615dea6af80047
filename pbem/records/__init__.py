"""Game records for archivists: one-file records, replay pages, dice statistics, a library.

- record.py   the one-file record: export an archive, read a record (strictly), import it
- source.py   a verified game from a record or an archive folder, as steps (one per file)
- textlog.py  the readable move list (plain text) and JSON lines
- stats.py    dice statistics: counts, means, chi-square goodness of fit, luck, SVG charts
- replay.py   the self-contained replay page (map per step, events, dice, browser verifier)
- library.py  an incremental index of a folder of records: library.json and index.html

The pages' scripts are in templates/records/: replay.js (the controls) and verifier.js (the
browser's own verifier of a record, with WebCrypto, written from docs/protocol.md alone).

See docs/records.md.
"""
