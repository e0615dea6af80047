"""Canonical payload bytes: msgspec JSON, sorted keys, under the no-float profile.

Under this profile (no floats, integers within +/-(2**53 - 1), ASCII object keys) the bytes
equal RFC 8785 (JCS), so an independent verifier can be written in any language.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, TypeVar

import msgspec

from pbem.core.errors import FileRejected

T = TypeVar("T")
MAX_INT = 2**53 - 1
_ENCODER = msgspec.json.Encoder(order="sorted")


def check_profile(obj: Any, where: str = "$") -> None:
    """Raise ValueError if a decoded builtin value leaves the canonical profile."""
    if isinstance(obj, bool) or obj is None or isinstance(obj, str):
        return
    if isinstance(obj, int):
        if not -MAX_INT <= obj <= MAX_INT:
            raise ValueError(f"integer out of range at {where}")
        return
    if isinstance(obj, float):
        raise ValueError(f"float at {where} (floats are not allowed)")
    if isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            check_profile(v, f"{where}[{i}]")
        return
    if isinstance(obj, dict):
        for k, v in obj.items():
            if not isinstance(k, str) or not k.isascii():
                raise ValueError(f"non-ASCII key at {where}")
            check_profile(v, f"{where}.{k}")
        return
    raise ValueError(f"unsupported value of type {type(obj).__name__} at {where}")


def _no_float(text: str) -> Any:
    raise ValueError(f"float {text} (floats are not allowed)")


_PROFILE_DECODER = msgspec.json.Decoder(float_hook=_no_float)
# every digit as "0", every other byte as "x": a run of 16 digits (a number that may leave the
# safe range) is then a plain substring search, several times faster than a regex
_DIGITS_AS_ZERO = bytes(0x30 if 0x30 <= b <= 0x39 else 0x78 for b in range(256))
_LONG_RUN = b"0" * 16


def _long_digits(data: bytes) -> bool:
    """True if data holds a run of 16 or more ASCII digits."""
    return _LONG_RUN in data.translate(_DIGITS_AS_ZERO)


def check_bytes(data: bytes) -> None:
    """Raise ValueError if canonical JSON bytes leave the profile (fast path in C)."""
    try:
        obj = _PROFILE_DECODER.decode(data)
    except msgspec.ValidationError as e:
        raise ValueError(str(e)) from None
    if not data.isascii() or _long_digits(data):
        check_profile(obj)  # rare: non-ASCII text or long numbers need the precise check


def canonical(obj: Any) -> bytes:
    """Encode a struct or builtin value as canonical bytes (sorted keys, profile checked)."""
    data = _ENCODER.encode(obj)
    check_bytes(data)
    return data


MAX_DEPTH = 64                # nesting of arrays and objects any record may have
_ESCAPE = re.compile(rb"\\.", re.S)
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'"[]{}')
_AS_PARENS = bytes.maketrans(b"[]{}", b"()()")


def check_depth(data: bytes, limit: int = MAX_DEPTH) -> None:
    """Raise ValueError if JSON bytes nest arrays/objects deeper than limit (before decoding).

    Brackets inside strings do not count. The bound is exact for well-formed JSON and never
    lower than the depth a decoder would reach on malformed input, and the scan is linear in
    C (about limit passes over the brackets alone), so hostile input costs nothing much.
    """
    if data.count(b"[") + data.count(b"{") <= limit:
        return
    if b"\\" in data:
        data = _ESCAPE.sub(b"", data)          # escapes inside strings (\" among them)
    # quotes and brackets only; two adjacent quotes can go (no quote changes parity)
    s = data.translate(None, _NOT_STRUCTURE).replace(b'""', b"")
    if b'"' in s:
        s = b"".join(s.split(b'"')[0::2])       # brackets outside strings
    s = s.translate(_AS_PARENS)
    depth = 0
    while b"()" in s:                           # each pass removes the innermost level
        if depth == limit:
            raise ValueError(f"nested deeper than {limit} levels")
        s = s.replace(b"()", b"")
        depth += 1
    if depth + s.count(b"(") > limit:          # brackets left open also nest
        raise ValueError(f"nested deeper than {limit} levels")


def decode_canonical(data: bytes, type_: type[T], *, name: str = "payload") -> T:
    """Strictly decode canonical bytes into type_; reject anything that does not re-encode equal."""
    try:
        check_depth(data)
        obj = msgspec.json.decode(data, type=type_, strict=True)
        again = canonical(obj)
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError, RecursionError) as e:
        raise FileRejected(f"{name}: malformed payload ({e})") from None
    if again != data:
        raise FileRejected(f"{name}: payload is not in canonical form (duplicate key, "
                           "whitespace, key order or escaping differs)")
    return obj


def sha256(data: bytes) -> bytes:
    """SHA-256 digest."""
    return hashlib.sha256(data).digest()


def sha256_hex(data: bytes) -> str:
    """SHA-256 as lower-case hex."""
    return hashlib.sha256(data).hexdigest()
