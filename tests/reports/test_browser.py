"""Render the sample report in headless Chromium: it must paint something and keep its DOM.

Skipped when /usr/bin/chromium is absent (CI installs Debian's ``chromium`` package).
Set PBEM_SAVE_SCREENSHOT=1 to copy the screenshot to docs/report-screenshot.png.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import zlib
from pathlib import Path

import pytest

from fixtures.report_samples import ROOT, make_context, make_map
from pbem.reports import render_html

CHROMIUM = Path("/usr/bin/chromium")

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="headless browser test needs /usr/bin/chromium "
                                       "(apt-get install chromium)")


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    cmd = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", f"--user-data-dir={tmp_path / 'profile'}", *args]
    return subprocess.run(cmd, capture_output=True, timeout=120, check=False)


def _png_pixels(data: bytes) -> tuple[int, int, int, list[bytes]]:
    """Decode an 8-bit, non-interlaced PNG into (width, height, bytes per pixel, rows)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    width = height = bpp = 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and interlace == 0, (depth, interlace)
            bpp = {0: 1, 2: 3, 4: 2, 6: 4}[colour]
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows: list[bytes] = []
    prev = bytearray(stride)
    i = 0
    for _ in range(height):
        filt = raw[i]
        line = bytearray(raw[i + 1:i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if filt == 1:
                line[x] = (line[x] + a) & 255
            elif filt == 2:
                line[x] = (line[x] + b) & 255
            elif filt == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif filt == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, bpp, rows


@pytest.fixture
def report_file(tmp_path: Path) -> Path:
    page = render_html(make_context(), make_map(tmp_path))
    out = tmp_path / "report.html"
    out.write_text(page, encoding="utf-8")
    return out


def test_screenshot_is_not_blank(tmp_path: Path, report_file: Path) -> None:
    png = tmp_path / "shot.png"
    res = _chromium(tmp_path, f"--screenshot={png}", "--window-size=1400,1000",
                    report_file.as_uri())
    assert png.exists(), res.stderr.decode(errors="replace")[-2000:]
    width, height, bpp, rows = _png_pixels(png.read_bytes())
    assert (width, height) == (1400, 1000)
    colours = set()
    for y in range(0, height, 7):
        row = rows[y]
        for x in range(0, width, 7):
            colours.add(row[x * bpp:x * bpp + 3])
    assert len(colours) > 50, f"screenshot looks blank: {len(colours)} colours"
    # The map's sea blue and the header's dark brown are on screen.
    assert any(b > r + 40 and b > 150 for r, g, b in colours), "no sea on the map"
    if os.environ.get("PBEM_SAVE_SCREENSHOT") == "1":
        shutil.copyfile(png, ROOT / "docs" / "report-screenshot.png")


def test_dom_has_units_and_hexes(tmp_path: Path, report_file: Path) -> None:
    res = _chromium(tmp_path, "--dump-dom", report_file.as_uri())
    dom = res.stdout.decode("utf-8", errors="replace")
    assert "<svg" in dom, res.stderr.decode(errors="replace")[-2000:]
    for hx in ("0101", "0805", "1209"):
        assert f'data-hex="{hx}"' in dom and f">{hx}<" in dom
    for label in ("1 Gds", "Blade", "CCB", "78 Div", "10 Pz"):
        assert f">{label}<" in dom
    assert dom.count('class="unit masked"') == 4
    assert "Porto Vecchio" in dom and "Reply data" in dom
