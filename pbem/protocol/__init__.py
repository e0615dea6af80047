"""The file exchange: archives, genesis, verification, resolution and the per-command operations."""
