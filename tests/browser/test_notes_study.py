"""Issue 15 in real Chromium: layout defects, diagrams measured with getBBox, check yourself with
and without JavaScript, reading progress on scroll, and the one-page cheat sheet."""

import re

import pytest
from playwright.sync_api import expect

from studyapp.notes import diagrams
from studyapp.notes.loader import library
from tests.factories import make_question

pytestmark = pytest.mark.django_db(transaction=True)

NOTE_PATHS = [f"/notes/{slug}/" for slug in library().notes()]
EXTRA = ["/notes/", "/notes/cheat-sheet/", "/notes/exam-blueprint/", "/notes/search/?q=pause_turn"]
DIAGRAM_NOTES = {
    "stop-reasons": "/notes/stop-reasons/",
    "round-trips": "/notes/server-tools/",
    "parallel-results": "/notes/parallel/",
    "thinking-carried": "/notes/thinking/",
    "guards": "/notes/guards/",
}

# Every label whose measured box pokes out of its rectangle (1 unit of antialiasing slack).
OVERFLOW_JS = """(figure) => Array.from(document.querySelectorAll(figure + ' text[data-box]'))
  .filter(t => {
    const r = document.getElementById(t.dataset.box);
    if (!r) return false;  // an undrawn region: checked by the layout model in Python
    const a = t.getBBox(), b = r.getBBox();
    return a.x < b.x - 1 || a.x + a.width > b.x + b.width + 1 ||
           a.y < b.y - 1 || a.y + a.height > b.y + b.height + 1;
  }).map(t => t.textContent)"""
# Smallest rendered font size in CSS pixels: font-size × (drawn width / viewBox width).
SMALLEST_JS = """(figure) => {
  const svg = document.querySelector(figure + ' svg');
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  return Math.min(...Array.from(svg.querySelectorAll('text')).map(
    t => parseFloat(t.getAttribute('font-size')) * scale));
}"""


def test_catalogue_table_fits_its_column_at_1280(browser, live_server):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.goto(live_server.url + "/notes/stop-reasons/")
    sizes = page.evaluate(
        "Array.from(document.querySelectorAll('.table-wrap'))"
        ".map(e => [e.scrollWidth, e.clientWidth])"
    )
    context.close()
    assert sizes and all(scroll <= client for scroll, client in sizes), sizes


# Every other page a test, in one phone context each (a context and a flush a page cost more
# than the page).
@pytest.mark.parametrize("n", range(2), ids=["group-1", "group-2"])
def test_no_note_page_is_wider_than_a_phone(browser, live_server, n):
    context = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True)
    page = context.new_page()
    wide = []
    for path in (NOTE_PATHS + EXTRA)[n::2]:
        page.goto(live_server.url + path)
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > 375:
            wide.append(f"{path} is {width}px wide on a 375px phone")
    context.close()
    assert not wide, wide


def test_on_a_phone_the_title_comes_before_the_table_of_contents(browser, live_server):
    context = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True)
    page = context.new_page()
    page.goto(live_server.url + "/notes/tool-choice/")
    title = page.get_by_role("heading", level=1).bounding_box()
    toc = page.get_by_role("complementary", name="On this page").bounding_box()
    assert title["y"] < toc["y"]
    # The key points come first of all, right under the title.
    key_points = page.locator(".key-points").bounding_box()
    context.close()
    assert title["y"] < key_points["y"] < toc["y"]


@pytest.mark.parametrize("width", [375, 1280])
def test_every_diagram_label_stays_in_its_box_measured_in_chromium(browser, live_server, width):
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    problems = []
    for name, path in DIAGRAM_NOTES.items():
        page.goto(live_server.url + path)
        figure = f"#figure-{name}"
        expect(page.locator(figure)).to_be_visible()
        over = page.evaluate(OVERFLOW_JS, figure)
        if over:
            problems.append(f"{name}: {over}")
        smallest = page.evaluate(SMALLEST_JS, figure)
        if smallest < 10:
            problems.append(f"{name}: text drawn at {smallest:.1f}px")
        svg_right = page.locator(figure + " svg").bounding_box()
        if svg_right["x"] + svg_right["width"] > width:
            problems.append(f"{name}: the diagram leaves the page")
    context.close()
    assert not problems, problems
    assert len(DIAGRAM_NOTES) == len(diagrams.ALL)


AXE_PATHS = [*DIAGRAM_NOTES.values(), *EXTRA, "/notes/context/", "/me/"]


# Every 4th page a test, light and dark (tests/browser/conftest.py axe_sweep), spread over
# pytest-xdist's workers.
@pytest.mark.parametrize("n", range(4), ids=[f"group-{n}" for n in range(1, 5)])
def test_pages_with_diagrams_and_the_new_pages_have_no_axe_violations(
    browser, live_server, axe_sweep, n
):
    make_question("single", "ax-single")
    context = browser.new_context()
    failures = axe_sweep(context.new_page(), live_server.url, AXE_PATHS[n::4])
    context.close()
    assert not failures, failures


def test_check_yourself_answers_inline_with_htmx(page, live_server):
    q = make_question("single", "br-single")
    wrong = next(o for o in q.options.all() if not o.correct)
    page.goto(live_server.url + "/notes/stop-reasons/")
    item = page.locator("#check-br-single")
    expect(item.get_by_text("WHY-A-RIGHT")).to_have_count(0)
    item.get_by_role("button", name="Check my answer").click()  # nothing chosen yet
    expect(page.locator("#check-br-single").get_by_role("alert")).to_have_text(
        "Choose one answer first."
    )
    item = page.locator("#check-br-single")
    item.get_by_label(wrong.text).check()
    item.get_by_role("button", name="Check my answer").click()
    expect(page.locator("#check-br-single .verdict")).to_have_text("Not quite.")
    expect(page.locator("#check-br-single")).to_contain_text("WHY-A-RIGHT")
    expect(page).to_have_url(live_server.url + "/notes/stop-reasons/")  # no navigation


def test_check_yourself_works_without_javascript(browser, live_server):
    q = make_question("truefalse", "br-tf")
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(live_server.url + "/notes/stop-reasons/")
    item = page.locator("#check-br-tf")
    item.get_by_label("True").check()
    item.get_by_role("button", name="Check my answer").click()
    # A GET form: the answer is in the address, the key only in the feedback that follows it.
    expect(page).to_have_url(
        re.compile(r"/notes/stop-reasons/check/br-tf/\?answered=1&choice=[^&#]+#check-br-tf$")
    )
    expect(page.locator("#check-br-tf .verdict")).to_have_text("Right.")
    assert q.slug in page.url
    context.close()


def test_scrolling_to_the_end_marks_a_note_read(page, live_server):
    requests = []
    page.on("request", lambda r: requests.append((r.method, r.url.removeprefix(live_server.url))))
    page.goto(live_server.url + "/notes/guards/")
    # The shared page loads this visitor's reading block, then the scroll marks it read.
    expect(page.get_by_role("button", name="Mark as read")).to_be_visible()
    assert not [c for c in page.context.cookies() if c["name"] == "csrftoken"]
    page.locator("#read-status").scroll_into_view_if_needed()
    page.mouse.wheel(0, 200)
    expect(page.get_by_role("button", name="Mark as not read")).to_be_visible()
    expect(page.locator("#note-read-badge")).to_have_text("Read")  # the badge by the date too
    # The htmx POST took its token from the cookie, fetched first (static/js/site.js).
    posts = [r for r in requests if r[0] == "POST" or r[1] == "/csrf/"]
    assert posts == [("GET", "/csrf/"), ("POST", "/notes/guards/read/")], requests
    page.goto(live_server.url + "/notes/")
    expect(page.locator("#reading-progress")).to_contain_text("1 of")
    expect(page.locator("#read-mark-guards")).to_have_text("Read")
    expect(page.locator("#read-mark-errors")).to_have_text("")
    # Unmarked by hand, a note is not marked again by the next scroll.
    page.goto(live_server.url + "/notes/guards/")
    page.get_by_role("button", name="Mark as not read").click()
    expect(page.get_by_role("button", name="Mark as read")).to_be_visible()
    page.mouse.wheel(0, -200)
    page.mouse.wheel(0, 400)
    page.goto(live_server.url + "/notes/")
    expect(page.locator("#reading-progress")).to_contain_text("0 of")


def test_reading_progress_works_without_javascript(browser, live_server):
    # (axe needs JavaScript: these pages are in tests/browser/test_axe_sweep.py.)
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()

    page.goto(live_server.url + "/notes/guards/")
    page.get_by_role("link", name="Mark this note as read").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("Reading status")
    page.get_by_role("button", name="Mark as read").click()
    expect(page.get_by_role("button", name="Mark as not read")).to_be_visible()
    page.get_by_role("link", name="Which notes have I read?").click()
    expect(page.locator("#reading-progress")).to_contain_text("1 of")
    expect(page.locator("#read-mark-guards")).to_have_text("Read")
    page.goto(live_server.url + "/notes/")  # the shared index links to the marks
    expect(page.get_by_role("link", name="Which notes have I read?")).to_be_visible()
    context.close()


def test_the_cheat_sheet_prints_on_one_page(page, live_server):
    page.goto(live_server.url + "/notes/cheat-sheet/")
    page.emulate_media(media="print")
    for size in ("A4", "Letter"):
        pdf = page.pdf(format=size, print_background=False)
        pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
        assert pages == 1, f"{size}: {pages} pages"
