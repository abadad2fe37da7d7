"""The page's language as the templates need it: <html lang>, hreflang alternates, the switcher.

English pages live at the root and the others under their prefix (``/pl/notes/…``): a page in
another language is the same path with the other prefix, so the switcher and the alternates
are plain links (cacheable, no cookie, no JavaScript), computed without a URL resolver.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass
from urllib.parse import quote

from django.conf import settings
from django.conf.urls.i18n import is_language_prefix_patterns_used
from django.middleware.locale import LocaleMiddleware as _DjangoLocaleMiddleware
from django.utils import translation
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import get_language, get_language_from_path, gettext

from studyapp.agentloop import catalogue

#: The language every page falls back to and the prefix-less one.
DEFAULT = settings.LANGUAGE_CODE
CODES = tuple(code for code, _ in settings.LANGUAGES)


def tag(code: str) -> str:
    """The BCP 47 tag of a Django language code: ``zh-hans`` -> ``zh-Hans``."""
    return settings.LANGUAGE_TAGS.get(code, code)


def current() -> str:
    """The active Django language code, one of settings.LANGUAGES (English outside a request)."""
    code = get_language() or DEFAULT
    return code if code in CODES else DEFAULT


#: The part before any "-" of each language code (en, zh, pl), lower-case. Django finds a
#: language in a path only where the path's first segment starts with one of them: what it tries
#: (the segment, LANG_INFO's fallbacks, the segment cut at each "-", then the codes starting with
#: its first part and a "-") all share that first part, and it compares codes lower-cased.
_GENERIC = frozenset(code.split("-")[0].lower() for code in CODES)
_FIRST_PART = re.compile(r"/([^/@-]*)")


def language_from_path(path_info: str) -> str | None:
    """``translation.get_language_from_path(path_info)``, without its work for a path that
    cannot start with a language (every English page: Django looks the first segment up as a
    language, and raises and catches a LookupError, on every request)."""
    first = _FIRST_PART.match(path_info)
    if first is None or first[1].lower() not in _GENERIC:
        return None
    return get_language_from_path(path_info)


def unprefixed(path_info: str) -> str:
    """The path without its language prefix: ``/pl/notes/x/`` -> ``/notes/x/``."""
    code = language_from_path(path_info)
    if code and code != DEFAULT and path_info.startswith(f"/{code}/"):
        return path_info[len(code) + 1 :]
    return path_info


def in_language(path_info: str, code: str) -> str:
    """The same page in another language (a path without the script prefix)."""
    bare = unprefixed(path_info)
    return bare if code == DEFAULT else f"/{code}{bare}"


def localise_path(path: str, code: str | None = None) -> str:
    """An English site path (``/notes/x/#a``) in the active (or the given) language's prefix."""
    code = code or current()
    return path if code == DEFAULT or not path.startswith("/") else f"/{code}{path}"


def other_languages() -> tuple[str, ...]:
    """The translated languages (every code but the source's)."""
    return tuple(c for c in CODES if c != DEFAULT)


def _safe_query(request) -> str:
    """This page's query string, for the switcher's links, less a ``next`` that leaves the site
    (the page would not follow it, and it has no business being repeated in a link)."""
    query = request.META.get("QUERY_STRING", "")
    if "next=" not in query:
        return query
    params = request.GET.copy()
    target = params.get("next", "")
    if not url_has_allowed_host_and_scheme(target, allowed_hosts=None):
        params.pop("next")
    return params.urlencode()


def languages(request) -> dict:
    """Context processor: ``html_lang`` and ``language_links`` (one per language, this page)."""
    code = current()
    path_info = request.path_info
    script = request.path[: len(request.path) - len(path_info)] if request.path else ""
    query = _safe_query(request)
    links = []
    base = script.rstrip("/")
    bare = unprefixed(path_info)  # once, not once per language
    for other, name in settings.LANGUAGES:
        there = bare if other == DEFAULT else f"/{other}{bare}"  # in_language(path_info, other)
        path = quote(f"{script}{there}", safe="/:@!$&'()*+,;=-._~%")
        links.append(
            {
                "code": other,
                "tag": tag(other),
                "name": name,
                "path": path,
                "url": f"{path}?{query}" if query else path,
                "prefix": base if other == DEFAULT else f"{base}/{other}",
                "current": other == code,
            }
        )
    prefixes = " ".join(f"{base}/{c}" for c in CODES if c != DEFAULT)
    english = next(link["url"] for link in links if link["code"] == DEFAULT)
    return {
        "html_lang": tag(code),
        "language_links": links,
        "language_prefixes": prefixes,
        "page_in_english": english,
        # The path without its language prefix, for "is this the current section" tests.
        "page_path": bare,
    }


# --- The catalogue's words in the page's language ----------------------------------------------
# studyapp.agentloop marks its user-facing texts with a local gettext_noop (it has no Django);
# pages read the catalogue through these, so every table, callout and diagram says them in the
# active language. Codes, values and API names are never translated.

_catalogues: dict[str, tuple[dict, dict, dict]] = {}


def t(text: str) -> str:
    """gettext for a text that may be empty (gettext("") would return the catalogue header)."""
    return gettext(text) if text else text


@dataclass(frozen=True)
class _Reason(catalogue.StopReasonInfo):
    local_action: catalogue.NextAction | None = None

    @property
    def next_action(self) -> catalogue.NextAction:  # type: ignore[override]
        return self.local_action or catalogue.NEXT_ACTIONS[self.action]


def _build() -> tuple[dict, dict, dict]:
    actions = {
        code: dataclasses.replace(a, label=t(a.label), detail=t(a.detail))
        for code, a in catalogue.NEXT_ACTIONS.items()
    }
    reasons = {
        value: _Reason(
            **{
                **{f.name: getattr(r, f.name) for f in dataclasses.fields(r)},
                "meaning": t(r.meaning),
                "why": t(r.why),
                "alternate_when": t(r.alternate_when),
                "mistakes": tuple(t(m) for m in r.mistakes),
                "notes": tuple(catalogue.note_text(t(n)) for n in r.notes),
            },
            local_action=actions[r.action],
        )
        for value, r in catalogue.STOP_REASONS.items()
    }
    modes = {
        key: dataclasses.replace(
            m,
            meaning=t(m.meaning),
            disable_parallel_means=t(m.disable_parallel_means),
            default_when=t(m.default_when),
            with_extended_thinking=t(m.with_extended_thinking),
        )
        for key, m in catalogue.TOOL_CHOICE_MODES.items()
    }
    return actions, reasons, modes


def _local() -> tuple[dict, dict, dict]:
    code = current()
    built = _catalogues.get(code)
    if built is None:
        built = _catalogues[code] = _build()
    return built


def next_actions() -> dict[str, catalogue.NextAction]:
    """catalogue.NEXT_ACTIONS with labels and details in the active language."""
    return _local()[0]


def stop_reasons() -> dict[str, catalogue.StopReasonInfo]:
    """catalogue.STOP_REASONS with its texts (and next actions) in the active language."""
    return _local()[1]


def tool_choice_modes() -> dict[str, catalogue.ToolChoiceMode]:
    """catalogue.TOOL_CHOICE_MODES with its texts in the active language."""
    return _local()[2]


_FORK_TITLE = re.compile(r"^(?P<title>.*) \(fork at step (?P<step>\d+)\)$", re.S)


def generated(text: str) -> str:
    """A text the code wrote in English and stored with a run (a live scenario's title or
    summary, an upload's default title, a fork's "(fork at step N)"), in the active language;
    any other text (a title someone typed) as it is."""
    if not isinstance(text, str) or not text:
        return text
    fork = _FORK_TITLE.match(text)
    if fork:
        return gettext("%(title)s (fork at step %(step)s)") % {
            "title": generated(fork["title"]),
            "step": fork["step"],
        }
    return gettext(text) if text in _generated_texts() else text


@functools.cache
def _generated_texts() -> frozenset[str]:
    from studyapp.agentloop import demo
    from studyapp.agentloop.transcript import rawlog

    texts = {rawlog.UPLOADED_TITLE, rawlog.UPLOADED_SUMMARY}
    for s in demo.SCENARIOS.values():
        texts.update((s.title, s.summary))
    return frozenset(texts)


class LocaleMiddleware(_DjangoLocaleMiddleware):
    """Django's, choosing the same language with less work: Django reads the visitor's cookie
    and Accept-Language on every request and then, for a path with no language prefix under
    ``i18n_patterns(prefix_default_language=False)`` (every English page), throws that answer
    away for ``settings.LANGUAGE_CODE``. Here the prefix is read once and the visitor's
    preferences only where they can decide (settings.MIDDLEWARE; tests/test_harness.py)."""

    def process_request(self, request):
        urlconf = getattr(request, "urlconf", settings.ROOT_URLCONF)
        used, prefixed_default = is_language_prefix_patterns_used(urlconf)
        from_path = language_from_path(request.path_info) if used else None
        if from_path:
            language = from_path
        elif used and not prefixed_default:
            language = settings.LANGUAGE_CODE
        else:
            language = translation.get_language_from_request(request, check_path=used)
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()
