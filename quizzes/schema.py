"""Validate question-bank YAML files (docs/QUESTION_FORMAT.md) without Django.

Run as ``python -m quizzes.schema FILE...`` to check files by hand.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from studyapp.agentloop import bounded, catalogue, models

from . import kinds, translation_rules
from .scenarios import SCENARIO_CHOICES

KINDS = (
    "single", "multiple", "truefalse", "ordering", "matching", "next_action", "json", "fix",
    "short_answer", "numerical", "essay",
)  # fmt: skip
CHOICE_KINDS = ("single", "multiple", "truefalse", "next_action")
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
    "loop-basics": "Loop basics",
    "stop-reasons": "Stop reasons",
    "tool-results": "Tool results",
    "server-tools": "Server tools and pause_turn",
    "tool-choice": "tool_choice",
    "guards": "Guards",
    "errors": "Errors",
    "thinking": "Thinking blocks",
    "context": "Context",
    "parallel": "Parallel calls",
    "observability": "Observability and the Agent SDK",
    "rules-in-code": "Rules in code",
}
FAMILIES: dict[str, str] = {
    "ends-on-text": "decides the loop is over from the text instead of stop_reason",
    "truncation-as-done": "treats max_tokens or a full context window as a finished answer, "
    "or runs a cut-off tool_use",
    "pause-as-tool-use": "handles pause_turn like tool_use: runs a tool, or adds a "
    "“please continue” message",
    "split-results": "sends tool results in several messages, leaves one out, or puts text "
    "before them",
    "wrong-executor": "thinks a server tool needs local execution, or that bash and the text "
    "editor run on Anthropic's side",
    "forced-choice-mixup": "confuses any with a named tool, or misplaces disable_parallel_tool_use",
    "mutated-history": "edits, drops or reorders thinking blocks, or rewrites the history mid-loop",
    "swallowed-error": "returns a failure as an empty success, or without is_error",
    "prompt-instead-of-code": "relies on the prompt for a rule that must always hold",
    "cap-as-control": "uses the iteration cap as the normal way out, or runs with no cap",
    "retry-blindly": "resends a refusal unchanged, or retries a non-retryable error",
    "invented-api": "relies on something that does not exist, such as an Agent SDK run()",
    "over-engineered": "adds machinery where a parameter or a line of code fixes the cause",
    "misread-contract": "gets a field name, shape, default or limit of the API wrong",
    "scripted-flow": "hard-codes the sequence of tool calls, or ends the loop on a planned step, "
    "instead of letting the model decide from each result",
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


def _plain(value: Any) -> Any:
    """Turn loader dicts back into plain JSON-able values."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


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
    if kind not in KINDS:
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
    if kinds.get(kind) is not None:
        kinds.get(kind).check(c, q, out)
    elif kind in CHOICE_KINDS and kind != "next_action":
        _check_options(c, q, kind, out)
    elif kind == "next_action":
        _check_next_action(c, q, out)
    elif kind == "ordering":
        _check_ordering(c, q, out)
    elif kind == "matching":
        _check_matching(c, q, out)
    elif kind == "json":
        _check_json(c, q, out)
    elif kind == "fix":
        _check_fix(c, q, out)
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


def _option_list(c: _Checker, q: dict, key: str, low: int, high: int) -> list:
    items = q.get(key)
    if not isinstance(items, list):
        c.err(f"{key} must be a list")
        return []
    if not low <= len(items) <= high:
        c.err(f"{key} must have {low} to {high} entries (has {len(items)})")
        if len(items) > 4 * high:
            return []  # far too many: the count is the problem, checking each says nothing more
    good = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            c.err(f"{key}[{i + 1}] must be a mapping")
        else:
            good.append(item)
    return good


def _check_options(c: _Checker, q: dict, kind: str, out: dict) -> None:
    low, high = {"single": (3, 5), "multiple": (4, 6), "truefalse": (2, 2)}[kind]
    options = _option_list(c, q, "options", low, high)
    for i, opt in enumerate(options):
        where = f"options[{i + 1}]."
        correct = opt.get("correct", False)
        if not isinstance(correct, bool):
            c.err(f"{where}correct must be true or false", opt)
        entry = {
            "text": c.text(opt, "text", where),
            "correct": correct is True,
            "why": c.text(opt, "why", where),
            "family": "" if correct is True else c.family(opt, where),
        }
        out["options"].append(entry)
    n_correct = sum(o["correct"] for o in out["options"])
    if kind in ("single", "truefalse") and n_correct != 1:
        c.err(f"a {kind} question needs exactly one correct option (has {n_correct})")
    if kind == "multiple" and n_correct < 2:
        c.err(f"a multiple-response question needs two or more correct options (has {n_correct})")
    if kind == "truefalse" and sorted(o["text"] for o in out["options"]) != ["False", "True"]:
        c.err("a truefalse question's options are exactly 'True' and 'False'")
    texts = [o["text"] for o in out["options"]]
    if len(set(texts)) != len(texts):
        c.err("two options have the same text")


def _check_next_action(c: _Checker, q: dict, out: dict) -> None:
    from anthropic.types import Message
    from pydantic import ValidationError

    response = q.get("response")
    expected = None
    if not isinstance(response, dict):
        c.err("response must be a Messages API response (a mapping)")
    else:
        try:
            Message.model_validate(_plain(response))
            expected = catalogue.next_action(response)
        except ValidationError as e:
            first = e.errors()[0]
            path = ".".join(str(p) for p in first["loc"])
            c.err(f"response is not a valid Message at {path}: {first['msg']}", response)
        except ValueError as e:
            c.err(f"response: {e}", response)
    out["data"]["response"] = _plain(response) if isinstance(response, dict) else None
    choices = _option_list(c, q, "choices", 3, 5)
    seen = set()
    for i, ch in enumerate(choices):
        where = f"choices[{i + 1}]."
        action = ch.get("action")
        if action not in catalogue.NEXT_ACTIONS:
            c.err(f"{where}action must be a next-action code (got {action!r})", ch)
            continue
        if action in seen:
            c.err(f"{where}action {action} is offered twice", ch)
        seen.add(action)
        correct = ch.get("correct", False) is True
        out["options"].append(
            {
                "key": action,
                "text": catalogue.NEXT_ACTIONS[action].label,
                "correct": correct,
                "why": c.text(ch, "why", where),
                "family": "" if correct else c.family(ch, where),
            }
        )
    marked = [o["key"] for o in out["options"] if o["correct"]]
    if len(marked) != 1:
        c.err(f"a next_action question marks exactly one choice correct (has {len(marked)})")
    elif expected and marked[0] != expected:
        c.err(
            f"the key says {marked[0]} but the stop_reason catalogue says {expected} for this "
            "response"
        )
    if expected and expected not in seen:
        c.err(f"the catalogue's answer {expected} is not among the choices")


def _check_ordering(c: _Checker, q: dict, out: dict) -> None:
    items = _option_list(c, q, "items", 3, 7)
    for i, item in enumerate(items):
        where = f"items[{i + 1}]."
        out["options"].append(
            {
                "text": c.text(item, "text", where),
                "correct": True,
                "why": c.text(item, "why", where),
                "family": "",
                "position": i,
            }
        )


def _check_matching(c: _Checker, q: dict, out: dict) -> None:
    pairs = _option_list(c, q, "pairs", 3, 6)
    for i, pair in enumerate(pairs):
        where = f"pairs[{i + 1}]."
        out["options"].append(
            {
                "text": c.text(pair, "left", where),
                "match": c.text(pair, "right", where),
                "correct": True,
                "why": c.text(pair, "why", where),
                "family": "",
                "position": i,
            }
        )
    extra = q.get("extra_rights", [])
    if not isinstance(extra, list) or not all(isinstance(x, str) for x in extra):
        c.err("extra_rights must be a list of texts")
        extra = []
    out["data"]["extra_rights"] = extra
    lefts = [o["text"] for o in out["options"]]
    if len(set(lefts)) != len(lefts):
        c.err("two pairs have the same left-hand text")


def _check_json(c: _Checker, q: dict, out: dict) -> None:
    accept = q.get("accept")
    if not isinstance(accept, list) or not accept:
        c.err("accept must list at least one JSON value that is right")
        accept = []
    normalize = q.get("normalize")
    if normalize not in (None, "tool_choice"):
        c.err("normalize must be tool_choice or left out")
    if normalize == "tool_choice":
        for a in accept:
            try:
                catalogue.validate_tool_choice(_plain(a))
            except catalogue.ToolChoiceError as e:
                c.err(f"an accepted answer is not a valid tool_choice: {e}")
    why = c.text(q, "why")
    wrong = q.get("wrong_answers", [])
    if not isinstance(wrong, list):
        c.err("wrong_answers must be a list")
        wrong = []
    wrong_out = []
    for i, w in enumerate(wrong):
        where = f"wrong_answers[{i + 1}]."
        if not isinstance(w, dict) or "answer" not in w:
            c.err(f"{where}answer is required")
            continue
        wrong_out.append(
            {
                "answer": _plain(w["answer"]),
                "why": c.text(w, "why", where),
                "family": c.family(w, where),
            }
        )
    out["data"].update(
        {
            "accept": _plain(accept),
            "normalize": normalize or "",
            "why": why,
            "wrong_answers": wrong_out,
            "placeholder": str(q.get("placeholder") or ""),
        }
    )
    try:
        json.dumps(out["data"])
    except (TypeError, ValueError):
        c.err("accept and wrong_answers must be plain JSON values")


def _check_fix(c: _Checker, q: dict, out: dict) -> None:
    from studyapp.agentloop import contract

    messages = q.get("messages")
    sample = q.get("sample_fix")
    context = {k: _plain(q[k]) for k in ("tools", "tool_choice", "thinking") if k in q}
    if not isinstance(messages, list) or not messages:
        c.err("messages must be the broken history: a list of messages")
        return
    if not isinstance(sample, list) or not sample:
        c.err("sample_fix must be a repaired history: a list of messages")
        return
    if not contract.check(_plain(messages), **context):
        c.err("the checker finds nothing wrong with messages: the history to fix must be broken")
    found = contract.check(_plain(sample), **context)
    if found:
        c.err(f"sample_fix does not pass the checker: {found[0].message}")
    out["data"].update(
        {
            "messages": _plain(messages),
            "sample_fix": _plain(sample),
            "context": context,
            "why": c.text(q, "why"),
        }
    )


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
        problems = translation_rules.check_entry(_plain(entry), _plain(q))
        for problem in problems:
            c.err(f"translations.{lang}.{problem}")
        if not problems:
            kept[lang] = _plain(entry)
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


def parse_files(paths: list[Path]) -> Result:
    """Validate several bank files; slugs must be unique across all of them."""
    total = Result()
    where: dict[str, str] = {}
    for path in paths:
        r = parse_text(path.read_text(encoding="utf-8"), file=str(path))
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
