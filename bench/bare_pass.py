"""The bare cryptographic pass over an archive's signed files: the floor `pbem verify` is measured against.

Usage: python bench/bare_pass.py ARCHIVE [--quick-exit]
(prints: seconds after the imports, files checked, CPU seconds after the imports; with
--quick-exit the process then ends with os._exit, as `pbem verify` does, without the
interpreter's teardown)

For every signed file of files/ (proposal, acceptances, turn files): read the bytes, take the
armored block apart (base64), decode the envelope and the payload (msgspec JSON, untyped),
SHA-256 the payload, and verify the Ed25519 signature over pbem's domain-separated input
(docs/protocol.md) with the sender's key from the proposal. Nothing else: no canonical
re-encoding check, no chain links, no dice, no rules. It imports no pbem module, so as a whole
process it is the interpreter plus msgspec and cryptography's Ed25519.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import struct
import sys
import time
from pathlib import Path

import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

_NAME = re.compile(r"^(\d{4})-(proposal|accept-[a-z0-9_-]+|[a-z0-9_-]+)\.pbem$")
_NAMESPACE = {"pbem/proposal/v1": b"pbem-genesis-v1", "pbem/accept/v1": b"pbem-genesis-v1",
              "pbem/turn/v1": b"pbem-turn-v1"}


def _lp(b: bytes) -> bytes:
    return struct.pack(">I", len(b)) + b


def _block(raw: bytes) -> bytes:
    """The bytes of the one armored block of a canonical file."""
    text = raw.decode("ascii")
    body = text.split("-----BEGIN PBEM FILE-----\n", 1)[1].split("-----END PBEM FILE-----", 1)[0]
    return base64.b64decode("".join(body.split()), validate=True)


def bare_pass(archive: Path) -> int:
    """Check every signed file of archive as described above; returns how many (all valid)."""
    paths = sorted((p for p in (archive / "files").iterdir() if _NAME.match(p.name)),
                   key=lambda p: (int(p.name[:4]), 0 if "proposal" in p.name else
                                  1 if "-accept-" in p.name else 2))
    pubs: dict[str, Ed25519PublicKey] = {}
    for p in paths:
        env = msgspec.json.decode(_block(p.read_bytes()))
        payload = base64.b64decode(env["payload"], validate=True)
        sig = base64.b64decode(env["sig"], validate=True)
        body = msgspec.json.decode(payload)
        kind = body["type"]
        if kind == "pbem/proposal/v1":
            pubs = {k["party"]: Ed25519PublicKey.from_public_bytes(bytes.fromhex(k["pub"]))
                    for k in body["parties"]}
            signer = body["proposer"]
        else:
            signer = body.get("sender") or body.get("party")
        digest = hashlib.sha256(payload).digest()
        pubs[signer].verify(sig, b"PBEMSIG1" + _lp(_NAMESPACE[kind]) + _lp(b"sha256")
                            + _lp(digest))
    return len(paths)


def main() -> None:
    """Time the pass after the imports; print seconds and the number of files."""
    t0, c0 = time.perf_counter(), time.process_time()
    n = bare_pass(Path(sys.argv[1]))
    print(f"{time.perf_counter() - t0:.6f} {n} {time.process_time() - c0:.6f}")
    if "--quick-exit" in sys.argv[2:]:
        sys.stdout.flush()
        os._exit(0)


if __name__ == "__main__":
    main()
