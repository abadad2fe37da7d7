"""A candidate reads the notes in real Chromium: home → notes → a note → a TOC link → glossary."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.django_db(transaction=True)


def test_candidate_reads_the_notes(page, live_server, assert_accessible):
    page.goto(live_server.url + "/")
    expect(page.get_by_role("heading", level=1)).to_contain_text("agentic loop")
    assert_accessible(page, "home")

    page.get_by_role("link", name="Read the notes").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Topic notes")
    assert_accessible(page, "notes-index")

    page.get_by_role("link", name="The seven stop reasons", exact=False).first.click()
    expect(page).to_have_url(live_server.url + "/notes/stop-reasons/")
    expect(page.locator("table.catalogue").first).to_be_visible()
    assert_accessible(page, "note-stop-reasons")

    toc = page.get_by_role("complementary", name="On this page").get_by_role("link").nth(1)
    anchor = toc.get_attribute("href")
    toc.click()
    expect(page).to_have_url(live_server.url + "/notes/stop-reasons/" + anchor)
    expect(page.locator(anchor)).to_be_in_viewport()

    page.get_by_role("link", name="Glossary").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Glossary")
    assert_accessible(page, "glossary")


def test_skip_link_is_first_and_moves_focus_to_main(page, live_server):
    page.goto(live_server.url + "/notes/")
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to content")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page).to_have_url(live_server.url + "/notes/#main")


def test_a_note_is_readable_on_a_phone(browser, live_server):
    context = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True)
    page = context.new_page()
    page.goto(live_server.url + "/notes/tool-results/")
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 380, f"the page scrolls sideways on a phone ({width}px wide)"
    context.close()


def test_dark_mode_follows_the_system(browser, live_server, assert_accessible):
    context = browser.new_context(color_scheme="dark")
    page = context.new_page()
    page.goto(live_server.url + "/notes/stop-reasons/")
    bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert bg == "rgb(18, 21, 23)"
    assert_accessible(page, "note-dark")
    context.close()
