"""The club ladder: results only from archives the ladder verifies itself.

One SQLite file per ladder (`db`), players identified by their key's fingerprint
(`players`), games recorded from verified archives (`archives`, `submit`, `record`),
openskill ratings replayed in recorded order (`ratings`), forfeit claims (`forfeits`, signed
`statements`), standings (`standings`), a static site (`site`, `charts`) and pairings
(`pairings`). The command line is `pbem.cli_ladder`; the guide is docs/ladder.md.
"""
