"""Game packages. Importing this package registers every shipped game."""
from pbem.games import holdfast  # noqa: F401
