"""The interface catalogues (issue 16): complete, in step with the code, and used by the pages.

The first tests run ``makemessages`` on a temporary copy of the sources with the committed
catalogues, so a string marked in a template or in Python but not yet translated fails here, as
does a fuzzy entry or a translation that lost or renamed a placeholder. The last ones render pages
under ``translation.override`` and look for the translated words a reader would see.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.core.management import call_command
from django.template.loader import render_to_string
from django.test import RequestFactory, override_settings
from django.utils import translation
from django.utils.translation import trans_real

ROOT = Path(settings.BASE_DIR)
LANGS = ("zh_Hans", "zh_Hant", "pl")
#: Polish has three plural forms (1; 2-4 but not 12-14; the rest), Chinese one.
PLURALS = {"pl": 3, "zh_Hans": 1, "zh_Hant": 1}
#: What makemessages must not read (the README's makemessages recipe ignores the same).
IGNORED = (".venv", "tests", "bench", "staticfiles", "test-artifacts", "node_modules", "content")
PLACEHOLDER = re.compile(r"%\(\w+\)[-#0 +]*\d*(?:\.\d+)?[sdifr]|\{\w+\}")

needs_msgfmt = pytest.mark.skipif(
    shutil.which("msgfmt") is None, reason="GNU gettext's msgfmt is missing (make setup needs it)"
)


def _unquote(line: str) -> str:
    body = line[line.index('"') + 1 : line.rindex('"')]
    if "\\" not in body:  # most lines escape nothing
        return body
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


def parse_po(path: Path) -> list[dict]:
    """The entries of a .po file (header and obsolete ones left out), enough for these checks.

    makemessages writes one entry per block of lines; each block has optional ``#,`` flags, then
    msgctxt / msgid / msgid_plural / msgstr / msgstr[n], each possibly continued on "..." lines.
    """
    entries = []
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        entry: dict = {"flags": set()}
        field = None
        for line in block.strip().splitlines():
            if line.startswith("#~"):
                entry = {}
                break
            if line.startswith("#,"):
                entry["flags"] = {f.strip() for f in line[2:].split(",")}
            elif line.startswith("#"):
                continue
            elif line.startswith('"') and field:
                entry[field] += _unquote(line)
            else:
                field = line.split(" ", 1)[0]
                entry[field] = _unquote(line)
        if entry.get("msgid"):
            entries.append(entry)
    return entries


def translations(entry: dict) -> list[str]:
    return [v for k, v in sorted(entry.items()) if k == "msgstr" or k.startswith("msgstr[")]


@pytest.fixture(scope="module")
def fresh_catalogues(tmp_path_factory) -> dict[str, list[dict]]:
    """makemessages run over a copy of the sources and of the committed catalogues."""
    copy = tmp_path_factory.mktemp("i18n-src")
    for folder, dirs, files in os.walk(ROOT):
        here = Path(folder)
        if here == ROOT:  # the ignored top-level folders (.venv's thousands of files) unread
            dirs[:] = [d for d in dirs if d not in IGNORED + (".git",)]
        dirs[:] = [d for d in dirs if d != "migrations"]
        for name in files:
            if Path(name).suffix in (".py", ".html", ".txt", ".po"):
                target = copy / (here / name).relative_to(ROOT)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(here / name, target)
    argv = ["manage.py", "makemessages", "--no-obsolete", "--no-location"]
    argv += [f"--locale={lang}" for lang in LANGS] + [f"--ignore={i}" for i in IGNORED]
    # makemessages merges into each locale folder it knows (LOCALE_PATHS, the working folder's
    # locale/, each locale/ its walk meets): here all three are the copy's locale/, so msguniq,
    # and msgmerge and msgattrib for each language, ran three times. With the walk kept out of
    # locale/ (it holds no source) and no LOCALE_PATHS, the copy's locale/ is merged into once:
    # the same catalogues, byte for byte.
    argv += ["--ignore=locale"]
    with override_settings(LOCALE_PATHS=[]):
        cwd = Path.cwd()
        try:
            os.chdir(copy)
            call_command(*argv[1:], verbosity=0)
        finally:
            os.chdir(cwd)
    return {lang: parse_po(copy / "locale" / lang / "LC_MESSAGES" / "django.po") for lang in LANGS}


@needs_msgfmt
@pytest.mark.parametrize("lang", LANGS)
def test_every_interface_string_is_translated_and_none_is_fuzzy(fresh_catalogues, lang):
    entries = fresh_catalogues[lang]
    assert len(entries) > 1000, "the extraction found far fewer strings than the interface has"
    untranslated = [e["msgid"] for e in entries if not all(translations(e))]
    fuzzy = [e["msgid"] for e in entries if "fuzzy" in e.get("flags", ())]
    assert not untranslated, f"{len(untranslated)} untranslated in {lang}: {untranslated[:5]}"
    assert not fuzzy, f"{len(fuzzy)} fuzzy in {lang}: {fuzzy[:5]}"
    for e in entries:
        if "msgid_plural" in e:
            assert len(translations(e)) == PLURALS[lang], (lang, e["msgid"])


@needs_msgfmt
@pytest.mark.parametrize("lang", LANGS)
def test_translations_keep_every_placeholder(fresh_catalogues, lang):
    wrong = []
    for e in fresh_catalogues[lang]:
        wanted = sorted(set(PLACEHOLDER.findall(e["msgid"] + e.get("msgid_plural", ""))))
        for text in translations(e):
            if sorted(set(PLACEHOLDER.findall(text))) != wanted:
                wrong.append((e["msgid"], text))
            if (
                e["msgid"].count("%%")
                and text.count("%%") == 0
                and "python-format" in e.get("flags", ())
            ):
                wrong.append((e["msgid"], text))
    assert not wrong, f"{len(wrong)} placeholder mismatches in {lang}: {wrong[:3]}"


@needs_msgfmt
@pytest.mark.parametrize("lang", LANGS)
def test_msgfmt_accepts_the_committed_catalogue(lang):
    po = ROOT / "locale" / lang / "LC_MESSAGES" / "django.po"
    done = subprocess.run(
        [shutil.which("msgfmt") or "msgfmt", "--check", "-o", "/dev/null", str(po)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


def test_the_parser_reads_plural_and_context_entries(tmp_path):
    po = tmp_path / "x.po"
    po.write_text(
        'msgid ""\nmsgstr "Plural-Forms: nplurals=3;\\n"\n\n'
        '#, python-format\nmsgid "%(n)s step"\nmsgid_plural "%(n)s steps"\n'
        'msgstr[0] "%(n)s krok"\nmsgstr[1] "%(n)s kroki"\nmsgstr[2] ""\n\n'
        'msgctxt "caller"\nmsgid "from"\nmsgstr "z"\n',
        encoding="utf-8",
    )
    plural, ctx = parse_po(po)
    assert translations(plural) == ["%(n)s krok", "%(n)s kroki", ""]
    assert ctx["msgctxt"] == "caller" and translations(ctx) == ["z"]


# --- The pages, rendered in another language -------------------------------------------------


@pytest.fixture(scope="module")
def compiled():
    """The .mo files `make setup` builds; compiled here too so a bare pytest run has them."""
    if shutil.which("msgfmt") is None:
        pytest.skip("GNU gettext's msgfmt is missing (make setup needs it)")
    # (the ignored folders unwalked: compilemessages looks for locale/ folders everywhere)
    call_command(
        "compilemessages", locale=list(LANGS), ignore_patterns=[*IGNORED, ".git"], verbosity=0
    )
    trans_real._translations = {}  # catalogues loaded before the compile are read again
    yield


def _home(lang: str) -> str:
    from studyapp.views import home

    request = RequestFactory().get("/")
    request.user = AnonymousUser()
    with translation.override(lang):
        return home(request).content.decode()


@pytest.mark.django_db
def test_the_home_page_speaks_polish(compiled):
    html = _home("pl")
    assert "Opanuj pętlę agentową i jej warunki zatrzymania" in html  # the heading
    assert ">Notatki<" in html  # the main navigation
    assert "Uruchom narzędzia, wyślij wszystkie wyniki w jednej wiadomości" in html  # agentloop
    assert "<code>stop_reason</code>" in html  # API names stay as they are
    assert "Master the agentic loop" not in html


@pytest.mark.django_db
@pytest.mark.parametrize(
    "lang, heading, nav",
    [
        ("zh-hans", "掌握智能体循环及其停止条件", ">笔记<"),
        ("zh-hant", "掌握代理迴圈及其停止條件", ">筆記<"),
    ],
)
def test_the_home_page_speaks_chinese(compiled, lang, heading, nav):
    html = _home(lang)
    assert heading in html and nav in html
    assert "end_turn" in html  # stop_reason values are never translated


def test_polish_plurals_take_the_right_form(compiled):
    def wait(n):
        with translation.override("pl"):
            return render_to_string("429.html", {"retry_after": n, "what": "żądań"})

    assert "Poczekaj 1 sekundę" in wait(1)
    assert "Poczekaj 3 sekundy" in wait(3)
    assert "Poczekaj 5 sekund" in wait(5)
    assert "Poczekaj 12 sekund" in wait(12)
    assert "Poczekaj 22 sekundy" in wait(22)


def test_python_messages_are_translated_where_they_are_shown(compiled):
    from quizzes.services import fewer_than_asked

    with translation.override("pl"):
        assert fewer_than_asked(10, 3, "unseen") == (
            "Chcesz 10 niewidzianych pytań; dostępne są tylko 3, więc ten zestaw ma 3."
        )
    with translation.override("zh-hans"):
        assert "只有 3 道可用" in fewer_than_asked(10, 3, "unseen")
    assert fewer_than_asked(10, 3, "unseen").startswith("You asked for 10 unseen questions")


@pytest.mark.parametrize("right, answered", [(0, 0), (9, 10), (1, 10), (5, 10)])
def test_readiness_words_built_for_translation_say_what_the_pure_module_says(right, answered):
    """readiness.py stays Django-free; reports.py rebuilds its sentences for translation."""
    from progress import readiness, reports

    est = readiness.estimate(right, answered)
    verdict = readiness.verdict(est)
    with translation.override("en"):
        assert reports.verdict_reason(verdict.key) == verdict.reason
        assert reports.estimate_text(est) == est.text


def test_the_readiness_verdict_is_translated(compiled):
    from progress import readiness, reports

    est = readiness.estimate(9, 10)
    assert readiness.verdict(est).key == "borderline"
    with translation.override("pl"):
        assert reports.verdict_reason("borderline") == (
            "Przedział 90% obejmuje 72%: więcej pierwszych odpowiedzi by go zawęziło."
        )
        assert reports.estimate_text(est).startswith(f"{est.percent}% (przedział 90%: ")


def test_the_pure_packages_page_time_text_follows_the_language(compiled):
    """Per-model lines and statuses come from studyapp.agentloop, translated through its hook."""
    from core import today

    def lines(lang):
        with translation.override(lang):
            rows = today.change_context("prefill")["rows"]
            return {r["text"] for r in rows}, {r["status"] for r in rows}

    texts, statuses = lines("pl")
    assert texts <= {"akceptowane, ale nie przy włączonym myśleniu", "błąd 400"}
    assert "aktywny" in statuses
    texts, _ = lines("en")
    assert texts <= {"accepted, but not with thinking on", "400 error"}
