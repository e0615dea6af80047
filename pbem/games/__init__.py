"""The games shipped with pbem, one package each.

Nothing imports this package to find the games: each declares itself in pyproject.toml under
the ``pbem.games`` entry point group and pbem.core.registry loads it from there.
"""
