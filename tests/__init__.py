"""The test suite.

Python keeps its bytecode caches for the suite even where the environment says not to
(PYTHONDONTWRITEBYTECODE=1 here): this package is imported first of everything of ours, when
pytest-django reads tests.settings, so every module of the project, each test module as pytest
rewrites its asserts, and every library first imported after this line is compiled once instead of
in every run (about a second of CPU per pytest process). __pycache__/ is ignored by git.
"""

import contextlib
import os
import sys

sys.dont_write_bytecode = False


def _cache_what_was_compiled_before_this_line() -> None:
    """pytest, pluggy, execnet and the rest that pytest imports before this package were compiled
    from source (about 0.4 s of CPU in every pytest process, each xdist worker too): write their
    bytecode caches now, once, so the next process loads them. A cache already there costs one
    stat; a folder that can't be written is left as it is."""
    import importlib.machinery
    import py_compile

    for module in list(sys.modules.values()):
        spec = getattr(module, "__spec__", None)
        loader = getattr(spec, "loader", None)
        if not isinstance(loader, importlib.machinery.SourceFileLoader) or not spec.cached:
            continue
        if os.path.exists(spec.cached):
            continue
        with contextlib.suppress(OSError, py_compile.PyCompileError):
            py_compile.compile(spec.origin, cfile=spec.cached, doraise=True)


_cache_what_was_compiled_before_this_line()
