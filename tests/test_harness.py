"""The suite's own machinery: what a run imports depends on what it selects."""

import gc
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.http import HttpResponse
from django.test import TestCase as DjangoTestCase
from django.urls import path

from tests import selection
from tests.selection import (
    BROWSER_DIR,
    FULL_CHROMIUM,
    HEADLESS_SHELL,
    chromium_path,
    mark_expression_allows_browser,
    paths_reach_browser,
)

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("markexpr", "allows"),
    [
        ("", True),
        ("browser", True),
        ("not browser", False),
        ("not browser and not django_db", False),
        ("django_db and not browser", False),
        ("not slow", True),
        ("browser or django_db", True),
        ("not browser or django_db", True),  # a browser test that also uses the database
        ("django_db and not (browser or slow)", False),
        ("not (not browser)", True),
        ("browser and not browser", False),
        ("django_db(transaction=True)", True),
        ("not (", True),  # malformed: pytest says so itself
    ],
)
def test_a_mark_expression_rules_browser_tests_out_only_when_no_browser_test_can_match(
    markexpr, allows
):
    assert mark_expression_allows_browser(markexpr) is allows


@pytest.mark.parametrize(
    ("args", "reaches"),
    [
        ([], True),
        (["tests"], True),
        (["."], True),
        (["tests/browser"], True),
        (["tests/browser/test_xss.py::test_x"], True),
        (["tests/test_pages.py::test_healthz_is_plain_ok"], False),
        (["tests/test_pages.py", "tests/contract"], False),
        (["tests/test_pages.py", "tests/browser/test_xss.py"], True),
        ([str(BROWSER_DIR / "test_xss.py")], True),
    ],
)
def test_the_paths_given_reach_the_browser_tests_only_when_they_include_them(args, reaches):
    assert paths_reach_browser(args, ROOT) is reaches


def test_a_run_that_cannot_run_a_browser_test_never_imports_them_or_playwright(pytestconfig):
    may_run = selection.browser_tests_may_run(pytestconfig)
    registered = pytestconfig.pluginmanager.has_plugin(selection.PLAYWRIGHT_PLUGIN)
    assert registered is may_run
    if not may_run:
        assert not [name for name in sys.modules if name.startswith("tests.browser")]
        assert "playwright" not in sys.modules


def _item(path: Path, browser: bool):
    return SimpleNamespace(
        nodeid=f"{path.name}::test_x",
        path=path,
        get_closest_marker=lambda name: object() if browser and name == "browser" else None,
    )


def test_a_test_in_tests_browser_without_the_mark_stops_the_collection():
    marked = [_item(BROWSER_DIR / "test_xss.py", True), _item(ROOT / "tests" / "test_x.py", False)]
    selection.pytest_collection_finish(SimpleNamespace(items=marked))

    unmarked = _item(BROWSER_DIR / "test_unmarked.py", False)
    with pytest.raises(pytest.UsageError, match="test_unmarked.py"):
        selection.pytest_collection_finish(SimpleNamespace(items=[*marked, unmarked]))


def test_a_browser_test_outside_tests_browser_stops_the_collection(pytestconfig):
    fine = [_item(BROWSER_DIR / "test_xss.py", True), _item(ROOT / "tests" / "test_x.py", False)]
    selection.pytest_collection_modifyitems(pytestconfig, fine)

    stray = _item(ROOT / "tests" / "test_stray.py", True)
    with pytest.raises(pytest.UsageError, match="test_stray.py"):
        selection.pytest_collection_modifyitems(pytestconfig, [*fine, stray])


def _renders_seen(client) -> tuple[list[str], object]:
    from django.template import engines
    from django.test.signals import template_rendered

    seen = []

    def record(sender, template, **kwargs):
        seen.append(template.name)

    template_rendered.connect(record)
    try:
        engines["django"].from_string("{{ x }}").render({"x": 1})
    finally:
        template_rendered.disconnect(record)
    return seen, client.get("/accounts/login/")


def test_an_unmarked_test_renders_templates_without_djangos_instrumentation(client):
    seen, response = _renders_seen(client)
    assert response.status_code == 200
    assert seen == []
    assert response.context is None
    assert response.templates == []


@pytest.mark.template_context
def test_a_test_marked_template_context_gets_the_instrumentation_and_response_context(client):
    seen, response = _renders_seen(client)
    assert len(seen) == 1  # the string template
    assert "registration/login.html" in [t.name for t in response.templates]
    assert "form" in response.context


def test_the_browser_journeys_are_scheduled_first_in_the_order_they_were_shuffled_into():
    from tests import conftest

    a, b = _item(ROOT / "tests" / "test_a.py", False), _item(ROOT / "tests" / "test_b.py", False)
    x, y = _item(BROWSER_DIR / "test_x.py", True), _item(BROWSER_DIR / "test_y.py", True)
    items = [a, y, b, x]
    hook = conftest.pytest_collection_modifyitems(items)
    next(hook)  # pytest-randomly and the other plugins reorder and deselect here
    with pytest.raises(StopIteration):
        hook.send(None)
    assert items == [y, x, a, b]


def test_the_journeys_drive_the_headless_shell_when_it_is_installed_and_chromium_path_wins():
    assert chromium_path({}, lambda path: path == HEADLESS_SHELL) == HEADLESS_SHELL
    assert chromium_path({}, lambda path: False) == FULL_CHROMIUM
    mine = {"CHROMIUM_PATH": "/opt/my/chrome"}
    assert chromium_path(mine, lambda path: True) == "/opt/my/chrome"


#: pytest-django's per-test autouse fixtures that a test without their mark (or fixture) never
#: sets up (tests/conftest.py ``_only_the_pytest_django_fixtures_it_needs``).
_IDLE_FOR_AN_UNMARKED_TEST = {
    "_django_db_marker",
    "_django_set_urlconf",
    "_django_isolate_apps",
    "_live_server_helper",
    "_template_string_if_invalid_marker",
    "_dj_autoclear_mailbox",
    "_django_clear_site_cache",
    "_django_setup_unittest",
    "monkeypatch",  # asked for only by _template_string_if_invalid_marker
}


#: A URLconf of one view, for the test marked ``urls`` below.
def _view_that_breaks(request):
    raise ZeroDivisionError("the view broke")


urlpatterns = [
    path("only-in-the-harness/", lambda request: HttpResponse("here"), name="harness-only"),
    path("breaks/", _view_that_breaks, name="harness-breaks"),
]


def test_an_unmarked_test_sets_up_none_of_pytest_djangos_idle_fixtures(request):
    assert not _IDLE_FOR_AN_UNMARKED_TEST & set(request.fixturenames)


@pytest.mark.django_db
def test_the_django_db_mark_still_opens_the_database_in_a_rolled_back_transaction(request):
    from django.contrib.auth.models import Group
    from django.db import connection

    assert "_django_db_marker" in request.fixturenames
    assert Group.objects.filter(name="Instructors").exists()
    assert connection.in_atomic_block


@pytest.mark.urls("tests.test_harness")
def test_the_urls_mark_still_swaps_the_urlconf(client):
    from django.urls import reverse

    assert reverse("harness-only") == "/only-in-the-harness/"
    assert client.get("/only-in-the-harness/").content == b"here"


def test_a_urlconf_assigned_as_the_urls_mark_does_is_served_and_leaves_nothing_behind(
    client, monkeypatch
):
    """What ``@pytest.mark.urls`` does (ROOT_URLCONF assigned, no signal) and undoes, in one
    test, with the shared middleware chain: a client meanwhile is served that URLconf, and one
    after it the project's."""
    from django.test import Client
    from django.urls import NoReverseMatch, clear_url_caches, reverse

    assert client.get("/healthz").status_code == 200  # the project's chain, built
    monkeypatch.setattr(settings, "ROOT_URLCONF", "tests.test_harness")
    clear_url_caches()
    assert Client().get("/only-in-the-harness/").content == b"here"
    monkeypatch.undo()
    clear_url_caches()
    with pytest.raises(NoReverseMatch):
        reverse("harness-only")
    after = Client()
    assert after.get("/only-in-the-harness/").status_code == 404
    assert after.get("/healthz").status_code == 200


def test_mailoutbox_still_starts_empty_and_collects_what_is_sent(mailoutbox):
    from django.core.mail import send_mail

    assert mailoutbox == []
    send_mail("subject", "body", "from@example.com", ["to@example.com"])
    assert [m.subject for m in mailoutbox] == ["subject"]


def test_every_test_starts_with_an_empty_outbox_the_default_language_and_empty_caches():
    from django.core import mail
    from django.core.cache import cache
    from django.utils import translation

    from tests.conftest import fresh_start

    assert getattr(mail, "outbox", []) == []  # this test's own start
    mail.outbox.append("left by a test")
    translation.activate("pl")
    cache.set("left-by-a-test", 1)
    fresh_start()  # what the next test's autouse _fresh_start does first
    assert mail.outbox == [] and cache.get("left-by-a-test") is None
    assert translation.get_language() == settings.LANGUAGE_CODE


def test_test_clients_share_one_middleware_chain_until_a_setting_changes(client, settings):
    from django.test import Client

    assert client.get("/healthz")["Referrer-Policy"] == "same-origin"
    other = Client()
    other.get("/healthz")
    assert other.handler._middleware_chain is client.handler._middleware_chain
    # SecurityMiddleware reads the policy when it is built: a new client after the change
    # gets a chain built with it
    settings.SECURE_REFERRER_POLICY = "no-referrer"
    assert Client().get("/healthz")["Referrer-Policy"] == "no-referrer"


def test_a_settings_change_reaches_the_clients_built_under_it_and_no_later_ones(client):
    from django.test import Client, override_settings

    assert client.get("/healthz")["Referrer-Policy"] == "same-origin"
    with override_settings(SECURE_REFERRER_POLICY="no-referrer"):
        assert Client().get("/healthz")["Referrer-Policy"] == "no-referrer"
    assert Client().get("/healthz")["Referrer-Policy"] == "same-origin"


def test_the_render_cache_keeps_earlier_runs_texts_and_drops_the_least_recently_used():
    from tests.rendercache import merged

    saved = {"a": 1, "b": 2, "c": 3}  # least recently used first
    # a run of a few tests keeps what the full run before it saved, its own text last
    assert list(merged(saved, {"b": 2}, limit=10).items()) == [("a", 1), ("c", 3), ("b", 2)]
    # beyond the limit the least recently used go: here "a", then "c"
    assert merged(saved, {"b": 2, "d": 4}, limit=3) == {"c": 3, "b": 2, "d": 4}
    assert list(merged(saved, {"d": 4, "b": 2}, limit=2)) == ["d", "b"]


class TestADjangoTestCaseStillGetsItsDatabase(DjangoTestCase):
    """pytest-django sets up a Django unittest class through ``_django_setup_unittest``, the one
    per-test autouse fixture kept for such a class (tests/conftest.py)."""

    def test_it_reads_the_migrated_rows_inside_its_transaction(self):
        from django.contrib.auth.models import Group
        from django.db import connection

        self.assertTrue(Group.objects.filter(name="Instructors").exists())
        self.assertTrue(connection.in_atomic_block)


# --- the test client's signals, connected once (conftest) ----------------------------------


@pytest.mark.urls("tests.test_harness")
def test_an_exception_a_view_lets_through_is_raised_in_the_test_or_answered_500(client):
    from django.test import Client

    with pytest.raises(ZeroDivisionError, match="the view broke"):
        client.get("/breaks/")
    assert client.get("/only-in-the-harness/").status_code == 200  # nothing left over
    quiet = Client(raise_request_exception=False)
    response = quiet.get("/breaks/")
    assert response.status_code == 500
    assert response.exc_info[0] is ZeroDivisionError


@pytest.mark.django_db
def test_the_test_clients_requests_never_close_the_tests_connection_but_others_do(
    client, monkeypatch
):
    """close_old_connections would close the test's connection inside its transaction: the
    test client's request_started/request_finished skip it; any other sender still runs it."""
    from django.core.signals import request_finished, request_started
    from django.db import connection

    from tests import conftest

    called = []
    monkeypatch.setattr(conftest, "close_old_connections", lambda **kw: called.append(kw))
    assert client.get("/healthz").status_code == 200
    assert called == [] and connection.in_atomic_block
    assert client.get("/accounts/login/").status_code == 200  # a page that queries
    assert called == [] and connection.in_atomic_block
    request_started.send(sender=None, environ={})  # a real server's request
    request_finished.send(sender=None)
    assert len(called) == 2


@pytest.mark.template_context
def test_two_clients_each_get_their_own_requests_templates(client):
    from django.test import Client

    home = client.get("/glossary/")
    other = Client().get("/healthz")
    assert "notes/glossary.html" in [t.name for t in home.templates]
    assert other.templates == [] and other.context is None


# --- random strings, pytest's argument names (conftest) --------------------------------------


def test_random_strings_are_as_long_as_asked_from_the_alphabet_asked_and_all_of_it():
    from django.utils.crypto import RANDOM_STRING_CHARS

    from tests.conftest import random_string

    drawn = [random_string(32) for _ in range(400)]
    assert all(len(s) == 32 for s in drawn) and len(set(drawn)) == 400
    assert set("".join(drawn)) == set(RANDOM_STRING_CHARS)  # 12,800 draws reach all 62
    key_chars = "abcdefghijklmnopqrstuvwxyz0123456789"
    keys = "".join(random_string(32, key_chars) for _ in range(200))
    assert set(keys) == set(key_chars)
    assert random_string(0) == "" and len(random_string(5, "ab" * 200)) == 5  # Django's path


def test_csrf_tokens_and_session_keys_come_from_it(client):
    from django.contrib.sessions.backends import base
    from django.middleware import csrf

    from tests.conftest import random_string

    assert csrf.get_random_string is random_string and base.get_random_string is random_string
    response = client.get("/accounts/login/")
    assert response.status_code == 200
    token = response.cookies["csrftoken"].value
    assert len(token) == 32 and set(token) <= set(csrf.CSRF_ALLOWED_CHARS)


def test_argument_names_kept_per_code_are_pytests_own():
    from _pytest.compat import getfuncargnames

    from tests.conftest import _argnames_once_per_code

    def plain(a, b, c=1, *, d, e=2):
        return a

    def wrapped(x, y):
        return x

    wrapped.__wrapped__ = plain

    class Holder:
        def method(self, q, r):
            return q

        @staticmethod
        def static(s, t):
            return s

    cases = [
        (plain, {}),
        (plain, {"name": "other"}),
        (wrapped, {}),
        (lambda: None, {}),
        (lambda request: request, {}),
        (Holder.method, {"cls": Holder}),
        (Holder.static, {"cls": Holder, "name": "static"}),
    ]
    for _ in range(2):  # computed, then kept
        for function, kwargs in cases:
            assert _argnames_once_per_code(function, **kwargs) == getfuncargnames(
                function, **kwargs
            ), function


# --- LocaleMiddleware (core/i18n.py) ---------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "headers"),
    [
        ("/", {}),
        ("/notes/", {"Accept-Language": "pl"}),
        ("/pl/notes/", {}),
        ("/zh-hans/", {"Accept-Language": "en"}),
        ("/zh-hant/glossary/", {"Cookie": "django_language=pl"}),
        ("/healthz", {"Accept-Language": "zh-hant"}),
        ("/xx/notes/", {"Accept-Language": "pl"}),
        ("/only-in-the-harness/", {"Accept-Language": "pl"}),  # a URLconf without i18n
    ],
)
@pytest.mark.parametrize("urlconf", ["studyapp.urls", "tests.test_harness"])
def test_our_locale_middleware_chooses_the_language_djangos_chooses(path, headers, urlconf):
    from django.middleware.locale import LocaleMiddleware as Djangos
    from django.test import RequestFactory
    from django.utils import translation

    from core.i18n import LocaleMiddleware

    chosen = []
    for middleware in (Djangos, LocaleMiddleware):
        request = RequestFactory(headers=headers).get(path)
        request.urlconf = urlconf
        if "Cookie" in headers:
            request.COOKIES["django_language"] = "pl"
        middleware(lambda r: HttpResponse()).process_request(request)
        chosen.append((request.LANGUAGE_CODE, translation.get_language()))
        translation.deactivate()
    assert chosen[0] == chosen[1]


def test_the_site_runs_our_locale_middleware_where_djangos_was():
    assert "core.i18n.LocaleMiddleware" in settings.MIDDLEWARE
    assert "django.middleware.locale.LocaleMiddleware" not in settings.MIDDLEWARE


@pytest.mark.django_db
def test_foreign_keys_are_checked_at_the_end_of_a_test_that_wrote_a_row_only():
    from django.contrib.auth.models import Group
    from django.db import connection

    case = DjangoTestCase.__new__(DjangoTestCase)
    # SQLite counts the rows a connection changed; elsewhere (PostgreSQL in CI) every test's
    # foreign keys are checked at its end, as Django checks them
    skipped = connection.vendor == "sqlite"
    assert case._should_check_constraints(connection) is not skipped  # nothing written yet
    assert Group.objects.filter(name="Instructors").exists()  # a read changes nothing
    assert case._should_check_constraints(connection) is not skipped
    Group.objects.filter(name="nobody").delete()  # a statement that changed no row
    assert case._should_check_constraints(connection) is not skipped
    Group.objects.create(name="harness-group")
    assert case._should_check_constraints(connection)


@pytest.mark.django_db
def test_a_dangling_foreign_key_written_in_a_test_is_still_found_at_its_end():
    from django.contrib.auth.models import Group
    from django.db import IntegrityError, connection, transaction

    group = Group.objects.create(name="harness-dangling")
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO auth_group_permissions (group_id, permission_id) VALUES (%s, %s)",
            [group.pk, 987654321],
        )
    case = DjangoTestCase.__new__(DjangoTestCase)
    assert case._should_check_constraints(connection)
    with pytest.raises(IntegrityError), transaction.atomic():  # (PostgreSQL: a savepoint)
        connection.check_constraints()
    with connection.cursor() as cursor:  # leave the test as it found the table
        cursor.execute("DELETE FROM auth_group_permissions WHERE permission_id = 987654321")


def test_settings_reads_see_every_change_as_django_makes_it(settings):
    from django.conf import settings as live
    from django.test import override_settings

    before = live.PAGE_CACHE_SECONDS
    assert "PAGE_CACHE_SECONDS" in live.__dict__  # kept after the first read
    with override_settings(PAGE_CACHE_SECONDS=before + 7):
        assert before + 7 == live.PAGE_CACHE_SECONDS
    assert before == live.PAGE_CACHE_SECONDS
    settings.PAGE_CACHE_SECONDS = before + 9  # pytest-django's fixture
    assert before + 9 == live.PAGE_CACHE_SECONDS
    del settings.PAGE_CACHE_SECONDS
    with pytest.raises(AttributeError):
        live.PAGE_CACHE_SECONDS  # noqa: B018
    assert live.configured is True and not hasattr(live, "NO_SUCH_SETTING")


@pytest.mark.django_db
def test_force_login_leaves_one_session_row_that_signs_the_client_in(
    client, django_user_model, django_assert_num_queries
):
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.models import Session

    user = django_user_model.objects.create_user("harness-login", password="pw-harness-123")
    before = Session.objects.count()
    # a key drawn unused, last_login, the row written once (in a savepoint)
    with django_assert_num_queries(5):
        client.force_login(user)
    assert Session.objects.count() == before + 1
    key = client.cookies[settings.SESSION_COOKIE_NAME].value
    data = Session.objects.get(session_key=key).get_decoded()
    assert data[SESSION_KEY] == str(user.pk)
    assert data[BACKEND_SESSION_KEY] == settings.AUTHENTICATION_BACKENDS[0]
    assert data[HASH_SESSION_KEY] == user.get_session_auth_hash()
    user.refresh_from_db()
    assert user.last_login is not None
    response = client.get("/")
    assert b"harness-login" in response.content
    other = type(client)()
    other.force_login(user)  # another browser: a session of its own
    assert other.cookies[settings.SESSION_COOKIE_NAME].value != key
    assert Session.objects.count() == before + 2


@pytest.mark.django_db
def test_a_write_between_the_class_and_the_test_atomics_is_checked_at_the_end():
    """What setUpTestData writes (after the class's atomic, before the test's) counts: a test
    that then writes nothing is still checked, as under stock Django."""
    from django.contrib.auth.models import Group
    from django.db import connection

    case = DjangoTestCase.__new__(DjangoTestCase)
    outer = DjangoTestCase._enter_atomics()  # as setUpClass would, inside this test's own
    try:
        Group.objects.create(name="harness-class-data")  # setUpTestData
        inner = DjangoTestCase._enter_atomics()  # as _fixture_setup would
        try:
            assert case._should_check_constraints(connection)
        finally:
            DjangoTestCase._rollback_atomics(inner)
    finally:
        DjangoTestCase._rollback_atomics(outer)


def test_the_garbage_collector_runs_during_the_tests():
    """It is off only while the tests are collected (tests/conftest.py): a test runs with it
    on, over the young objects, everything collection left frozen."""
    assert gc.isenabled()
    assert gc.get_threshold()[2] == 100
    # What collection imported (Django, the project, the test modules) is frozen: out of every
    # generation the collector walks. (gc.get_freeze_count would say how much, but it counts a
    # million objects on each call.)
    from django.db.models import base

    from tests import conftest

    walked = {id(o) for g in range(3) for o in gc.get_objects(generation=g)}
    imported = (vars(conftest), vars(base), vars(sys.modules[__name__]))
    assert not [d for d in imported if id(d) in walked]


def test_what_is_alive_after_a_modules_last_test_is_frozen(monkeypatch):
    """tests/conftest.py freezes the live objects between two modules, not between two tests of
    one module. (gc.freeze is watched, not the frozen count: gc.get_freeze_count walks every
    frozen object, about a million of them, 0.08 s of CPU a call.)"""
    from tests import conftest

    one, other = SimpleNamespace(module=sys), SimpleNamespace(module=gc)
    frozen: list[int] = []
    freeze = gc.freeze
    monkeypatch.setattr(conftest.gc, "freeze", lambda: frozen.append(1) or freeze())
    conftest.pytest_runtest_teardown(one, one)
    assert frozen == []
    conftest.pytest_runtest_teardown(one, other)
    assert frozen == [1]
    conftest.pytest_runtest_teardown(one, None)  # the last test of all
    assert frozen == [1, 1]
