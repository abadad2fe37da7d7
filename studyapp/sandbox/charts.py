"""A small SVG bar chart of the context size per turn, with a table as its text alternative."""

from django.utils.formats import number_format
from django.utils.html import escape
from django.utils.translation import get_language, gettext, gettext_noop, ngettext, pgettext

#: Chinese counts large numbers in ten thousands (万/萬), not in thousands.
TEN_THOUSANDS = {"zh-hans": "万", "zh-hant": "萬"}
#: The markers' words (the chart translates them when it draws them).
COMPACTED, CLEARED = gettext_noop("compacted"), gettext_noop("cleared")


def _english() -> bool:
    return (get_language() or "en") == "en"


def _number(n: int) -> str:
    """A whole number as the page's language writes it (English: as before, not grouped)."""
    return str(n) if _english() else number_format(n, force_grouping=True)


def context_chart(series: list[dict], current: int, url_for, markers=None) -> str:
    """Bars of input tokens per request; the current step is marked, and every bar links."""
    if not series:
        return ""
    width, height, pad = 640, 160, 30
    top = max(max(r["context_after"] for r in series), 1)
    bar_w = (width - 2 * pad) / len(series)
    # (xgettext reads no call inside an f-string: the words are looked up first)
    title, step_word = escape(gettext("Context size per step")), escape(gettext("step"))
    in_word, out_word = escape(gettext("input tokens")), escape(gettext("output tokens"))
    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height + 30}" role="group" '
        'aria-labelledby="chart-title chart-desc" xmlns="http://www.w3.org/2000/svg">',
        f'<title id="chart-title">{title}</title>',
        '<desc id="chart-desc">'
        + escape(
            ngettext(
                "Input tokens sent at each of %(n)s step; the largest is %(top)s tokens "
                "including output. The table below lists every value.",
                "Input tokens sent at each of %(n)s steps; the largest is %(top)s tokens "
                "including output. The table below lists every value.",
                len(series),
            )
            % {"n": len(series), "top": _number(top)}
        )
        + "</desc>",
        f'<line class="c-axis" x1="{pad}" y1="{height}" x2="{width - pad}" y2="{height}"/>',
    ]
    for i, row in enumerate(series):
        h_in = (height - 10) * row["context_tokens"] / top
        h_out = (height - 10) * row["output_tokens"] / top
        x = pad + i * bar_w + 2
        w = max(bar_w - 4, 2)
        cls = "c-bar is-current" if row["step"] == current else "c-bar"
        parts.append(
            f'<a href="{escape(url_for(row["step"] + 1))}" aria-label="'
            + escape(
                gettext("Step %(n)s: %(tokens)s input tokens")
                % {"n": row["step"] + 1, "tokens": _number(row["context_tokens"])}
            )
            + '">'
            f'<rect class="{cls}" data-step="{row["step"]}" x="{x:.1f}" y="{height - h_in:.1f}" '
            f'width="{w:.1f}" height="{h_in:.1f}"/>'
            f'<rect class="c-out" x="{x:.1f}" y="{height - h_in - h_out:.1f}" width="{w:.1f}" '
            f'height="{h_out:.1f}"/></a>'
        )
        if len(series) <= 20 or i % 5 == 0:
            parts.append(
                f'<text class="c-label" x="{x + w / 2:.1f}" y="{height + 18}" '
                f'text-anchor="middle">{row["step"] + 1}</text>'
            )
    # axes: tokens up the side, steps along the bottom; a legend; compaction / clearing markers
    parts.append(f'<line class="c-axis" x1="{pad}" y1="10" x2="{pad}" y2="{height}"/>')
    parts.append(f'<text class="c-label" x="{pad - 4}" y="{height}" text-anchor="end">0</text>')
    parts.append(
        f'<text class="c-label" x="{pad - 4}" y="14" text-anchor="end">{_short(top)}</text>'
    )
    parts.append(
        f'<text class="c-label" x="{width - pad}" y="{height + 30}" text-anchor="end">'
        f"{step_word}</text>"
    )
    parts.append(
        f'<rect class="c-bar" x="{pad + 6}" y="2" width="10" height="8"/>'
        f'<text class="c-label" x="{pad + 20}" y="10">{in_word}</text>'
        f'<rect class="c-out" x="{pad + 110}" y="2" width="10" height="8"/>'
        f'<text class="c-label" x="{pad + 124}" y="10">{out_word}</text>'
    )
    position = {row["step"]: i for i, row in enumerate(series)}
    for step, label in sorted((markers or {}).items()):
        if step not in position:
            continue
        x = pad + position[step] * bar_w + 1
        parts.append(
            f'<line class="c-marker" x1="{x:.1f}" y1="12" x2="{x:.1f}" y2="{height}" '
            'stroke-dasharray="4 3"/>'
            f'<text class="c-label c-marker-label" x="{x + 2:.1f}" y="24">'
            f"{escape(gettext(label))}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _short(n: int) -> str:
    """The axis's top value, short: 12.3k in English (as before), 12,3 tys. in Polish, 1.2万 in
    Simplified Chinese; the decimal separator is the language's."""
    if _english():
        return f"{n / 1000:.1f}k" if n >= 1000 else str(n)
    unit = TEN_THOUSANDS.get(get_language() or "")
    if unit:
        return f"{_one_decimal(n / 10_000)}{unit}" if n >= 10_000 else _number(n)
    if n < 1000:
        return str(n)
    # Translators: an axis label, a number of thousands of tokens written short ("12.3k")
    return pgettext("thousands, short", "%(n)sk") % {"n": _one_decimal(n / 1000)}


def _one_decimal(x: float) -> str:
    # rounded as the English label is (number_format alone would cut the digits off)
    return number_format(float(f"{x:.1f}"), 1)


def context_markers(turns) -> dict[int, str]:
    """Steps where the context was compacted or cleared (a compaction block, applied edits)."""
    out: dict[int, str] = {}
    for turn in turns:
        response = turn.response
        if any(b.type == "compaction" for b in turn.blocks):
            out[turn.index] = COMPACTED
        cm = response.get("context_management")
        if isinstance(cm, dict) and cm.get("applied_edits"):
            out[turn.index] = CLEARED
    return out
