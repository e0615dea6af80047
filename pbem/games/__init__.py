"""Game packages. Importing this package registers every shipped game."""
from pbem.games import holdfast  # noqa: F401
from pbem.games import kasserine  # noqa: F401
