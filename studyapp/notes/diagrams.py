"""SVG diagrams of the loop, generated from the agentloop catalogues (no hand-drawn facts).

Every diagram is laid out for a narrow column (360 units wide, so it is drawn near 1:1 on a
375 px phone and never shrinks below legible) and keeps a model of its boxes and labels, so a
test can check that no label overflows its box and nothing leaves the canvas. Colours come
from CSS classes (``.d-*`` in site.css), so dark mode follows the page. Each figure carries a
``<title>``, a ``<desc>`` and the same facts in words below it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.utils.html import escape
from django.utils.translation import gettext, gettext_noop

from core import i18n
from studyapp.agentloop import runner

WIDTH = 360
PAD = 8  # inner padding of a box
SANS, MONO = "sans", "mono"

# Estimated advance widths in em, deliberately generous (bold system-ui); a browser test
# measures the real extents with getBBox.
_NARROW = set("il.,:;'|!()[]{}`/\\ ")
_WIDE = set("mwMW@%")


def _is_wide(ch: str) -> bool:
    """A Han, kana or full-width character: a full em wide, and a line may break beside it."""
    return "\u2e80" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" or "\uff00" <= ch <= "\uffef"


def text_width(text: str, size: float, font: str = SANS) -> float:
    if font == MONO:
        return sum(1.0 if _is_wide(ch) else 0.62 for ch in text) * size
    total = 0.0
    for ch in text:
        if _is_wide(ch):
            total += 1.0
        elif ch in _NARROW:
            total += 0.34
        elif ch in _WIDE:
            total += 0.92
        elif ch.isupper() or ch.isdigit():
            total += 0.68
        else:
            total += 0.58
    return total * size


def _units(text: str) -> list[tuple[str, str]]:
    """(separator, unit) pairs: words, and each Chinese character on its own (Chinese has no
    spaces and may break between any two characters, but not before closing punctuation)."""
    units: list[tuple[str, str]] = []
    for word in text.split():
        sep = " "
        for part in re.findall(
            r"[\u2e80-\u9fff\uf900-\ufaff][\u3000-\u303f\uff00-\uffef]*|[^\u2e80-\u9fff\uf900-\ufaff]+",
            word,
        ):
            units.append((sep, part))
            sep = ""
    return units


def wrap(text: str, width: float, size: float, font: str = SANS) -> list[str]:
    """Greedy word wrap by estimated width; a word longer than the line stands alone."""
    lines: list[str] = []
    line = ""
    for sep, word in _units(text):
        trial = f"{line}{sep}{word}".strip() if line else word
        if line and text_width(trial, size, font) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    if line:
        lines.append(line)
    return lines


@dataclass
class Box:
    id: str
    x: float
    y: float
    w: float
    h: float
    cls: str = ""
    drawn: bool = True  # False: a region that only bounds labels (e.g. between lifelines)


@dataclass
class Label:
    box: str
    x: float
    y: float  # baseline
    text: str
    size: float
    font: str = SANS
    anchor: str = "start"  # start | middle
    cls: str = "d-label"

    def extent(self) -> tuple[float, float, float, float]:
        w = text_width(self.text, self.size, self.font)
        left = self.x - w / 2 if self.anchor == "middle" else self.x
        return left, self.y - self.size * 0.8, left + w, self.y + self.size * 0.25


@dataclass
class Diagram:
    slug: str
    title: str
    desc: str
    words: list[str]  # the text alternative, one item per fact
    caption: str
    boxes: dict[str, Box] = field(default_factory=dict)
    labels: list[Label] = field(default_factory=list)
    paths: list[tuple[str, str, list[tuple[float, float]]]] = field(default_factory=list)
    height: float = 0

    def box(self, id: str, x, y, w, h, cls="", drawn=True) -> Box:
        b = self.boxes[id] = Box(id, x, y, w, h, cls, drawn)
        self.height = max(self.height, y + h + 10)
        return b

    def label(self, box: str, x, y, text, size=12.5, font=SANS, anchor="start", cls="d-label"):
        self.labels.append(Label(box, x, y, text, size, font, anchor, cls))

    def lines(self, box: Box, top: float, texts: list[str], size=12.5, font=SANS, cls="d-label",
              gap=1.3, anchor="start") -> float:  # fmt: skip
        """Wrapped lines inside a box from ``top``; returns the y below the last line."""
        y = top
        inner = box.w - 2 * PAD
        x = box.x + box.w / 2 if anchor == "middle" else box.x + PAD
        for text in texts:
            for line in wrap(text, inner, size, font):
                y += size * gap
                self.label(box.id, x, y - size * 0.3, line, size, font, anchor, cls)
        return y

    def path(self, cls: str, *points: tuple[float, float]) -> None:
        self.paths.append((cls, "", list(points)))

    # --- checks ------------------------------------------------------------------------------

    def problems(self) -> list[str]:
        """Labels that overflow their box, and anything outside the canvas."""
        found = []
        for lab in self.labels:
            b = self.boxes[lab.box]
            left, top, right, bottom = lab.extent()
            if left < b.x + 2 or right > b.x + b.w - 2 or top < b.y or bottom > b.y + b.h:
                found.append(f"{self.slug}: label {lab.text!r} overflows box {b.id}")
        for b in self.boxes.values():
            if b.x < 0 or b.y < 0 or b.x + b.w > WIDTH or b.y + b.h > self.height:
                found.append(f"{self.slug}: box {b.id} leaves the canvas")
        for cls, _, pts in self.paths:
            for x, y in pts:
                if not (0 <= x <= WIDTH and 0 <= y <= self.height):
                    found.append(f"{self.slug}: a {cls} line leaves the canvas at ({x}, {y})")
        return found

    # --- output ------------------------------------------------------------------------------

    def svg(self) -> str:
        sid = f"dg-{self.slug}"
        out = [
            f'<svg class="diagram" id="{sid}" viewBox="0 0 {WIDTH} {self.height:.0f}" '
            f'role="img" aria-labelledby="{sid}-title {sid}-desc" '
            'xmlns="http://www.w3.org/2000/svg">',
            f'<title id="{sid}-title">{escape(self.title)}</title>',
            f'<desc id="{sid}-desc">{escape(self.desc)}</desc>',
            f'<defs><marker id="{sid}-arrow" viewBox="0 0 10 10" refX="9" refY="5" '
            'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
            '<path d="M0,0 L10,5 L0,10 z" class="d-arrowhead"/></marker></defs>',
        ]
        for cls, _, pts in self.paths:
            d = "M" + " L".join(f"{x:.1f},{y:.1f}" for x, y in pts)
            marker = "" if cls == "d-lifeline" else f' marker-end="url(#{sid}-arrow)"'
            out.append(f'<path class="d-edge {cls}" d="{d}"{marker}/>')
        for b in self.boxes.values():
            if b.drawn:
                out.append(
                    f'<rect class="d-box {b.cls}" id="{sid}-{b.id}" x="{b.x:.1f}" y="{b.y:.1f}" '
                    f'width="{b.w:.1f}" height="{b.h:.1f}" rx="6"/>'
                )
        for lab in self.labels:
            font = ' font-family="ui-monospace, Menlo, Consolas, monospace"' * (lab.font == MONO)
            out.append(
                f'<text class="{lab.cls}" data-box="{sid}-{lab.box}" x="{lab.x:.1f}" '
                f'y="{lab.y:.1f}" font-size="{lab.size}"{font} text-anchor="{lab.anchor}">'
                f"{escape(lab.text)}</text>"
            )
        out.append("</svg>")
        return "".join(out)

    def html(self) -> str:
        items = "".join(f"<li>{escape(w)}</li>" for w in self.words)
        return (
            f'<figure class="diagram-figure" id="figure-{self.slug}">'
            + self.svg()
            + f"<figcaption>{escape(self.caption)}<details><summary>"
            + escape(gettext("The diagram in words"))
            + f"</summary><ul>{items}</ul></details></figcaption></figure>"
        )


def _region(d: Diagram, id: str, x, y, w, h) -> Box:
    """An undrawn box that bounds labels, e.g. the space between two lifelines."""
    return d.box(id, x, y, w, h, drawn=False)


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


# --- 1. the loop as a state machine -------------------------------------------------------------


def _reason_words(r) -> str:
    """One stop_reason of the state diagram, in words (the list under the figure)."""
    line = (
        gettext("%(value)s: call again. %(action)s.")
        if r.continues
        else gettext("%(value)s: leave the loop. %(action)s.")
    ) % {"value": r.value, "action": r.next_action.label}
    if not r.alternate_action:
        return line
    return gettext("%(line)s If %(when)s: %(action)s.") % {
        "line": line,
        "when": r.alternate_when,
        "action": i18n.next_actions()[r.alternate_action].label,
    }


def state_machine() -> Diagram:
    reasons = list(i18n.stop_reasons().values())
    d = Diagram(
        "stop-reasons",
        gettext("What the loop does after each stop_reason"),
        gettext(
            "The application calls the Messages API and reads stop_reason. Two values (tool_use "
            "and pause_turn) lead back to another call; the other five leave the loop. The list "
            "below says the same in words."
        ),
        [_reason_words(r) for r in reasons],
        gettext(
            "One step of the loop. Teal cards send the turn back to the API (dashed line); grey "
            "cards leave the loop."
        ),
    )
    top = d.box("call", 20, 10, 290, 44, "d-start")
    d.lines(
        top,
        top.y + 4,
        [gettext("Call the Messages API (full history, same tools)")],
        13,
        anchor="middle",
    )
    y = top.y + top.h + 22
    trunk_x, card_x, card_w, lane_x = 12, 30, 280, 334
    first_branch = y + 14
    for r in reasons:
        texts = [r.next_action.label]
        if r.alternate_action:
            texts.append(
                gettext("If %(when)s: %(action)s")
                % {
                    "when": r.alternate_when,
                    "action": _lower_first(i18n.next_actions()[r.alternate_action].label),
                }
            )
        n_lines = sum(len(wrap(t, card_w - 2 * PAD, 11.5)) for t in texts)
        h = 12 + 16 + n_lines * 15 + 4
        card = d.box(f"sr-{r.value}", card_x, y, card_w, h,
                     "d-continue" if r.continues else "d-exit")  # fmt: skip
        d.label(card.id, card.x + PAD, y + 20, r.value, 12.5, MONO, cls="d-code")
        d.lines(card, y + 24, texts, 11.5, cls="d-small")
        d.path("", (trunk_x, y + 14), (card_x - 1, y + 14))
        last_branch = y + 14
        if r.continues:
            mid = y + h / 2
            d.path("d-loop", (card_x + card_w, mid), (lane_x, mid), (lane_x, top.y + top.h / 2),
                   (top.x + top.w + 1, top.y + top.h / 2))  # fmt: skip
        y += h + 10
    # One trunk from the call down the left edge, branching into every card.
    d.paths.insert(0, ("d-lifeline", "", [(top.x + 30, top.y + top.h),
                   (top.x + 30, top.y + top.h + 10), (trunk_x, top.y + top.h + 10),
                   (trunk_x, max(first_branch, last_branch))]))  # fmt: skip
    d.height = y + 4
    return d


# --- 2. tool_use round trip vs pause_turn resend -----------------------------------------------


def _sequence_panel(d: Diagram, key: str, y: float, heading: str, steps) -> float:
    """Two lifelines (your app, the API); ``steps`` are (kind, text) with kind in
    'to-api', 'to-app', 'app-self', 'api-self'."""
    app_x, api_x = 70, 290
    head = d.box(f"{key}-head", 6, y, WIDTH - 12, 26, "d-exit")
    d.lines(head, y + 1, [heading], 12.5, anchor="middle")
    y += 34
    for name, x in (("app", app_x), ("api", api_x)):
        b = d.box(f"{key}-{name}", x - 62, y, 124, 26, "d-start")
        d.lines(b, y + 1, [gettext("Your application") if name == "app" else "Messages API"], 12,
                anchor="middle")  # fmt: skip
    y += 26
    start = y
    for i, (kind, text) in enumerate(steps):
        if kind in ("to-api", "to-app"):
            lines = wrap(text, api_x - app_x - 16, 11.5)
            region = _region(d, f"{key}-m{i}", app_x + 2, y + 4, api_x - app_x - 4,
                             len(lines) * 15 + 6)  # fmt: skip
            d.lines(region, y + 4, [text], 11.5, cls="d-small", anchor="middle")
            y += len(lines) * 15 + 14
            a, b = (app_x, api_x) if kind == "to-api" else (api_x, app_x)
            d.path("d-msg", (a, y), (b + (-3 if b > a else 3), y))
            y += 8
        else:
            x = app_x if kind == "app-self" else api_x
            w = 128
            left = min(max(x - w / 2, 6), WIDTH - 6 - w)
            lines = wrap(text, w - 2 * PAD, 11.5)
            b = d.box(f"{key}-s{i}", left, y + 6, w, len(lines) * 15 + 10, "d-continue")
            d.lines(b, y + 8, [text], 11.5, cls="d-small", anchor="middle")
            y += b.h + 12
    for x in (app_x, api_x):
        d.paths.append(("d-lifeline", "", [(x, start), (x, y)]))
    return y + 14


def round_trips() -> Diagram:
    tool = i18n.stop_reasons()["tool_use"]
    pause = i18n.stop_reasons()["pause_turn"]
    d = Diagram(
        "round-trips",
        gettext("A tool_use round trip beside a pause_turn resend"),
        gettext(
            "Top: on tool_use the application runs the tool and answers with tool_result blocks "
            "in a user message. Bottom: on pause_turn the server's own tool loop paused; the "
            "application sends the assistant content back unchanged and runs nothing."
        ),
        [
            f"tool_use: {tool.next_action.detail}",
            f"pause_turn: {pause.next_action.detail}",
            gettext("Neither case adds a “please continue” user message."),
        ],
        gettext(
            "Who does the work between two calls: your code on tool_use, the server on pause_turn."
        ),
    )
    y = _sequence_panel(
        d, "tu", 6, gettext("tool_use: your code runs the tool"),
        [
            ("to-api", gettext("messages + tools")),
            ("to-app", gettext("stop_reason tool_use, with a tool_use block (id toolu_1)")),
            ("app-self", gettext("Run the tool in your code")),
            ("to-api", gettext("assistant content as received, then a user message: "
                         "tool_result for toolu_1")),
            ("to-app", gettext("stop_reason end_turn: the answer")),
        ],
    )  # fmt: skip
    y = _sequence_panel(
        d, "pt", y, gettext("pause_turn: the server's loop paused"),
        [
            ("to-api", gettext("messages + a server tool (web search)")),
            ("api-self", gettext("Server runs its tool loop (default limit: 10 iterations)")),
            ("to-app", gettext("stop_reason pause_turn: the turn so far")),
            ("to-api", gettext("the paused assistant content sent back as is, same tools, "
                         "no new user message")),
            ("to-app", gettext("stop_reason end_turn: the answer")),
        ],
    )  # fmt: skip
    d.height = y
    return d


# --- 3. parallel calls answered in one user message --------------------------------------------


def _message(d: Diagram, key: str, y: float, role: str, blocks: list[tuple[str, str, str]]):
    """A message card with one row per block: (block id, type, detail)."""
    card_x, card_w = 10, 300
    rows_h = len(blocks) * 44
    card = d.box(key, card_x, y, card_w, 30 + rows_h + 6, "d-exit")
    d.label(key, card_x + PAD, y + 19, f"role: {role}", 12.5, MONO, cls="d-code")
    centres = {}
    by = y + 28
    for bid, kind, detail in blocks:
        b = d.box(f"{key}-{bid}", card_x + 10, by, card_w - 20, 38,
                  "d-continue" if kind != "text" else "d-start")  # fmt: skip
        d.label(b.id, b.x + PAD, by + 16, kind, 12, MONO, cls="d-code")
        d.label(b.id, b.x + PAD, by + 31, detail, 11, MONO, cls="d-small")
        centres[bid] = (b.x + b.w, by + 19)
        by += 44
    return card, centres


def parallel_results() -> Diagram:
    d = Diagram(
        "parallel-results",
        gettext("Parallel tool calls answered in one user message"),
        gettext(
            "An assistant message holds two tool_use blocks. The next user message holds both "
            "tool_result blocks, each naming its tool_use_id, before any text."
        ),
        [
            gettext(
                "The assistant content is appended unchanged: the text and both tool_use blocks."
            ),
            gettext(
                "One user message answers the whole batch: one tool_result per tool_use, matched "
                "by tool_use_id, results first."
            ),
            gettext("Sending each result in its own user message is the mistake: %(why)s")
            % {"why": i18n.next_actions()["run_tools_separately"].detail},
        ],
        gettext(
            "Results are paired with calls by id, not by position; all of them travel together."
        ),
    )
    _, calls = _message(d, "assistant", 8, "assistant", [
        ("t", "text", "I'll look up both."),
        ("a", "tool_use", "id toolu_A  get_order"),
        ("b", "tool_use", "id toolu_B  get_customer"),
    ])  # fmt: skip
    card, results = _message(d, "user", d.height + 18, gettext("user (one message)"), [
        ("a", "tool_result", "tool_use_id toolu_A"),
        ("b", "tool_result", "tool_use_id toolu_B"),
    ])  # fmt: skip
    for bid, lane in (("a", 326), ("b", 344)):
        (x1, y1), (x2, y2) = calls[bid], results[bid]
        d.path("d-loop", (x1, y1), (lane, y1), (lane, y2), (x2 + 1, y2))
    return d


# --- 4. a thinking block carried through a tool loop -------------------------------------------


def thinking_carried() -> Diagram:
    d = Diagram(
        "thinking-carried",
        gettext("A thinking block carried through a tool loop"),
        gettext(
            "The first response holds a thinking block and a tool_use block. The second request "
            "sends that assistant turn back complete and unmodified, thinking block first, "
            "followed by the user message with the tool_result."
        ),
        [
            gettext(
                "Response 1 (stop_reason tool_use): a thinking block with its signature, then the "
                "tool_use block."
            ),
            gettext(
                "Request 2 repeats the history: the user's question, the assistant turn exactly "
                "as received (thinking block included), then one user message with the "
                "tool_result."
            ),
            gettext(
                "Editing, reordering or dropping the thinking block of the turn in progress "
                "breaks the request. Don't switch thinking on or off inside one tool loop either "
                "(2025 docs: a 400; current docs: thinking is silently off for that request)."
            ),
        ],
        gettext(
            "The tool loop is one assistant turn: its thinking block travels with it, unchanged."
        ),
    )
    _, r1 = _message(d, "resp1", 8, gettext("assistant (response 1)"), [
        ("th", "thinking", gettext("thinking + signature")),
        ("tu", "tool_use", "id toolu_1  lookup_order"),
    ])  # fmt: skip
    note = d.box("append", 10, d.height + 4, 300, 24, drawn=False)
    d.lines(note, note.y - 2, [gettext("append unchanged, then call again")], 11.5, cls="d-small",
            anchor="middle")  # fmt: skip
    _, q = _message(d, "req2u", d.height + 6, "user", [("q", "text", "Where is order 1042?")])
    _, r2 = _message(d, "req2a", d.height + 6, gettext("assistant (sent back)"), [
        ("th", "thinking", gettext("same block, byte for byte")),
        ("tu", "tool_use", "id toolu_1  lookup_order"),
    ])  # fmt: skip
    _message(d, "req2r", d.height + 6, "user", [("tr", "tool_result", "tool_use_id toolu_1")])
    (x1, y1), (x2, y2) = r1["th"], r2["th"]
    d.path("d-loop", (x1, y1), (340, y1), (340, y2), (x2 + 1, y2))
    return d


# --- 5. where the guards sit -------------------------------------------------------------------


GUARD_WORDS = {
    "max_turns": gettext_noop("turn cap"),
    "token_budget": gettext_noop("token budget"),
    "wall_clock_s": gettext_noop("wall clock"),
    "max_identical_calls": gettext_noop("repeated identical calls"),
}


def guards_in_loop() -> Diagram:
    names = [gettext(GUARD_WORDS[f]) for f in runner.Guards.__dataclass_fields__]
    before_call = [n for n in names if n != gettext(GUARD_WORDS["max_identical_calls"])]
    continuing = [r.value for r in i18n.stop_reasons().values() if r.continues]
    leaving = [r.value for r in i18n.stop_reasons().values() if not r.continues]
    d = Diagram(
        "guards",
        gettext("Where the guards sit in the loop"),
        gettext(
            "Before each call the loop checks its limits; after a tool_use it checks for "
            "repeated calls and asks a human before risky tools; a tripped guard stops the run "
            "and escalates. stop_reason, not a guard, is the normal way out."
        ),
        [
            gettext("Before every call: %(guards)s.") % {"guards": ", ".join(before_call)},
            gettext(
                "After tool_use, before running tools: repeated identical calls; a human "
                "approves risky calls."
            ),
            gettext("After pause_turn: a cap on continuations."),
            gettext("Normal exits: %(values)s.") % {"values": ", ".join(leaving)},
            gettext(
                "A tripped guard ends the run with a reason and hands over to a human; it is a "
                "safety net, never the normal way to finish."
            ),
        ],
        gettext("Guards bound the loop; stop_reason ends it."),
    )
    x, w = 20, 250

    def step(id, y, texts, cls, size=12):
        lines = sum(len(wrap(t, w - 2 * PAD, size)) for t in texts)
        b = d.box(id, x, y, w, lines * size * 1.3 + 14, cls)
        d.lines(b, y + 4, texts, size, anchor="middle")
        return b

    g1 = step(
        "g-before",
        8,
        [gettext("Guard: %(guards)s") % {"guards": ", ".join(before_call)}],
        "d-guard",
    )
    call = step("call", g1.y + g1.h + 20, [gettext("Call the Messages API")], "d-start")
    read = step("read", call.y + call.h + 20, [gettext("Read stop_reason")], "d-exit")
    run_text = gettext("%(value)s: run the tools, one result message") % {"value": continuing[0]}
    tu = step("tool", read.y + read.h + 20, [run_text], "d-continue")
    g2 = step(
        "g-tools",
        tu.y + tu.h + 20,
        [gettext("Guard: repeated identical calls; human approval for risky tools")],
        "d-guard",
    )
    pt = step(
        "pause",
        g2.y + g2.h + 20,
        [
            gettext("%(value)s: send the turn back (guard: cap continuations)")
            % {"value": continuing[1]}
        ],
        "d-continue",
    )
    leave_text = gettext("Leave the loop: %(values)s") % {"values": ", ".join(leaving)}
    out = step("exit", pt.y + pt.h + 20, [leave_text], "d-exit", size=11)
    esc = step(
        "escalate",
        out.y + out.h + 20,
        [gettext("A guard tripped: stop, report why, hand over to a human")],
        "d-bad",
    )
    cx = x + w / 2
    for a, b in ((g1, call), (call, read), (read, tu), (tu, g2), (g2, pt), (pt, out)):
        d.path("", (cx, a.y + a.h), (cx, b.y - 2))
    # Back edges on the right: after the tools, and after a resend, the loop calls again.
    for src, lane in ((g2, 300), (pt, 318)):
        d.path("d-loop", (x + w, src.y + src.h / 2), (lane, src.y + src.h / 2),
               (lane, g1.y + g1.h / 2), (x + w + 1, g1.y + g1.h / 2))  # fmt: skip
    # Guards lead to the escalation box on the left edge.
    for src in (g1, g2):
        d.path("d-trip", (x, src.y + src.h / 2), (8, src.y + src.h / 2),
               (8, esc.y + esc.h / 2), (x - 1, esc.y + esc.h / 2))  # fmt: skip
    return d


ALL = {
    "stop-reasons": state_machine,
    "round-trips": round_trips,
    "parallel-results": parallel_results,
    "thinking-carried": thinking_carried,
    "guards": guards_in_loop,
}


def render(name: str) -> str:
    return ALL[name]().html()
