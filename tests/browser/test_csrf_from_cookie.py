"""A cached reading page has no CSRF token; an htmx POST from it still gets through, because
site.js fetches /csrf/ for the cookie first and sends the cookie's token as X-CSRFToken."""

import pytest
from playwright.sync_api import expect

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_htmx_post_from_a_page_without_a_token_fetches_one_first(page, live_server):
    page.goto(live_server.url + "/notes/")
    assert not [c for c in page.context.cookies() if c["name"] == "csrftoken"]
    assert "csrfmiddlewaretoken" not in page.content()
    # A check-yourself style form (notes add them): an htmx POST, no token in the page.
    page.evaluate(
        """() => {
          const form = document.createElement("form");
          form.setAttribute("hx-post", "/sandbox/raw-json/");
          form.setAttribute("hx-target", "#answer");
          form.innerHTML = '<input type="hidden" name="next" value="/sandbox/">' +
            '<button type="submit">Check</button><div id="answer"></div>';
          document.querySelector("main").prepend(form);
          window.htmx.process(form);
        }"""
    )
    requests = []
    page.on("request", lambda r: requests.append((r.method, r.url.removeprefix(live_server.url))))
    page.get_by_role("button", name="Check").click()
    # The toggle redirects to the sandbox index: its heading lands in the target.
    expect(page.locator("#answer h1")).to_contain_text("Sandbox")
    assert requests[:2] == [("GET", "/csrf/"), ("POST", "/sandbox/raw-json/")]
    assert [c for c in page.context.cookies() if c["name"] == "csrftoken"]
