"""The error taxonomy: every user-facing failure is a PbemError with a one-line message.

Each kind of failure has its exit status (docs/cli.md, "Exit codes"): the command line exits
with the exit_code of the error it reports.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_REFUSED = 1      # an input was refused: illegal orders, a bad file, a wrong passphrase, ...
EXIT_USAGE = 2        # the command line itself is wrong (click's usage errors)
EXIT_CHEATING = 3     # an audit failed: a signed file is forged or altered, or proves cheating
                      # (illegal orders signed, dice or results that disagree) or equivocation
EXIT_INTERNAL = 4     # a bug in pbem: an unexpected exception
REPORT_BUGS = ("please report it at the project's issue tracker with the command you ran and "
               "this message")


class PbemError(Exception):
    """Base of every error pbem reports to a user as one clean line."""

    exit_code = EXIT_REFUSED


class ScenarioError(PbemError):
    """Scenario or rules data is missing, malformed or inconsistent."""


class FileRejected(PbemError):
    """A received or stored file failed verification (signature, chain, format, ...)."""


class IllegalFile(FileRejected):
    """A well-signed, well-chained file whose orders break the rules before any die is rolled.

    order is the 1-based index of the refused order; reason and rule say why. Its sender's
    signature on illegal orders is the proof (exit code EXIT_CHEATING).
    """

    exit_code = EXIT_CHEATING

    def __init__(self, message: str, *, order: int, reason: str, rule: str = "") -> None:
        self.order, self.reason, self.rule = order, reason, rule
        super().__init__(message)

    def __reduce__(self) -> tuple:
        """Pickled whole (a process pool's worker sends it back; the default pickling calls
        the class with the message alone, which its keywords refuse)."""
        return (_rebuild, (type(self), str(self), {"order": self.order, "reason": self.reason,
                                                    "rule": self.rule}))


class OutOfOrder(FileRejected):
    """A file of the game numbered past the next one: the files before it are not stored yet
    (mail may deliver them late), so it may be received once they are."""


class Equivocation(FileRejected):
    """Two validly signed files claim the same (game id, sequence number)."""

    exit_code = EXIT_CHEATING


class FalseRejection(FileRejected):
    """Hosted mode: a referee's signed rejection that the refused file's writer's own view
    contradicts (a legal file refused, or another order or reason named): the rejection is the
    proof."""

    exit_code = EXIT_CHEATING


class OrderError(PbemError):
    """An order is malformed or illegal; carries the line, the order text and the rule id."""

    def __init__(self, message: str, *, rule: str = "", line: int | None = None,
                 order: str = "") -> None:
        self.rule, self.line, self.order, self.reason = rule, line, order, message
        super().__init__(self.describe())

    def __reduce__(self) -> tuple:
        """Pickled whole, its line, order and rule kept (see IllegalFile.__reduce__)."""
        return (_rebuild_order_error, (type(self), self.reason, self.rule, self.line,
                                       self.order))

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


class ArchiveBusy(ArchiveError):
    """Another pbem process holds the archive's lock (try again once it is done)."""


class WrongKey(ArchiveError):
    """The key given is not the archive's party's key in this game."""

    def __init__(self, message: str, *, party: str = "", key_path: str = "") -> None:
        self.party, self.key_path = party, key_path     # key_path: the file, once named
        super().__init__(message)

    def __reduce__(self) -> tuple:
        """Pickled whole (the keywords)."""
        return (_rebuild, (type(self), str(self), {"party": self.party,
                                                    "key_path": self.key_path}))


class KeyFileError(PbemError):
    """A key file is missing, malformed, or the passphrase is wrong."""


def _rebuild(cls: type, message: str, keywords: dict) -> Exception:
    """An error unpickled: its class called with its message and keywords."""
    return cls(message, **keywords)


def _rebuild_order_error(cls: type, reason: str, rule: str, line: int | None,
                         order: str) -> OrderError:
    """An OrderError unpickled (its message is rebuilt from its parts)."""
    return cls(reason, rule=rule, line=line, order=order)
