"""Python source read as syntax trees, for the tests that check the code itself (imports,
dependencies, settings, kind branches, the suite's layout).

The tests that need only a file's imports (dependencies, import direction, suite layout) use
``imports``: the import statements alone are parsed, and kept for the session (a few thousand
nodes). ``nodes`` parses the whole file each time and keeps nothing: the two tests that read
whole trees (hidden setting defaults, kind branches) read different files, and a tree kept
alive for the session (the whole code's were 1.5 million objects) slowed every later garbage
collection, pytest's own at the end among them (about 0.5 s each).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path


def nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of the file's syntax tree (``ast.walk`` order)."""
    return text_nodes(Path(path).read_text(encoding="utf-8"), str(path))


def text_nodes(source: str, filename: str = "<unknown>") -> tuple[ast.AST, ...]:
    """Every node of ``source``'s syntax tree (``ast.walk`` order); ``filename`` names the
    file in a SyntaxError."""
    return tuple(ast.walk(ast.parse(source, filename)))


#: A comment or a string literal, found left to right as the tokenizer finds them (Python 3.11:
#: an f-string's replacement fields cannot reuse its quote, so the literal ends at that quote).
_OPAQUE = re.compile(
    r"\#[^\n]*"
    r"|'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''"
    r'|"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""'
    r"|'[^'\\\n]*(?:\\.[^'\\\n]*)*'"
    r'|"[^"\\\n]*(?:\\.[^"\\\n]*)*"',
    re.S,
)
#: ``import`` or ``from`` as a word (a statement starts with one where only blanks, or a
#: backslash and its newline, stand between it and a line's start, a ``;`` or a compound
#: statement's ``:``, as in ``try: import x``).
_WORD = re.compile(r"\b(?:import|from)\b")
_BEFORE = re.compile(r"(?:[ \t\f]|\\\n)*\Z")
#: path -> (text, its import statements)
_IMPORTS: dict[str, tuple[str, tuple[ast.Import | ast.ImportFrom, ...]]] = {}


def _blank(match: re.Match) -> str:
    """A blank for a comment or a string, with its newlines (the lines keep their numbers)."""
    return " " + "\n" * match.group().count("\n")


def _statement(code: str, start: int) -> str:
    """The logical line of ``code`` (comments and strings blanked) that begins at ``start``:
    to the end of its line, past a ``(...)`` and past a backslash's newline."""
    end = start
    while True:
        end = code.find("\n", end)
        if end < 0:
            return code[start:]
        opened = code.rfind("(", start, end)
        if opened >= 0 and code.find(")", opened, end) < 0:
            closed = code.find(")", end)
            end = len(code) if closed < 0 else closed
        elif code[end - 1] == "\\":
            end += 1
        else:
            semicolon = code.find(";", start, end)
            return code[start : end if semicolon < 0 else semicolon]


def _parse_one(text: str) -> ast.stmt | None:
    try:
        return ast.parse(text).body[0]
    except (SyntaxError, IndexError):
        return None


def imports(path: Path) -> tuple[ast.Import | ast.ImportFrom, ...]:
    """Every import statement of the file, in source order, as the nodes ``ast.parse`` gives
    (``lineno`` the line of its keyword), without parsing the rest of the file.

    ``import`` is a keyword: outside comments and strings it appears only in import
    statements. So the file's comments and strings are blanked, each statement that starts with
    ``import`` or ``from`` is parsed alone, and the file is parsed whole (``nodes``) whenever a
    keyword ``import`` is left over that no parsed statement holds: the answer is the same as
    walking the whole tree, at about a fifth of the CPU (0.15 s instead of 0.75 s for our 2.2 MB).
    """
    source = Path(path).read_text(encoding="utf-8")
    cached = _IMPORTS.get(str(path))
    if cached and cached[0] == source:
        return cached[1]
    code = _OPAQUE.sub(_blank, source)
    starts, keywords = [], 0
    for match in _WORD.finditer(code):
        keywords += match.group() == "import"
        line = code.rfind("\n", 0, match.start())
        while line > 0 and code[line - 1] == "\\":  # a backslash continues the line before
            line = code.rfind("\n", 0, line - 1)
        before = code[line + 1 : match.start()]
        cut = max(before.rfind(";"), before.rfind(":"))
        if _BEFORE.match(before, cut + 1):
            starts.append(match.start())
    texts = [_statement(code, start) for start in starts]
    try:  # one parse for the file's statements, each alone on its line
        parsed = ast.parse("\n".join(texts)).body
        if len(parsed) != len(texts):
            raise SyntaxError
    except SyntaxError:  # ``raise X \ from e``, say: not an import; each alone
        parsed = [_parse_one(text) for text in texts]
    found: list[ast.Import | ast.ImportFrom] = []
    lines = 1
    offset = 0
    for start, statement in zip(starts, parsed, strict=True):
        lines += code.count("\n", offset, start)
        offset = start
        if isinstance(statement, ast.Import | ast.ImportFrom):
            ast.increment_lineno(statement, lines - statement.lineno)
            found.append(statement)
    if len(found) != keywords:  # a spelling this scan does not know
        found = [n for n in nodes(path) if isinstance(n, ast.Import | ast.ImportFrom)]
        found.sort(key=lambda n: (n.lineno, n.col_offset))
    result = tuple(found)
    _IMPORTS[str(path)] = (source, result)
    return result
