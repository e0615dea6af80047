"""Kasserine: Baptism of Fire (Decision Games, Fire & Movement system), February 1943.

Data only for now: ``scenario.py`` loads and validates ``scenarios/kasserine/`` and ``crt.py`` reads
the Combat Results Table. The game is not registered with ``pbem.core.registry`` yet.
"""
