"""reStructuredText pages into blocks, parsed by docutils (never by regular expressions).

Documentation written for Sphinx uses roles and directives docutils does not know (``:ref:``,
``:guilabel:``, ``:menuselection:``, ``.. code-block::``, ``.. seealso::``); they are registered
here so a Sphinx page parses as its author meant: ``:guilabel:`OK``` is a UI label,
``:menuselection:`Object --> Create``` a menu path, ``:ref:`text <target>``` its text. Roles and
directives of other extensions are tolerated (their text kept, a warning recorded); real syntax
errors (a malformed table, a broken list) raise :class:`ProcedureError` with file and line.

Untrusted pages: file insertion (``.. include::``) and raw HTML are disabled.
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from docutils.core import publish_doctree
from docutils.parsers.rst import Directive, directives, roles
from docutils.utils import unescape

from consoleagent.documents.blocks import Block, Item, note_text
from consoleagent.documents.labels import bold, code_or_path, emphasised, mark_quoted_labels, menu_path, path_markup, tidy
from consoleagent.documents.model import ProcedureError, Table

SETTINGS = {"report_level": 5, "halt_level": 5, "file_insertion_enabled": False, "raw_enabled": False,
            "_disable_config": True, "doctitle_xform": True, "docinfo_xform": False, "input_encoding": "unicode",
            "warning_stream": False, "line_length_limit": 100_000}
TOLERATED = re.compile(r"Unknown (?:interpreted text role|directive type)|Interpreted text role .* not implemented|"
                       r"No (?:role|directive) entry|Unknown target name|Duplicate (?:explicit )?target name|"
                       r"Duplicate implicit target name|Hyperlink target .* is not referenced|"
                       r"Unknown interpreted text role|image")
NOTES = (nodes.note, nodes.warning, nodes.tip, nodes.important, nodes.caution, nodes.attention, nodes.danger,
         nodes.hint, nodes.error, nodes.admonition)
SKIPPED = (nodes.comment, nodes.target, nodes.substitution_definition, nodes.image, nodes.figure, nodes.raw,
           nodes.system_message, nodes.footnote, nodes.citation, nodes.pending, nodes.topic, nodes.sidebar)


class _AnyOption(dict):
    """An option spec that accepts every option (Sphinx directives have many)."""

    def __contains__(self, key: object) -> bool:
        return True

    def __getitem__(self, key: str) -> Any:
        return directives.unchanged


class _Skipped(Directive):
    """A Sphinx directive with nothing for a reader of steps (toctree, index, only, ...)."""

    has_content = True
    optional_arguments = 10
    final_argument_whitespace = True
    option_spec = _AnyOption()

    def run(self) -> list[nodes.Node]:
        return []


class _Code(_Skipped):
    """``.. code-block:: sql``: its content is a literal block."""

    def run(self) -> list[nodes.Node]:
        block = nodes.literal_block("\n".join(self.content), "\n".join(self.content))
        block.line = self.lineno
        return [block]


class _SeeAlso(_Skipped):
    """``.. seealso::`` and ``.. versionadded::``: a note holding its parsed content."""

    def run(self) -> list[nodes.Node]:
        note = nodes.note()
        note.line = self.lineno
        if self.arguments:
            note += nodes.paragraph(text=" ".join(self.arguments))
        self.state.nested_parse(self.content, self.content_offset, note)
        return [note]


def _label_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None,
                content: Any = None) -> tuple[list[nodes.Node], list[nodes.Node]]:
    """``:guilabel:`&Save``` → a UI label (Sphinx marks accelerators with &)."""
    return [nodes.inline(rawtext, unescape(text).replace("&", ""), classes=["guilabel"])], []


def _menu_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None,
               content: Any = None) -> tuple[list[nodes.Node], list[nodes.Node]]:
    return [nodes.inline(rawtext, unescape(text).replace("&", ""), classes=["menuselection"])], []


def _text_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None,
               content: Any = None) -> tuple[list[nodes.Node], list[nodes.Node]]:
    """``:ref:`Title <target>``` and friends: the text a reader sees."""
    plain = unescape(text)
    match = re.match(r"^(?P<title>.+?)\s*<[^<>]+>$", plain, re.S)
    return [nodes.Text(match.group("title") if match else plain.lstrip("~!"))], []


def _code_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any, options: Any = None,
               content: Any = None) -> tuple[list[nodes.Node], list[nodes.Node]]:
    return [nodes.literal(rawtext, unescape(text))], []


def _register() -> None:
    """Sphinx's roles and directives, registered once (docutils keeps them process-wide)."""
    for name in ("guilabel",):
        roles.register_local_role(name, _label_role)
    roles.register_local_role("menuselection", _menu_role)
    for name in ("ref", "doc", "term", "index", "abbr", "dfn", "numref", "download", "any", "envvar", "token",
                 "keyword", "option", "program", "regexp", "mailheader", "makevar", "manpage", "mimetype",
                 "newsgroup", "pep", "rfc", "class", "func", "meth", "mod", "data", "attr", "exc", "obj", "const"):
        roles.register_local_role(name, _text_role)
    for name in ("kbd", "command", "file", "samp"):
        roles.register_local_role(name, _code_role)
    for name in ("toctree", "index", "only", "tabularcolumns", "centered", "hlist", "glossary", "literalinclude",
                 "highlight", "sectionauthor", "codeauthor", "moduleauthor", "currentmodule", "module", "autosummary",
                 "automodule", "autoclass", "autofunction", "productionlist", "graphviz", "youtube", "todo"):
        directives.register_directive(name, _Skipped)
    for name in ("code-block", "sourcecode"):
        directives.register_directive(name, _Code)
    for name in ("seealso", "versionadded", "versionchanged", "deprecated", "versionremoved"):
        directives.register_directive(name, _SeeAlso)


_register()


def read_rst(text: str, source: str = "<doc>") -> tuple[dict[str, Any], list[Block], list[str]]:
    """The page's metadata (its leading field list), blocks, and the problems tolerated."""
    doctree = publish_doctree(text, source_path=source, settings_overrides=dict(SETTINGS))
    warnings = _check(doctree, source)
    metadata = _metadata(doctree)
    blocks: list[Block] = []
    title = doctree.next_node(nodes.title)
    titled = title is not None and title.parent is doctree
    if titled:
        blocks.append(Block("heading", _line(title), text=_inline(title), level=1))
    for child in doctree.children:  # untitled (metadata before the title): the first section is the title
        blocks += _blocks(child, level=2 if titled else 1)
    return metadata, blocks, warnings


def _check(doctree: nodes.document, source: str) -> list[str]:
    """Errors docutils found: tolerated ones (Sphinx extensions) as warnings, real ones raised."""
    warnings = []
    for message in doctree.findall(nodes.system_message):
        level, line = message.get("level", 0), message.get("line") or _line(message.parent) or 1
        text = message.children[0].astext() if message.children else message.astext()
        if level < 3:
            if "directive disabled" in text:  # include/raw: switched off for untrusted pages, said so
                warnings.append(f"{source}:{line}: {text}")
            continue
        if TOLERATED.search(text):
            warnings.append(f"{source}:{line}: {text}")
            continue
        raise ProcedureError(f"reStructuredText error: {' '.join(text.split())}", source, int(line))
    return warnings


def _metadata(doctree: nodes.document) -> dict[str, Any]:
    """A field list before anything else (Sphinx's file-wide metadata): ``:id:``, ``:product:``, ``:pages:``."""
    first = next((c for c in doctree.children if not isinstance(c, (nodes.title, nodes.comment, nodes.target))), None)
    if not isinstance(first, (nodes.field_list, nodes.docinfo)):
        return {}
    data: dict[str, Any] = {}
    for item in first.findall(nodes.field):
        name, body = item.children[0].astext().strip(), item.children[1].astext().strip()
        data[name] = [p for p in re.split(r"[,\s]+", body) if p] if name == "pages" else body
    first["classes"].append("metadata")
    return data


def _line(node: nodes.Node | None) -> int:
    """The node's line, else its first descendant's (docutils leaves many container lines unset)."""
    while node is not None:
        line = getattr(node, "line", None)
        if line:
            return int(line)
        children = getattr(node, "children", [])
        node = children[0] if children else None
    return 0


def _inline(node: nodes.Node) -> str:
    return tidy(mark_quoted_labels(_inline_raw(node)))


def _inline_raw(node: nodes.Node) -> str:
    out: list[str] = []
    for child in node.children:
        if isinstance(child, nodes.Text):
            out.append(str(child).replace("\n", " "))
        elif isinstance(child, nodes.strong):
            out.append(bold(_inline_raw(child)))
        elif isinstance(child, nodes.emphasis):
            out.append(emphasised(_inline_raw(child), "".join(out)))
        elif isinstance(child, nodes.literal):
            out.append(code_or_path(child.astext()))
        elif isinstance(child, nodes.inline) and "guilabel" in child["classes"]:
            out.append(bold(child.astext()))
        elif isinstance(child, nodes.inline) and "menuselection" in child["classes"]:
            path = menu_path(child.astext())
            out.append(path_markup(path) if path else bold(child.astext()))
        elif isinstance(child, (nodes.image, nodes.footnote_reference, nodes.citation_reference, nodes.target,
                                nodes.system_message)):
            continue
        elif isinstance(child, nodes.Element):  # reference, title_reference, problematic, inline, ...
            out.append(_inline_raw(child))
    return "".join(out)


def _blocks(node: nodes.Node, level: int) -> list[Block]:
    if isinstance(node, SKIPPED) or (isinstance(node, nodes.Element) and "metadata" in node["classes"]):
        return []
    if isinstance(node, nodes.section):
        title = node.next_node(nodes.title)
        out = [Block("heading", _line(title), text=_inline(title), level=level)] if title is not None else []
        for child in node.children:
            if child is not title:
                out += _blocks(child, level + 1)
        return out
    if isinstance(node, nodes.title):
        return []
    if isinstance(node, (nodes.paragraph, nodes.rubric, nodes.line)):
        text = _inline(node)
        return [Block("paragraph", _line(node), text=text)] if text else []
    if isinstance(node, (nodes.bullet_list, nodes.enumerated_list)):
        items = [Item([b for c in item.children for b in _blocks(c, level)], _line(item)) for item in node.children]
        return [Block("list", _line(node), ordered=isinstance(node, nodes.enumerated_list), items=items)]
    if isinstance(node, (nodes.field_list, nodes.definition_list, nodes.option_list)):
        return [Block("list", _line(node), items=[_pair_item(item) for item in node.children])]
    if isinstance(node, nodes.table):
        return [Block("table", _line(node), table=_table(node))]
    if isinstance(node, NOTES):
        return [_note(node, level)]
    if isinstance(node, (nodes.literal_block, nodes.doctest_block)):
        return [Block("code", _line(node), text=node.astext().rstrip())]
    if isinstance(node, nodes.Element):  # block_quote, container, compound, line_block, ...: their content
        return [b for child in node.children for b in _blocks(child, level)]
    return []


def _pair_item(item: nodes.Node) -> Item:
    """A field list's ``:Name: value`` (or a definition list's term and definition) as "**Name**: value"."""
    name_node = item.children[0] if item.children else None
    body = item.children[-1] if len(item.children) > 1 else None
    name = _inline(name_node) if isinstance(name_node, nodes.Element) else ""
    inner = [b for c in (body.children if body is not None else []) for b in _blocks(c, 0)]
    first = inner[0].text if inner and inner[0].kind == "paragraph" else ""
    text = f"{bold(name.replace('**', ''))}: {first}".strip() if name else first
    rest = inner[1:] if first else inner
    return Item([Block("paragraph", _line(item), text=text), *rest], _line(item))


def _table(node: nodes.table) -> Table:
    head = [row for part in node.findall(nodes.thead) for row in part.findall(nodes.row)]
    body = [row for part in node.findall(nodes.tbody) for row in part.findall(nodes.row)]
    cells = [[_cell(entry) for entry in row.findall(nodes.entry)] for row in head + body]
    if not cells:
        return Table([], [], line=_line(node))
    return Table(cells[0], cells[1:], line=_line(node))


def _cell(entry: nodes.Node) -> str:
    return " ".join(b.text for c in entry.children for b in _blocks(c, 0) if b.text)


def _note(node: nodes.Element, level: int) -> Block:
    label = node.tagname if not isinstance(node, nodes.admonition) else ""
    title = node.next_node(nodes.title)
    if isinstance(node, nodes.admonition) and title is not None:
        label = title.astext()
    inner = [b for c in node.children if c is not title for b in _blocks(c, level)]
    body = " ".join(b.text for b in inner if b.text and b.kind != "list")
    for block in inner:
        if block.kind == "list":
            body += " " + " ".join(block.plain_items())
    return Block("note", _line(node), text=note_text(label, body.strip()), label=label.capitalize())
