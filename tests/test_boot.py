"""A server process freezes what boot loaded, so the garbage collector's full passes stay short."""

import gc
import importlib
import sys

import pytest

from studyapp import boot


def test_settle_collects_boot_garbage_then_freezes_what_lives(monkeypatch):
    calls = []
    monkeypatch.setattr(gc, "collect", lambda *a: calls.append("collect") or 0)
    monkeypatch.setattr(gc, "freeze", lambda: calls.append("freeze"))
    boot.settle()
    # Freezing first would keep boot's garbage (unreachable cycles) for the process's lifetime.
    assert calls == ["collect", "freeze"]


def test_settle_moves_live_objects_out_of_the_collector_s_walk(monkeypatch):
    # The collection before the freeze is the test above's; a real one here would walk the
    # whole suite's heap (about a second late in a full run) and change nothing checked here.
    monkeypatch.setattr(gc, "collect", lambda *a: 0)
    kept = [[i] for i in range(1000)]  # objects alive at "boot"
    assert _walked(kept) == len(kept)  # the collector walks them
    boot.settle()
    # No gc.unfreeze() afterwards: it would also thaw what the suite froze after collection
    # (tests/conftest.py), for every test after this one. What this test froze stays frozen.
    assert _walked(kept) == 0  # frozen: out of every generation the collector walks


def _walked(objects: list) -> int:
    """How many of ``objects`` are in a generation the collector walks. (Not
    gc.get_freeze_count: it counts every frozen object, a million in a whole run, each call.)"""
    mine = {id(o) for o in objects}
    return sum(id(o) in mine for g in range(3) for o in gc.get_objects(generation=g))


@pytest.mark.parametrize("module", ["studyapp.wsgi", "studyapp.asgi"])
def test_each_server_entry_point_settles_after_everything_it_loads(monkeypatch, module):
    """The freeze must come last: after Django, the URL conf's app and the SDK are loaded."""
    from studyapp.agentloop import sdk

    order = []
    monkeypatch.setattr(sdk, "load", lambda: order.append("sdk"))
    monkeypatch.setattr(boot, "settle", lambda: order.append("settle"))
    monkeypatch.delitem(sys.modules, module, raising=False)  # run the module's code afresh
    importlib.import_module(module)
    assert order == ["sdk", "settle"]


def test_a_server_settles_again_after_its_first_requests(monkeypatch):
    """What the first requests keep (templates, shells, compiled queries) is frozen too: a
    settle after the 100th, 1,000th, … request, and the application's answers pass through."""
    settled = []
    monkeypatch.setattr(boot, "settle", lambda: settled.append(app.served))

    def inner(environ, start_response):
        start_response("200 OK", [])
        return [environ["PATH_INFO"].encode()]

    app = boot.SettleAfter(inner, at=(3, 5))
    answers = [b"".join(app({"PATH_INFO": f"/{i}"}, lambda *a: None)) for i in range(8)]
    assert answers == [f"/{i}".encode() for i in range(8)]
    assert settled == [3, 5]
    assert boot.SettleAfter(inner).at == [100, 1_000, 10_000, 100_000]


def test_the_wsgi_application_is_wrapped_to_settle_again(monkeypatch):
    from studyapp.agentloop import sdk

    monkeypatch.setattr(sdk, "load", lambda: None)
    monkeypatch.setattr(boot, "settle", lambda: None)  # no freeze in the test process
    monkeypatch.delitem(sys.modules, "studyapp.wsgi", raising=False)
    wsgi = importlib.import_module("studyapp.wsgi")
    assert isinstance(wsgi.application, boot.SettleAfter)
