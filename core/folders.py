"""When a listing of content folders may be kept instead of read again.

The transcript library (studyapp/sandbox/library.py) and the notes (studyapp/notes/loader.py)
are read from files that an editor or a deploy may change while the server runs; every request
that reads them asks whether they changed. Listing a folder and reading each file's time costs a
stat a file; a :class:`FolderWatch` answers with a stat of each folder instead:

- a file added, removed or renamed (as git and most editors save one) changes its folder's time,
  and is seen on the next call;
- a file rewritten in place changes only its own time, and is seen within ``RESCAN_AFTER_S``,
  when the files are listed and their times read again;
- a folder changed less than ``RACY_S`` before a listing was read may change again within the
  file system's timestamp granularity and keep its time (ext4's coarse clock, a second or two
  elsewhere): such a listing is never trusted, and every call lists the files again ("racy" in
  git's words).
"""

from __future__ import annotations

import os
import time

#: How long a listing is trusted while the modification times of its folders stay the same.
RESCAN_AFTER_S = 1.0
#: A listing read less than this after one of its folders changed is not trusted.
RACY_S = 2.0
#: The clocks a watch reads (tests move them)
_monotonic = time.monotonic
_wall = time.time


def folder_times(folders: list[str]) -> tuple[int, ...] | None:
    """Each folder's modification time (ns), or None when one is gone."""
    try:
        return tuple(os.stat(f).st_mtime_ns for f in folders)
    except OSError:
        return None


class FolderWatch:
    """The folders one listing read, and whether that listing may still be trusted.

    ``current()`` says whether the last listing may be used as it is. Otherwise the caller takes
    ``before = watch.begin()``, lists its files, and tells ``watch.listed(before, folders)``
    which folders that listing read: the folders' times are read before the files, so a change
    made while they are listed shows as a changed time on the next call, and a listing whose
    folders are not the ones whose times were read (one added or removed) is not trusted until
    it is read again."""

    def __init__(self, folders: list[str]) -> None:
        self.folders = folders
        #: (when, the folders' times) of a listing that may be trusted; None: list again
        self._checked: tuple[float, tuple[int, ...]] | None = None

    def current(self) -> bool:
        checked = self._checked
        return (
            checked is not None
            and _monotonic() - checked[0] < RESCAN_AFTER_S
            and folder_times(self.folders) == checked[1]
        )

    def begin(self) -> tuple[float, float, list[str], tuple[int, ...] | None]:
        return _monotonic(), _wall(), self.folders, folder_times(self.folders)

    def listed(self, before: tuple, found: list[str]) -> None:
        now, started, folders, times = before
        self.folders = found
        trusted = (
            times is not None
            and found == folders
            and all(t < (started - RACY_S) * 1e9 for t in times)
        )
        self._checked = (now, times) if trusted else None
