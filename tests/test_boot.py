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


def test_settle_moves_live_objects_out_of_the_collector_s_walk():
    before = gc.get_freeze_count()
    kept = [[i] for i in range(1000)]  # objects alive at "boot"
    try:
        boot.settle()
        assert gc.get_freeze_count() >= before + len(kept)
    finally:
        gc.unfreeze()  # the test process goes on collecting as before


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
