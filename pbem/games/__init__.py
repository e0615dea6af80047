"""Game packages. Importing this package registers every shipped game."""
