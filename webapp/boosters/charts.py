"""A histogram as inline SVG, drawn on the server: no chart library, works without JS."""

from __future__ import annotations

from flask_babel import gettext as _
from markupsafe import Markup, escape

WIDTH, HEIGHT = 640, 220
LEFT, BOTTOM, TOP = 44, 28, 10
MAX_BARS = 80


def _bins(histogram: dict[int, int]) -> list[tuple[int, int, int]]:
    """(first box count, last box count, trials) per bar: one box per bar, grouped past 80."""
    if not histogram:
        return []
    low, high = min(histogram), max(histogram)
    width = max(1, -(-(high - low + 1) // MAX_BARS))
    bars = []
    for start in range(low, high + 1, width):
        end = min(start + width - 1, high)
        bars.append((start, end, sum(histogram.get(b, 0) for b in range(start, end + 1))))
    return bars


def histogram_svg(histogram: dict[int, int], *, label: str) -> Markup:
    """Bars of trials per number of boxes; each bar has a tooltip with its exact count."""
    bars = _bins(histogram)
    if not bars:
        return Markup("")
    tallest = max(count for _s, _e, count in bars) or 1
    plot_w, plot_h = WIDTH - LEFT - 8, HEIGHT - BOTTOM - TOP
    step = plot_w / len(bars)
    parts = [
        f'<svg class="histogram" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" aria-labelledby="hist-{id(bars)}">',
        f'<title id="hist-{id(bars)}">{escape(label)}</title>',
        f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{WIDTH - 8}" y2="{TOP + plot_h}" class="axis"/>',
        f'<text x="{LEFT - 6}" y="{TOP + 10}" class="tick" text-anchor="end">{tallest}</text>',
        f'<text x="{LEFT - 6}" y="{TOP + plot_h}" class="tick" text-anchor="end">0</text>',
    ]
    for index, (start, end, count) in enumerate(bars):
        height = plot_h * count / tallest
        x = LEFT + index * step
        span = str(start) if start == end else f"{start}–{end}"
        tip = escape(_("%(boxes)s 盒：%(count)d 次", boxes=span, count=count))
        parts.append(
            f'<rect x="{x + 0.5:.1f}" y="{TOP + plot_h - height:.1f}" width="{max(step - 1, 1):.1f}" '
            f'height="{height:.1f}" class="bar"><title>{tip}</title></rect>'
        )
    every = max(1, len(bars) // 10)
    for index, (start, _end, _count) in enumerate(bars):
        if index % every == 0 or index == len(bars) - 1:
            x = LEFT + (index + 0.5) * step
            parts.append(f'<text x="{x:.1f}" y="{HEIGHT - 10}" class="tick" text-anchor="middle">{start}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))
