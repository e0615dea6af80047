"""The error taxonomy: every user-facing failure is a PbemError with a one-line message."""

from __future__ import annotations


class PbemError(Exception):
    """Base of every error pbem reports to a user as one clean line."""


class ScenarioError(PbemError):
    """Scenario or rules data is missing, malformed or inconsistent."""


class FileRejected(PbemError):
    """A received or stored file failed verification (signature, chain, format, ...)."""


class IllegalFile(FileRejected):
    """A well-signed, well-chained file whose orders break the rules before any die is rolled.

    order is the 1-based index of the refused order; reason and rule say why.
    """

    def __init__(self, message: str, *, order: int, reason: str, rule: str = "") -> None:
        self.order, self.reason, self.rule = order, reason, rule
        super().__init__(message)


class Equivocation(FileRejected):
    """Two validly signed files claim the same (game id, sequence number)."""


class OrderError(PbemError):
    """An order is malformed or illegal; carries the line, the order text and the rule id."""

    def __init__(self, message: str, *, rule: str = "", line: int | None = None,
                 order: str = "") -> None:
        self.rule, self.line, self.order, self.reason = rule, line, order, message
        super().__init__(self.describe())

    def describe(self) -> str:
        """The one-line description: line, order, reason and rule id."""
        parts = []
        if self.line is not None:
            parts.append(f"line {self.line}")
        if self.order:
            parts.append(f"{self.order!r}")
        head = ": ".join([" ".join(parts)] if parts else [])
        rule = f" [{self.rule}]" if self.rule else ""
        return f"{head}: {self.reason}{rule}" if head else f"{self.reason}{rule}"


class OrderSyntaxError(OrderError):
    """An order that does not parse in the game's notation."""


class IllegalOrder(OrderError):
    """An order that parses but the rules forbid in the current position."""


class ArchiveError(PbemError):
    """The archive folder is missing, locked, or inconsistent."""


class KeyFileError(PbemError):
    """A key file is missing, malformed, or the passphrase is wrong."""
