"""A small SVG bar chart of the context size per turn, with a table as its text alternative."""

from django.utils.html import escape


def context_chart(series: list[dict], current: int, url_for) -> str:
    """Bars of input tokens per request; the current step is marked, and every bar links."""
    if not series:
        return ""
    width, height, pad = 640, 160, 30
    top = max(max(r["context_after"] for r in series), 1)
    bar_w = (width - 2 * pad) / len(series)
    parts = [
        f'<svg class="chart" viewBox="0 0 {width} {height + 30}" role="group" '
        'aria-labelledby="chart-title chart-desc" xmlns="http://www.w3.org/2000/svg">',
        '<title id="chart-title">Context size per step</title>',
        f'<desc id="chart-desc">Input tokens sent at each of {len(series)} '
        f"step{'s' if len(series) != 1 else ''}; the largest "
        f"is {top} tokens including output. The table below lists every value.</desc>",
        f'<line class="c-axis" x1="{pad}" y1="{height}" x2="{width - pad}" y2="{height}"/>',
    ]
    for i, row in enumerate(series):
        h_in = (height - 10) * row["context_tokens"] / top
        h_out = (height - 10) * row["output_tokens"] / top
        x = pad + i * bar_w + 2
        w = max(bar_w - 4, 2)
        cls = "c-bar is-current" if row["step"] == current else "c-bar"
        parts.append(
            f'<a href="{escape(url_for(row["step"] + 1))}" aria-label="Step {row["step"] + 1}: '
            f'{row["context_tokens"]} input tokens">'
            f'<rect class="{cls}" x="{x:.1f}" y="{height - h_in:.1f}" width="{w:.1f}" '
            f'height="{h_in:.1f}"/>'
            f'<rect class="c-out" x="{x:.1f}" y="{height - h_in - h_out:.1f}" width="{w:.1f}" '
            f'height="{h_out:.1f}"/></a>'
        )
        if len(series) <= 20 or i % 5 == 0:
            parts.append(
                f'<text class="c-label" x="{x + w / 2:.1f}" y="{height + 18}" '
                f'text-anchor="middle">{row["step"] + 1}</text>'
            )
    parts.append("</svg>")
    return "".join(parts)
