"""Per-side reports: a self-contained HTML page with an inline SVG hex map, and plain text.

Public API::

    from pbem.reports import ReportContext, IndexEntry, render_html, render_text, render_index
    from pbem.reports import render_svg

See docs/reports.md for the layout and the drawing conventions.
"""

from pbem.reports.context import IndexEntry, ReportContext, visible_events, visible_rolls
from pbem.reports.render import TEXT_WIDTH, render_html, render_index, render_text
from pbem.reports.svgmap import render_svg

__all__ = ["IndexEntry", "ReportContext", "TEXT_WIDTH", "render_html", "render_index",
           "render_svg", "render_text", "visible_events", "visible_rolls"]
