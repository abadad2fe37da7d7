"""The test suite.

Python keeps its bytecode caches for the suite even where the environment says not to
(PYTHONDONTWRITEBYTECODE=1 here): this package is imported first of everything of ours, when
pytest-django reads tests.settings, so every module of the project, each test module as pytest
rewrites its asserts, and every library first imported after this line is compiled once instead of
in every run (about a second of CPU per pytest process). __pycache__/ is ignored by git.
"""

import sys

sys.dont_write_bytecode = False
