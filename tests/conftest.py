"""Fixtures shared by the whole suite."""

import gc
import os
import runpy
import threading
from functools import partial
from importlib import import_module
from pathlib import Path
from types import FunctionType, SimpleNamespace

import pytest
from _pytest import fixtures as pytest_fixtures
from django.conf import LazySettings, settings
from django.contrib.auth import login
from django.contrib.sessions.backends import base as session_base
from django.contrib.sessions.backends.base import CreateError
from django.core.handlers.wsgi import WSGIRequest
from django.core.signals import got_request_exception, request_finished, request_started
from django.db import close_old_connections, connections
from django.db.models.signals import post_migrate
from django.http import HttpRequest
from django.middleware import csrf as csrf_middleware
from django.template.base import Template
from django.test import Client
from django.test import TestCase as DjangoTestCase
from django.test import client as test_client
from django.test import signals as test_signals
from django.test.client import ClientHandler, conditional_content_removal, store_rendered_templates
from django.test.utils import instrumented_test_render
from django.urls import resolve
from django.utils import crypto
from django.utils.crypto import RANDOM_STRING_CHARS
from django.utils.functional import LazyObject, SimpleLazyObject

# Hypothesis: a quick look while developing, a thorough one in CI (.ci/run sets
# HYPOTHESIS_PROFILE=ci); the profiles, and fuzz() for tests that name their own number of
# examples, live in tests/fuzzing.py.
from . import formposts, fuzzing  # noqa: F401

# The SQLite test database: migrated once per set of migrations, then copied (tests/dbtemplate.py);
# the browser journeys and Playwright loaded only when a browser test can run (tests/selection.py);
# Markdown a previous run rendered answered from a file (tests/rendercache.py).
pytest_plugins = ["tests.dbtemplate", "tests.selection", "tests.rendercache"]

# No garbage collection while the tests are collected (pytest_collection_finish turns it back
# on): importing Django's models, the SDK's ~900 modules and every test module ran about 550
# collections, three of them full passes over the 330,000 objects that live for the whole run
# (0.49 s of CPU in each process); one pass over the young objects at the end (0.21 s) frees the
# 30,000 objects of cyclic garbage the imports leave.
gc.disable()

API_KEY = "sk-ant-test-secret-never-shown-0123456789"
ROOT = Path(__file__).resolve().parent.parent
#: The environment of a production server, for tests of studyapp/settings.py.
PRODUCTION = {
    "DEBUG": "false",
    "SECRET_KEY": "x9!-a-long-random-production-secret-key-with-many-characters-0192837465",
    "ALLOWED_HOSTS": "loopcraft.example.com",
}


def _instructors_group_after_a_flush(sender, using="default", **kwargs):
    """A transactional test (live_server, real threads) ends with a flush that empties every
    table; Django then sends post_migrate, which recreates content types and permissions but not
    the rows our own data migration writes. This writes them again, so a test that follows in the
    same process (any order: pytest-randomly, pytest-xdist) finds the database as migrated."""
    import importlib

    from django.contrib.auth.models import Group, Permission

    if sender.name != "authoring":
        return
    migration = importlib.import_module("authoring.migrations.0001_instructors_group")
    group, _ = Group.objects.using(using).get_or_create(name="Instructors")
    for app_label, model, actions in migration.PERMISSIONS:
        group.permissions.add(
            *Permission.objects.using(using).filter(
                content_type__app_label=app_label,
                codename__in=[f"{action}_{model}" for action in actions],
            )
        )


post_migrate.connect(_instructors_group_after_a_flush, dispatch_uid="tests-instructors-group")

_DJANGO_LOGIN = Client._login


def _login_from_an_unsaved_session(self, user, backend=None):
    """``Client.force_login`` for a client with no session yet, without Django's throwaway one.

    Django's ``Client._login`` reads ``self.session``, which for a client without a session
    cookie saves an empty session first; ``login()`` then loads it, copies it into a new key and
    deletes it: 17 queries (2.8 ms) where 10 do (1.5 ms); the suite signs in about 800 times.
    Here ``login()`` itself (the same key cycle, signals and last_login) starts from an unsaved
    session, as Django's own fallback branch would: the same session row and cookie in the end.
    The key ``login()`` cycles to is drawn as Django draws it (one unused in the table) and the
    row written once, when ``login()`` is done (an INSERT of what its UPDATE would have written,
    instead of an INSERT of an empty row and that UPDATE): 5 queries. A client that already has
    a session (an anonymous visitor signing in) goes Django's way."""
    cookie = self.cookies.get(settings.SESSION_COOKIE_NAME)
    if cookie is not None and cookie.value:
        return _DJANGO_LOGIN(self, user, backend)
    request = HttpRequest()
    session = request.session = import_module(settings.SESSION_ENGINE).SessionStore()
    session.create = partial(_draw_a_new_key, session)  # what cycle_key() calls
    login(request, user, backend)
    del session.create
    try:
        session.save(must_create=True)
    except CreateError:  # taken since it was drawn: Django's create() draws another
        session._session_key = None
        session.create()
    self._set_login_cookies(request)


def _draw_a_new_key(session) -> None:
    """``SessionStore.create()`` without its save: the key, and the session marked modified."""
    session._session_key = session._get_new_session_key()
    session.modified = True


Client._login = _login_from_an_unsaved_session


def random_string(length: int, allowed_chars: str = RANDOM_STRING_CHARS) -> str:
    """``django.utils.crypto.get_random_string`` drawn from one ``os.urandom`` call instead of
    one ``secrets.choice`` per character: the same alphabet, each character as uniform (a byte
    is kept only below the largest multiple of the alphabet's size, so ``byte % size`` favours
    no character), as unpredictable. Django's took 43 µs for a 32-character string, this 8 µs;
    the suite draws thousands (two per CSRF token a page renders, one per new session key)."""
    size = len(allowed_chars)
    if not 0 < size <= 256:
        return _DJANGO_RANDOM_STRING(length, allowed_chars)
    limit = 256 - 256 % size
    chars: list[str] = []
    while len(chars) < length:
        drawn = os.urandom(2 * (length - len(chars)))
        chars.extend(allowed_chars[byte % size] for byte in drawn if byte < limit)
    return "".join(chars[:length])


_DJANGO_RANDOM_STRING = crypto.get_random_string
# where Django draws them per request (each module imported the function by name)
csrf_middleware.get_random_string = random_string
session_base.get_random_string = random_string

_PYTEST_ARGNAMES = pytest_fixtures.getfuncargnames
_ARGNAMES: dict[tuple, tuple[str, ...]] = {}


def _argnames_once_per_code(function, *, name="", cls=None):
    """pytest's ``getfuncargnames``, kept per code object for plain functions: pytest makes a
    new ``RequestFixtureDef`` (a ``lambda: request``) each time a fixture or test asks for
    ``request``, about ten times a test, and each one read that lambda's signature through
    ``inspect`` again (0.7 % of the suite). A function's argument names come from its code, how
    many defaults it has and the name and class it is collected under; functions that could
    say otherwise (``__wrapped__``, ``__signature__``, mock's ``patchings``) go pytest's way."""
    if (
        type(function) is not FunctionType
        or function.__kwdefaults__
        or (function.__dict__.keys() & {"__wrapped__", "__signature__", "patchings"})
    ):
        return _PYTEST_ARGNAMES(function, name=name, cls=cls)
    key = (function.__code__, len(function.__defaults__ or ()), name or function.__name__, cls)
    names = _ARGNAMES.get(key)
    if names is None:
        names = _ARGNAMES[key] = _PYTEST_ARGNAMES(function, name=name, cls=cls)
    return names


pytest_fixtures.getfuncargnames = _argnames_once_per_code

_DJANGO_LOAD_MIDDLEWARE = ClientHandler.load_middleware
#: (settings object, ROOT_URLCONF, MIDDLEWARE) -> what load_middleware built for them
_BUILT_MIDDLEWARE: dict[tuple, tuple] = {}


def _middleware_built_once(self, is_async=False):
    """``ClientHandler.load_middleware`` once per process, not once per test client: building
    the fourteen middleware (their settings read, WhiteNoise's and the CSP policy's set-up) cost
    0.55 ms, more than the ``/healthz`` request that followed it, and the suite makes thousands
    of clients. As in production, where one process's chain serves every visitor, clients then
    share one chain (it keeps no visitor's state: each client still has its own cookies and
    session). A setting change (pytest-django's ``settings``, ``override_settings``, both
    ways) puts another settings object in place, and a test's own URLconf
    (``@pytest.mark.urls``, assigned without a signal) is in the key too: each gets a chain of
    its own, so a middleware that reads settings or resolves paths when built always sees the
    current ones."""
    if is_async:
        return _DJANGO_LOAD_MIDDLEWARE(self, is_async)
    key = (settings._wrapped, settings.ROOT_URLCONF, tuple(settings.MIDDLEWARE))
    built = _BUILT_MIDDLEWARE.get(key)
    if built is None:
        _DJANGO_LOAD_MIDDLEWARE(self)
        built = (
            self._view_middleware,
            self._template_response_middleware,
            self._exception_middleware,
            self._middleware_chain,
        )
        _BUILT_MIDDLEWARE.clear()
        _BUILT_MIDDLEWARE[key] = built
    (
        self._view_middleware,
        self._template_response_middleware,
        self._exception_middleware,
        self._middleware_chain,
    ) = built


ClientHandler.load_middleware = _middleware_built_once

# --- The test client's signals, connected once -------------------------------------------------
# Django's test client connects and disconnects four receivers around every request (Client:
# one for template_rendered and one for got_request_exception; ClientHandler: close_old_connections
# off request_started and request_finished and back on), and a connect is costly (a weakref
# finalizer, the receivers cache cleared, so the next send looks them up again): about 40 µs of a
# 250 µs /healthz. Here the receivers stay connected and know which requests are in flight; what
# each request gets is Django's: the templates and contexts rendered while it runs, an exception
# a view let through re-raised, and close_old_connections never run by the test client's own
# request_started/request_finished (it would close the test's connection inside its
# transaction), while it still runs for every other request (a live server's thread).

#: (client, templates data) of each test-client request in flight, in every thread, as Django's
#: per-request receivers hear a signal sent from any thread
_IN_FLIGHT: list[tuple] = []
_client_signals = threading.local()


def _store_rendered(signal, sender, **kwargs):
    for _, data in list(_IN_FLIGHT):
        store_rendered_templates(data, signal, sender, **kwargs)


def _store_exception(**kwargs):
    for client, _ in list(_IN_FLIGHT):
        client.store_exc_info(**kwargs)


def _close_old_connections_but_for_the_test_client(**kwargs):
    """``django.db.close_old_connections``, except for the test client's own signals."""
    if not getattr(_client_signals, "sending", False):
        close_old_connections(**kwargs)


def _client_request(self, **request):
    """Django 5.2's ``Client.request`` with its two receivers connected once (above)."""
    environ = self._base_environ(**request)
    data: dict = {}
    entry = (self, data)
    _IN_FLIGHT.append(entry)
    try:
        response = self.handler(environ)
    finally:
        for index, each in enumerate(_IN_FLIGHT):
            if each is entry:
                del _IN_FLIGHT[index]
                break
    self.check_exception(response)
    response.client = self
    response.request = request
    response.templates = data.get("templates", [])
    response.context = data.get("context")
    response.json = partial(self._parse_json, response)
    urlconf = getattr(response.wsgi_request, "urlconf", None)
    response.resolver_match = SimpleLazyObject(
        lambda: resolve(request["PATH_INFO"], urlconf=urlconf),
    )
    if response.context and len(response.context) == 1:
        response.context = response.context[0]
    if response.cookies:
        self.cookies.update(response.cookies)
    return response


def _send_as_the_test_client(signal, **kwargs) -> None:
    _client_signals.sending = True
    try:
        signal.send(**kwargs)
    finally:
        _client_signals.sending = False


def _client_handler_call(self, environ):
    """Django 5.2's ``ClientHandler.__call__``, its request_started and request_finished sent
    without close_old_connections by a flag instead of a disconnect and a connect."""
    if self._middleware_chain is None:
        self.load_middleware()
    _send_as_the_test_client(request_started, sender=self.__class__, environ=environ)
    request = WSGIRequest(environ)
    request._dont_enforce_csrf_checks = not self.enforce_csrf_checks
    response = self.get_response(request)
    conditional_content_removal(request, response)
    response.wsgi_request = request
    if response.streaming:  # Django's wrappers (rare: they connect and disconnect as before)
        if response.is_async:
            response.streaming_content = test_client.aclosing_iterator_wrapper(
                response.streaming_content, response.close
            )
        else:
            response.streaming_content = test_client.closing_iterator_wrapper(
                response.streaming_content, response.close
            )
    else:
        _client_signals.sending = True
        try:
            response.close()  # sends request_finished
        finally:
            _client_signals.sending = False
    return response


for _signal in (request_started, request_finished):
    _signal.disconnect(close_old_connections)
    _signal.connect(_close_old_connections_but_for_the_test_client, weak=False)
# What Django's other handlers (the async client, a streaming response's wrapper) take off and
# put back around their own sends: the receiver now connected in its place.
test_client.close_old_connections = _close_old_connections_but_for_the_test_client
test_signals.template_rendered.connect(_store_rendered, weak=False, dispatch_uid="tests-rendered")
got_request_exception.connect(_store_exception, weak=False, dispatch_uid="tests-exception")
# --- PRAGMA foreign_key_check only after a write -----------------------------------------------
# A django_db test ends as Django's TestCase ends: its foreign keys checked (SQLite defers them to
# a COMMIT that a rolled-back test never reaches), then rolled back. A test that changed no row
# can have added no dangling key (what it started from was committed, so checked): its check is
# skipped. SQLite counts every row the connection inserts, updates or deletes (total_changes);
# 1,397 checks took 0.2 s of SQLite's time a run.

_DJANGO_ENTER_ATOMICS = DjangoTestCase._enter_atomics.__func__
_DJANGO_SHOULD_CHECK = DjangoTestCase._should_check_constraints


def _enter_atomics_counting_changes(cls):
    """Django enters atomics for the class (setUpClass) and again for each test: the count
    from the outer one stands, so what setUpTestData wrote between them is a change too. (An
    older count on the same connection only makes a check likelier: the count never falls.)"""
    nested = {
        a: connections[a].in_atomic_block for a in cls._databases_names(include_mirrors=False)
    }
    atomics = _DJANGO_ENTER_ATOMICS(cls)
    for alias in atomics:
        connection = connections[alias]
        raw = connection.connection
        start = getattr(connection, "_tests_changes_at_start", None)
        if nested.get(alias) and start is not None and start[0] is raw:
            continue
        changes = getattr(raw, "total_changes", None)
        connection._tests_changes_at_start = None if changes is None else (raw, changes)
    return atomics


def _check_constraints_after_a_write(self, connection):
    if not _DJANGO_SHOULD_CHECK(self, connection):
        return False
    start = getattr(connection, "_tests_changes_at_start", None)
    raw = connection.connection
    unchanged = start is not None and start[0] is raw and raw.total_changes == start[1]
    return not unchanged


DjangoTestCase._enter_atomics = classmethod(_enter_atomics_counting_changes)
DjangoTestCase._should_check_constraints = _check_constraints_after_a_write

# --- settings.X read from the instance's own cache first ------------------------------------------
# ``django.conf.settings`` keeps each setting it has read in its instance ``__dict__`` (and
# empties it whenever the settings change: override_settings, pytest-django's ``settings``), but
# every read still goes through LazyObject's Python ``__getattribute__`` first (1.4 % of the
# suite's CPU, thousands of reads a request). A name it keeps is answered from there: the same
# value that path would return (none of them is a proxy method, nor shadowed by a property).
_LAZY_GETATTRIBUTE = LazyObject.__getattribute__
_OBJECT_GETATTRIBUTE = object.__getattribute__


def _settings_getattribute(self, name):
    kept = _OBJECT_GETATTRIBUTE(self, "__dict__")
    if name in kept:
        return kept[name]
    return _LAZY_GETATTRIBUTE(self, name)


LazySettings.__getattribute__ = _settings_getattribute

_DJANGO_CLIENT_REQUEST = Client.request
_DJANGO_HANDLER_CALL = ClientHandler.__call__
Client.request = _client_request
ClientHandler.__call__ = _client_handler_call
formposts.install()  # a form's fields posted url-encoded, as a browser posts them

#: Template rendering as Django defines it, before its test environment wraps it.
_PLAIN_RENDER = Template._render
assert _PLAIN_RENDER is not instrumented_test_render


def pytest_collection_finish(session):
    """What is alive once the tests are collected (Django, the project, every test module) lives
    until the end: frozen, the garbage collector stops walking it again and again. And a full
    collection waits for 100 younger ones instead of 10: the suite's full collections took about
    a tenth of its CPU, cycles of garbage wait a little longer instead. Only the young
    generations are collected before the freeze: a full collection here walked the 325,000
    objects for 0.2 s of CPU in every process to free about 300 (frozen with the rest now).
    The collector was off while the tests were collected (top of this file): the one pass over
    the young generations here is the first since then."""
    gc.collect(1)
    gc.freeze()
    young, middle, _ = gc.get_threshold()
    gc.set_threshold(young, middle, 100)
    gc.enable()


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    """After a module's last test, its module fixtures torn down (pytest's own teardown runs
    first): what is still alive now (the processes' caches, the session's fixtures) is frozen
    too, so the collections of the next modules stop walking it. The suite's three or four full
    collections took about 0.45 s of CPU and its middle ones 0.55 s; frozen at each module's end
    they take 0.02 s and 0.45 s. A cycle that becomes garbage after it was frozen stays in
    memory (about 80 MB more at the end of a whole run in one process)."""
    if nextitem is None or getattr(nextitem, "module", None) is not getattr(item, "module", None):
        gc.freeze()


def pytest_sessionstart(session):
    """pytest-xdist's controller collects nothing (its workers do), so it never reaches
    pytest_collection_finish: its collector is turned back on here."""
    if session.config.pluginmanager.has_plugin("dsession"):
        gc.enable()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_collection_modifyitems(items):
    """The browser journeys first, in pytest-randomly's order (this wrapper's end runs after its
    shuffle): the long tests start while every xdist worker has work left, and the run ends on
    short ones instead of one worker finishing a journey while the other waits."""
    yield
    items.sort(key=lambda item: item.get_closest_marker("browser") is None)
    for item in items:
        _only_the_pytest_django_fixtures_it_needs(item)


#: pytest-django's per-test autouse fixtures, and when each does anything: each one is a no-op
#: without its marker (or fixture), yet its set-up and teardown cost every test about 50 µs
#: (0.4 ms a test for the seven, a third of a test that does nothing). A test keeps the ones
#: whose condition holds for it, set up where and in the order pytest-django's autouse puts
#: them; ``_dj_autoclear_mailbox`` (always on) is done by ``_fresh_start``.
_PYTEST_DJANGO_PER_TEST = {
    "_django_db_marker": lambda item: item.get_closest_marker("django_db") is not None,
    "_django_set_urlconf": lambda item: item.get_closest_marker("urls") is not None,
    "_django_isolate_apps": lambda item: item.get_closest_marker("django_isolate_apps") is not None,
    "_live_server_helper": lambda item: "live_server" in item.fixturenames,
    # (which also sets up ``monkeypatch`` for every test that doesn't ask for it)
    "_template_string_if_invalid_marker": lambda item: (
        item.keywords.get("ignore_template_errors", None) is not None
    ),
    "_django_clear_site_cache": lambda item: "django.contrib.sites" in settings.INSTALLED_APPS,
    "_dj_autoclear_mailbox": lambda item: False,
    # class-scoped: sets up a Django unittest class (SimpleTestCase), does nothing for the rest
    "_django_setup_unittest": lambda item: _is_django_unittest(item),
}


def _is_django_unittest(item) -> bool:
    from django.test import SimpleTestCase

    cls = getattr(item, "cls", None)
    return cls is not None and issubclass(cls, SimpleTestCase)


def _only_the_pytest_django_fixtures_it_needs(item) -> None:
    """The item's fixtures without pytest-django's autouse ones that would do nothing for it, nor
    what only they asked for (``monkeypatch``). The closure is walked again from what is left,
    as pytest walks it: a fixture that depends on a dropped one (``mailoutbox``,
    ``django_isolated_apps``) keeps it, and the order of the rest is pytest's."""
    info = getattr(item, "_fixtureinfo", None)
    names = getattr(item, "fixturenames", None)
    if info is None or names is None:  # not a Python test function (a doctest)
        return
    dropped = {
        name
        for name in info.initialnames
        if name in _PYTEST_DJANGO_PER_TEST and not _PYTEST_DJANGO_PER_TEST[name](item)
    }
    if not dropped:
        return
    needed: set[str] = set()
    todo = [name for name in info.initialnames if name not in dropped]
    while todo:
        name = todo.pop()
        if name in needed:
            continue
        needed.add(name)
        fixturedefs = info.name2fixturedefs.get(name)
        if fixturedefs:
            # the definition a test sees is the last one; an override that asks for its own
            # name gets the one before it too (pytest's closure walks every one it sees)
            for fixturedef in fixturedefs:
                todo.extend(fixturedef.argnames)
    # a new list: the parametrized instances of one function share the old one
    item.fixturenames = [name for name in names if name in needed]


@pytest.fixture(autouse=True, scope="session")
def _templates_uninstrumented(django_test_environment):
    """Django's test environment wraps every template render to send ``template_rendered``, and
    the test client copies the context of each render (every include and widget) so that
    ``response.context`` and ``response.templates`` can be read. Few tests read them: those are
    marked ``template_context`` and get the instrumentation back; for the rest templates render
    as in production (``response.context`` is None, ``response.templates`` empty)."""
    instrumented = Template._render
    Template._render = _PLAIN_RENDER
    yield
    Template._render = instrumented


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """A test marked ``template_context`` runs with Django's template instrumentation."""
    if not item.get_closest_marker("template_context"):
        return (yield)
    Template._render = instrumented_test_render
    try:
        return (yield)
    finally:
        Template._render = _PLAIN_RENDER


def fresh_start() -> None:
    """What ``_fresh_start`` does before every test (tests/test_harness.py calls it too)."""
    from django.core import mail
    from django.core.cache import caches
    from django.utils import translation

    from quizzes import versioncache
    from studyapp import pagecache

    for cache in caches.all():
        cache.clear()
    pagecache.reset_local()
    # what the process keeps per question version too: SQLite hands a rolled-back test's pks to
    # the next test, so a version kept from one test could answer another's (and query-count pins
    # that count the first view of a version would pass or fail by test order)
    versioncache.clear()
    translation.deactivate()
    if hasattr(mail, "outbox"):
        mail.outbox.clear()


@pytest.fixture(autouse=True)
def _fresh_start():
    """Every test starts with empty caches: cached pages, sessions, counts and question versions
    of one test never answer another's requests. It starts and ends in Django's default
    language: LocaleMiddleware activates a request's language and leaves it active in the
    thread, and a /pl/ request must not make the next test's RequestFactory view render in
    Polish. And with an empty mail outbox (pytest-django's ``_dj_autoclear_mailbox``, done here:
    see ``pytest_collection_modifyitems``)."""
    from django.utils import translation

    fresh_start()
    yield
    translation.deactivate()


@pytest.fixture
def content_dir() -> Path:
    return Path(settings.CONTENT_DIR)


@pytest.fixture
def rate_clock(monkeypatch):
    """The rate limiter's clock stopped 10 s into a minute: a test that posts N times and expects
    the next one refused cannot see a fixed window end between its posts (on a slow machine the
    real clock did, and the limit's count started again)."""
    import time

    from studyapp import ratelimit

    start = (int(time.time()) // 3600 + 1) * 3600 + 10.0
    monkeypatch.setattr(ratelimit, "time", SimpleNamespace(time=lambda: start))
    return start


@pytest.fixture
def notes_dir(tmp_path, settings):
    """An empty notes folder for tests that write their own notes."""
    (tmp_path / "notes" / "en").mkdir(parents=True)
    settings.CONTENT_DIR = tmp_path
    return tmp_path / "notes" / "en"


@pytest.fixture
def one_of_each(db):
    """One question of each of the first eight kinds, written as loadcontent writes new slugs
    (the rows bank.create_questions writes, built once per session: factories.new_questions)."""
    from .factories import KIND_BODIES, new_questions

    questions = new_questions(
        [(kind, f"t-{kind.replace('_', '-')}", "stop-reasons") for kind in KIND_BODIES]
    )
    return dict(zip(KIND_BODIES, questions, strict=True))


@pytest.fixture(scope="module")
def module_bank(django_db_setup, django_db_blocker):
    """60 questions of every kind and subtopic, written once for the test module that asks.
    Its tests may read them, not change them (each test's own writes are rolled back)."""
    from quizzes.models import Question

    from .factories import make_bank

    with django_db_blocker.unblock():
        questions = make_bank(60, prefix="m")
    yield questions
    with django_db_blocker.unblock():
        Question.objects.filter(pk__in=[q.pk for q in questions]).delete()


@pytest.fixture(scope="session")
def search_index(django_db_setup, django_db_blocker):
    """The notes' search index of the repository's content, built and committed once per
    session: a test that searches finds it current instead of writing a thousand rows first.
    A test that changes the notes rebuilds it inside its own transaction (rolled back); a
    transactional test's flush empties it, and the next search rebuilds it as it always would."""
    from studyapp.notes import search

    with django_db_blocker.unblock():
        search.rebuild()


@pytest.fixture
def guards_bank(db):
    """Two single-choice guards questions that test one concept, and one tool-choice question."""
    from quizzes.models import Question

    from .factories import make_question

    a = make_question("single", "cap-a", "guards")
    b = make_question("single", "cap-b", "guards")
    Question.objects.filter(pk__in=[a.pk, b.pk]).update(concept="turn-cap")
    return {"a": a, "b": b, "other": make_question("single", "tc-1", "tool-choice")}


@pytest.fixture
def learner(db, django_user_model):
    return django_user_model.objects.create_user("learner", password="pw-learner-123")


@pytest.fixture
def other_learner(db, django_user_model):
    return django_user_model.objects.create_user("other", password="pw-other-123")


@pytest.fixture
def instructor(db, django_user_model):
    from django.contrib.auth.models import Group

    user = django_user_model.objects.create_user("teacher", password="pw-teacher-123")
    user.groups.add(Group.objects.get(name="Instructors"))
    return user


@pytest.fixture
def author(client, instructor):
    """The test client, signed in as ``instructor``."""
    client.force_login(instructor)
    return client


@pytest.fixture
def api(monkeypatch):
    """A key is set and the SDK talks to a scripted fake; tests fill ``api.script``."""
    from studyapp.agentloop import runner

    from .fakes import FakeAPI

    fake = FakeAPI([])
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    monkeypatch.setattr(runner, "make_client", lambda **kw: fake.client(**kw))
    return fake


@pytest.fixture
def production_env():
    return dict(PRODUCTION)


@pytest.fixture
def settings_from_env(monkeypatch):
    """Evaluate studyapp/settings.py afresh, in this process, under the given environment
    (only what a test names: the suite's own test settings are cleared first)."""

    def load(**env) -> dict:
        for name in list(os.environ):
            if name in (
                "DEBUG",
                "SECRET_KEY",
                "ALLOWED_HOSTS",
                "DATABASE_URL",
                "CACHE_URL",
                "REDIS_URL",
            ) or name.startswith(("SECURE_", "WHITENOISE_", "RATELIMIT_", "PAGE_CACHE_")):
                monkeypatch.delenv(name)
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        return runpy.run_path(str(ROOT / "studyapp" / "settings.py"))

    return load


MESSAGE = (
    '{"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": '
    '[{"type": "text", "text": "hi"}], "stop_reason": "end_turn", "stop_sequence": null, '
    '"usage": {"input_tokens": 1, "output_tokens": 1}}'
)


def build_world() -> SimpleNamespace:
    """One of everything a URL can point at, owned by ``world.users["learner"]``."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from authoring.models import ProblemReport
    from core.owners import Owner
    from quizzes import services
    from studyapp.notes.loader import library as note_library
    from studyapp.sandbox.library import library as run_library
    from studyapp.sandbox.models import UploadedRun

    from .factories import make_bank

    users = get_user_model().objects
    bank = make_bank(6)
    learner = users.create_user("world-learner", password="pw-learner-123")
    other_learner = users.create_user("world-other", password="pw-other-123")
    instructor = users.create_user("world-instructor", password="pw-instr-123")
    instructor.groups.add(Group.objects.get_or_create(name="Instructors")[0])
    staff = users.create_user("world-staff", password="pw-staff-123", is_staff=True)
    owner = Owner(learner, "")
    practice = services.practice_start(owner=owner, subtopics=[], which="all", count=5)
    exam = services.exam_start(owner=owner, count=5)
    done = services.exam_start(owner=owner, count=5)
    services.attempt_submit(attempt=done)
    upload = UploadedRun.objects.create(
        user=learner, title="mine", source="message", data=_upload_data(), size=10
    )
    world = SimpleNamespace(
        users={
            "anonymous": None,
            "learner": learner,
            "other": other_learner,
            "instructor": instructor,
            "staff": staff,
        },
        practice=practice,
        exam=exam,
        done=done,
        upload=upload,
        slug=bank[0].slug,
        report=ProblemReport.objects.create(question=bank[0], user=learner, text="typo"),
        live=_live(learner),
        run=sorted(run_library().runs())[0],
        note=sorted(note_library().notes())[0],
    )
    world.bank = bank
    return world


@pytest.fixture
def world(db):
    """A fresh world for this test (tests/access.py says who may open what)."""
    return build_world()


@pytest.fixture(scope="module")
def _module_world(django_db_setup, django_db_blocker):
    from django.contrib.auth import get_user_model
    from django.contrib.sessions.models import Session
    from django.core.cache import caches

    from authoring.models import ProblemReport
    from quizzes.models import Question

    with django_db_blocker.unblock():
        world = build_world()
        world.sessions = _sessions(world)
    yield world
    with django_db_blocker.unblock():
        Session.objects.filter(session_key__in=world.sessions.values()).delete()
        ProblemReport.objects.filter(question__in=world.bank).delete()
        # The users' attempts, answers, uploads and runs go with them.
        users = [u.pk for u in world.users.values() if u]
        get_user_model().objects.filter(pk__in=users).delete()
        Question.objects.filter(pk__in=[q.pk for q in world.bank]).delete()
        for cache in caches.all():
            cache.clear()


@pytest.fixture
def shared_world(db, _module_world):
    """The world built once per test module, for modules whose every test only reads it (each
    test's own writes are rolled back; none may change these Python objects)."""
    return _module_world


def _sessions(world) -> dict[str, str]:
    """role -> the key of a session signed in as that role's user, made once for the module:
    ``client_as`` puts it in a test's client instead of logging in again (a log-in costs about
    6 ms, its signal claiming whatever the browser owned, and the access matrix needs hundreds).
    What a test's requests do to the session is rolled back with the rest of the test."""
    from django.conf import settings
    from django.test import Client

    sessions = {}
    for role, user in world.users.items():
        if user is not None:
            client = Client()
            client.force_login(user)
            sessions[role] = client.cookies[settings.SESSION_COOKIE_NAME].value
    return sessions


def _live(user):
    from core.owners import Owner
    from studyapp.agentloop import demo
    from studyapp.sandbox import live

    scenario = sorted(demo.SCENARIOS)[0]
    options = {"model": "claude-haiku-5-5", "max_tokens": 1024}
    return live.live_start(owner=Owner(user, ""), scenario=scenario, prompt="hi", options=options)


def _upload_data() -> dict:
    from studyapp.agentloop.transcript import parse_upload

    return parse_upload(MESSAGE).to_dict()
