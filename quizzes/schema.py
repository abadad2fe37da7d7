"""Validate question-bank YAML files (docs/QUESTION_FORMAT.md) without Django.

Run as ``python -m quizzes.schema FILE...`` to check files by hand.
"""

from __future__ import annotations

import copy
import pickle
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from django.utils.translation import gettext_lazy as _

from studyapp.agentloop import bounded, models

from . import kinds, translation_rules
from .kinds.base import plain
from .scenarios import SCENARIO_CHOICES

KINDS = tuple(kinds.REGISTRY)  # each kind's own checks live in its module (quizzes/kinds/)
SUBTOPICS = (
    "loop-basics",
    "stop-reasons",
    "tool-results",
    "server-tools",
    "tool-choice",
    "guards",
    "errors",
    "thinking",
    "context",
    "parallel",
    "observability",
    "rules-in-code",
)
SUBTOPIC_LABELS = {
    "loop-basics": _("Loop basics"),
    "stop-reasons": _("Stop reasons"),
    "tool-results": _("Tool results"),
    "server-tools": _("Server tools and pause_turn"),
    "tool-choice": "tool_choice",
    "guards": _("Guards"),
    "errors": _("Errors"),
    "thinking": _("Thinking blocks"),
    "context": _("Context"),
    "parallel": _("Parallel calls"),
    "observability": _("Observability and the Agent SDK"),
    "rules-in-code": _("Rules in code"),
}
FAMILIES: dict[str, Any] = {
    "ends-on-text": _("decides the loop is over from the text instead of stop_reason"),
    "truncation-as-done": _(
        "treats max_tokens or a full context window as a finished answer, "
        "or runs a cut-off tool_use"
    ),
    "pause-as-tool-use": _(
        "handles pause_turn like tool_use: runs a tool, or adds a “please continue” message"
    ),
    "split-results": _(
        "sends tool results in several messages, leaves one out, or puts text before them"
    ),
    "wrong-executor": _(
        "thinks a server tool needs local execution, or that bash and the text "
        "editor run on Anthropic's side"
    ),
    "forced-choice-mixup": _(
        "confuses any with a named tool, or misplaces disable_parallel_tool_use"
    ),
    "mutated-history": _(
        "edits, drops or reorders thinking blocks, or rewrites the history mid-loop"
    ),
    "swallowed-error": _("returns a failure as an empty success, or without is_error"),
    "prompt-instead-of-code": _("relies on the prompt for a rule that must always hold"),
    "cap-as-control": _("uses the iteration cap as the normal way out, or runs with no cap"),
    "retry-blindly": _("resends a refusal unchanged, or retries a non-retryable error"),
    "invented-api": _("relies on something that does not exist, such as an Agent SDK run()"),
    "over-engineered": _("adds machinery where a parameter or a line of code fixes the cause"),
    "misread-contract": _("gets a field name, shape, default or limit of the API wrong"),
    "scripted-flow": _(
        "hard-codes the sequence of tool calls, or ends the loop on a planned step, "
        "instead of letting the model decide from each result"
    ),
}
SLUG_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
NOTES_RE = re.compile(r"^[a-z0-9-]+#[a-z0-9-]+$")
# A bank file or an import: room for our own export of the whole bank (about 3 MB as Moodle XML).
MAX_BYTES = bounded.IMPORT.max_bytes


class SchemaError(ValueError):
    """Raised for a whole file that cannot be read as a bank."""


@dataclass
class Problem:
    file: str
    line: int
    slug: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}"
        return f"{where}: {self.slug + ': ' if self.slug else ''}{self.message}"


@dataclass
class Result:
    questions: list[dict[str, Any]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


class _LineDict(dict):
    line = 0


class _Loader(yaml.SafeLoader):
    """A safe loader whose mappings remember the line they start on."""


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> _LineDict:
    loader.flatten_mapping(node)
    d = _LineDict(loader.construct_pairs(node, deep=True))
    d.line = node.start_mark.line + 1
    return d


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _as_loaded(value: Any) -> Any:
    """Plain data shaped as the loader returns it (mappings that know a line, lists not tuples)."""
    if isinstance(value, dict):
        d = _LineDict((k, _as_loaded(v)) for k, v in value.items())
        d.line = 1
        return d
    if isinstance(value, list | tuple):
        return [_as_loaded(v) for v in value]
    return value


def check_question(question: dict, file: str = "<data>") -> tuple[dict | None, list[Problem]]:
    """Validate one question given as data (an import's mapped question), with the checks
    ``parse_text`` runs on a file, without writing it out as YAML and reading it back."""
    return _check_question(file, _as_loaded(question), 0)


class _Checker:
    def __init__(self, file: str, q: _LineDict):
        self.file, self.q, self.problems = file, q, []
        self.slug = q.get("slug") if isinstance(q.get("slug"), str) else ""

    def err(self, message: str, node: Any = None) -> None:
        line = getattr(node, "line", 0) or self.q.line
        self.problems.append(Problem(self.file, line, self.slug, message))

    def text(self, node: dict, key: str, where: str = "", required: bool = True) -> str:
        value = node.get(key)
        if value is None or (isinstance(value, str) and not value.strip()):
            if required:
                self.err(f"{where}{key} is required", node)
            return ""
        if not isinstance(value, (str, int, float, bool)):
            self.err(f"{where}{key} must be text", node)
            return ""
        return str(value).strip()

    def family(self, node: dict, where: str) -> str:
        fam = node.get("family")
        if fam is None or fam == "":  # a wrong answer may be left untagged (no trap statistics)
            return ""
        if fam not in FAMILIES:
            self.err(f"{where}family must be one of {', '.join(FAMILIES)} (got {fam!r})", node)
            return ""
        return fam


def _check_question(file: str, q: Any, index: int) -> tuple[dict[str, Any] | None, list[Problem]]:
    if not isinstance(q, dict):
        return None, [Problem(file, 0, "", f"question {index + 1} is not a mapping")]
    c = _Checker(file, q)
    if not c.slug or not SLUG_RE.match(c.slug) or len(c.slug) > 80:
        c.err("slug must be lowercase letters, digits and single hyphens (at most 80)")
    kind = q.get("kind")
    if not isinstance(kind, str) or kinds.get(kind) is None:
        c.err(f"kind must be one of {', '.join(KINDS)} (got {kind!r})")
    subtopic = q.get("subtopic")
    if subtopic not in SUBTOPICS:
        c.err(f"subtopic must be one of {', '.join(SUBTOPICS)} (got {subtopic!r})")
    concept = c.text(q, "concept")
    if concept and not SLUG_RE.match(concept):
        c.err("concept must be a slug (lowercase letters, digits, hyphens)")
    difficulty = q.get("difficulty", 2)
    if difficulty not in (1, 2, 3):
        c.err("difficulty must be 1, 2 or 3")
    status = q.get("status", "published")
    if status not in ("published", "draft"):
        c.err("status must be published or draft")
    notes = c.text(q, "notes")
    if notes and not NOTES_RE.match(notes):
        c.err("notes must look like note-slug#anchor")
    sources = q.get("sources")
    if not isinstance(sources, list) or not sources:
        c.err("sources must list at least one URL")
        sources = []
    for s in sources:
        if not isinstance(s, str) or not s.startswith("https://"):
            c.err(f"each source must be an https:// URL (got {s!r})")
    stem = c.text(q, "stem")
    explanation = c.text(q, "explanation")
    out: dict[str, Any] = {
        "slug": c.slug,
        "kind": kind,
        "subtopic": subtopic,
        "concept": concept,
        "difficulty": difficulty,
        "status": status,
        "notes": notes,
        "sources": [s for s in sources if isinstance(s, str)],
        "stem": stem,
        "explanation": explanation,
        "options": [],
        "data": {},
        "line": q.line,
    }
    # Optional tags, kept out of the parsed form when absent so untagged items keep their hash.
    scenario = q.get("scenario")
    if scenario is not None:
        if scenario not in SCENARIO_CHOICES:
            c.err(f"scenario must be one of {', '.join(SCENARIO_CHOICES)} (got {scenario!r})")
        else:
            out["scenario"] = scenario
    cluster = q.get("cluster")
    if cluster is not None:
        if not isinstance(cluster, str) or not SLUG_RE.match(cluster) or len(cluster) > 60:
            c.err("cluster must be a slug (lowercase letters, digits, hyphens; at most 60)")
        else:
            out["cluster"] = cluster
    idnumber = q.get("idnumber")
    if idnumber is not None:  # Moodle's own id of an imported question, kept for round trips
        if (
            not isinstance(idnumber, (str, int))
            or not str(idnumber).strip()
            or len(str(idnumber)) > 100
        ):
            c.err("idnumber must be text of at most 100 characters")
        else:
            out["idnumber"] = str(idnumber)
    module = kinds.get(kind) if isinstance(kind, str) else None
    if module is not None:
        module.check(c, q, out)
    _check_translations(c, q, out)
    today = q.get("today")
    if today is not None:  # optional: what today's models do, shown after answering
        if not isinstance(today, str) or today not in models.CHANGES:
            c.err(
                f"today must be one of {', '.join(models.CHANGES)} (got {today!r}): it names "
                "the rule in the model catalogue whose current behaviour the feedback shows"
            )
        else:
            out["data"]["today"] = today
    return (out if not c.problems else None), c.problems


#: The translated languages a YAML export may carry (settings.LANGUAGES without English).
TRANSLATED_LANGUAGES = ("zh-hans", "zh-hant", "pl")


def _check_translations(c: _Checker, q: dict, out: dict) -> None:
    """An export's ``translations: {lang: {...}}``: checked against this question's words and
    kept beside the parsed form (outside its content hash: a translation is not a new version)."""
    value = q.get("translations")
    if value is None:
        return
    if not isinstance(value, dict):
        c.err("translations must map a language code to that language's words")
        return
    kept = {}
    for lang, entry in value.items():
        if lang not in TRANSLATED_LANGUAGES:
            c.err(f"translations: unknown language {lang!r} ({', '.join(TRANSLATED_LANGUAGES)})")
            continue
        problems = translation_rules.check_entry(plain(entry), plain(q))
        for problem in problems:
            c.err(f"translations.{lang}.{problem}")
        if not problems:
            kept[lang] = plain(entry)
    if kept:
        out["translations"] = kept


def parse_text(text: str, file: str = "<text>") -> Result:
    """Validate the YAML text of one bank file."""
    result = Result()
    try:
        doc = bounded.load_yaml(text, bounded.IMPORT, what="the file", loader=_Loader)
    except bounded.LimitError as e:
        result.problems.append(Problem(file, e.line, "", str(e)))
        return result
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 1 if mark else 0
        problem = getattr(e, "problem", None) or str(e)
        result.problems.append(Problem(file, line, "", f"not valid YAML: {problem}"))
        return result
    if not isinstance(doc, dict) or not isinstance(doc.get("questions"), list):
        result.problems.append(Problem(file, 1, "", "the file must hold a 'questions:' list"))
        return result
    seen: dict[str, int] = {}
    for i, q in enumerate(doc["questions"]):
        parsed, problems = _check_question(file, q, i)
        result.problems.extend(problems)
        if parsed:
            if parsed["slug"] in seen:
                result.problems.append(
                    Problem(
                        file,
                        parsed["line"],
                        parsed["slug"],
                        f"slug already used on line {seen[parsed['slug']]}",
                    )
                )
                continue
            seen[parsed["slug"]] = parsed["line"]
            result.questions.append(parsed)
    return result


#: (file name, text) -> its Result, pickled: a file read again unchanged in this process
#: (loadcontent run twice, a check after a load) is not parsed and checked again. Callers get
#: copies: unpickled (five times faster than copy.deepcopy of the real bank's Results, the same
#: objects, lines and shared parts), or deep-copied if a Result could not be pickled.
_PARSED: dict[tuple[str, str], bytes | Result] = {}
_PARSED_KEPT = 256


def _parse_file(path: Path) -> Result:
    key = (str(path), path.read_text(encoding="utf-8"))
    if key not in _PARSED:
        if len(_PARSED) >= _PARSED_KEPT:
            _PARSED.pop(next(iter(_PARSED)))
        result = parse_text(key[1], file=key[0])
        try:
            _PARSED[key] = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError):
            _PARSED[key] = result
    kept = _PARSED[key]
    return pickle.loads(kept) if isinstance(kept, bytes) else copy.deepcopy(kept)  # noqa: S301 - our own bytes


def parse_files(paths: list[Path]) -> Result:
    """Validate several bank files; slugs must be unique across all of them."""
    total = Result()
    where: dict[str, str] = {}
    for path in paths:
        r = _parse_file(path)
        total.problems.extend(r.problems)
        for q in r.questions:
            if q["slug"] in where:
                total.problems.append(
                    Problem(
                        str(path), q["line"], q["slug"], f"slug also used in {where[q['slug']]}"
                    )
                )
                continue
            where[q["slug"]] = str(path)
            q["file"] = str(path)
            total.questions.append(q)
    return total


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or sorted(Path("content/questions").glob("*.yaml"))
    result = parse_files(paths)
    for p in result.problems:
        print(p)
    if result.problems:
        print(f"{len(result.problems)} problem(s)")
        return 1
    print(f"ok: {len(result.questions)} questions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
