"""Reversed URLs kept per process: ``reverse()`` walks the resolver's patterns on every call
(≈95 Python calls, ~30 µs), and a page asks for dozens.

Both helpers key what they keep by the URL name, its arguments and :func:`where` (the URLconf
``reverse()`` reads, the script prefix and the language: i18n_patterns' prefix), never by
anything of the visitor, and both forget everything when a setting that changes URLs changes.

- :func:`reverse_ints` for URLs whose arguments are all ``<int:...>`` (``/exam/12/q/3/``):
  each name reversed once with stand-in numbers, the real numbers put in their place, so what
  is kept does not grow with the rows of the database.
- :func:`kept_reverse` for any arguments (``{% url %}`` is it, studyapp/templatetags/kepturl.py):
  each address kept whole, up to ``MAX_KEPT`` of them.
"""

from __future__ import annotations

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.translation import get_language

#: Stand-in arguments: digits no URL prefix or pattern of this site contains.
_STAND_INS = ("987650001", "987650002", "987650003")
_patterns: dict[tuple, tuple[str, ...]] = {}
_kept: dict[tuple, str] = {}
MAX_KEPT = 4096  # addresses of objects (runs, uploads, attempts) come and go: cleared when full


def where() -> tuple:
    """What a reversed address depends on besides the name and arguments: the URLconf
    ``reverse()`` reads (the thread's, else settings.ROOT_URLCONF: pytest-django's ``urls``
    mark assigns it without a signal), the script prefix and the language."""
    return (get_urlconf() or settings.ROOT_URLCONF, get_script_prefix(), get_language())


def reverse_ints(name: str, *args: int) -> str:
    """``reverse(name, args=args)`` for a URL whose arguments are all ``<int:...>``."""
    key = (name, len(args), *where())
    parts = _patterns.get(key)
    if parts is None:
        url = reverse(name, args=[int(s) for s in _STAND_INS[: len(args)]])
        parts = (url,)
        for stand_in in _STAND_INS[: len(args)]:
            *head, tail = parts
            if tail.count(stand_in) != 1:
                return reverse(name, args=args)  # not a plain int URL: no shortcut
            parts = (*head, *tail.split(stand_in))
        _patterns[key] = parts
    out = [parts[0]]
    for arg, part in zip(args, parts[1:], strict=True):
        out += [str(int(arg)), part]
    return "".join(out)


def kept_reverse(view_name, args=(), kwargs=None, current_app=None) -> str:
    """``reverse()``'s answer, kept per process under everything it depends on: the arguments
    with their types (``True`` and ``1`` are equal keys but different URLs), the current app
    and :func:`where`. A name that does not reverse is not kept and raises every time."""
    try:
        key = (
            view_name,
            tuple((type(a), a) for a in args),
            tuple((k, type(v), v) for k, v in kwargs.items()) if kwargs else (),
            current_app,
            *where(),
        )
        url = _kept.get(key)
    except TypeError:  # an argument that can't be a key (unhashable): reversed as Django does
        return reverse(view_name, args=args, kwargs=kwargs, current_app=current_app)
    if url is None:
        url = reverse(view_name, args=args, kwargs=kwargs, current_app=current_app)
        if len(_kept) >= MAX_KEPT:
            _kept.clear()
        _kept[key] = url
    return url


@receiver(setting_changed)
def _forget_on_url_settings(setting, **kwargs) -> None:
    """A test that changes what URLs are (override_settings) starts from nothing kept."""
    if setting in {"ROOT_URLCONF", "FORCE_SCRIPT_NAME", "LANGUAGES", "LANGUAGE_CODE"}:
        _patterns.clear()
        _kept.clear()
