"""HTML pages saved from a documentation site into blocks, parsed by BeautifulSoup (html.parser).

A saved page carries the site around the topic: navigation, breadcrumbs, a table of contents,
feedback widgets, scripts. Only the topic is read: ``<main>``/``<article>``/``[role=main]`` (or the
Sphinx/DITA body) when the page has one, without ``nav``/``header``/``footer``/``aside`` and
permalink anchors. DITA's ``uicontrol``/``wintitle``/``menucascade`` and Sphinx's ``guilabel``/
``menuselection`` classes are UI labels and paths; ``<strong>``/``<b>`` labels; ``<em>``/``<i>``
labels when they read as one; ``<code>`` a path when it is one. Metadata comes from
``<meta name="id|product|release|pages" content="...">``.

html.parser forgives what browsers forgive, so structure is checked first: an end tag that closes
nothing, or a list, table or section still open at the end of the file (a page saved half-way),
raises :class:`ProcedureError` with the line.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from typing import Any

from bs4 import BeautifulSoup, NavigableString, Tag
from bs4.element import Comment, Doctype, ProcessingInstruction

from consoleagent.documents.blocks import Block, Item, note_text
from consoleagent.documents.labels import bold, code_or_path, emphasised, mark_quoted_labels, menu_path, path_markup, tidy
from consoleagent.documents.model import ProcedureError, Table

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track", "wbr"}
# Elements whose end tag HTML lets an author leave out: not closing them is not an error.
OPTIONAL_END = {"li", "p", "td", "th", "tr", "thead", "tbody", "tfoot", "dt", "dd", "option", "colgroup", "caption",
                "html", "head", "body", "rt", "rp", "optgroup"}
# Block containers a truncated page leaves open: their content would silently vanish or merge.
MUST_CLOSE = {"ol", "ul", "table", "div", "section", "article", "main", "pre", "blockquote", "dl", "aside", "nav"}
DROPPED = {"script", "style", "noscript", "nav", "header", "footer", "aside", "form", "button", "svg", "template",
           "iframe", "object", "canvas", "select", "textarea"}
DROPPED_CLASSES = re.compile(r"\b(?:headerlink|breadcrumbs?|sidebar|toc|feedback|related|sphinxsidebar|footer|"
                             r"navigation|nav|copy-?button|skip-link|prev-next|pagination)\b", re.I)
# "Stop an instance - Elastic Compute Service - Documentation", "How do I ...? – Help Center": the page's own
# title is the first part; what follows the separator names the site
SITE_SUFFIX = re.compile(r"\s+[-–—|]\s+.*$")
LABEL_CLASSES = re.compile(r"\b(?:uicontrol|guilabel|wintitle|gui-label|ui-label|ui-control|menuchoice)\b", re.I)
PATH_CLASSES = re.compile(r"\b(?:menucascade|menuselection)\b", re.I)
NOTE_CLASSES = re.compile(r"\b(?:note|admonition|warning|tip|important|caution|danger|attention|notice|callout|alert)\b",
                          re.I)
BLOCKS = {"h1", "h2", "h3", "h4", "h5", "h6", "ol", "ul", "div", "table", "p", "section", "dl", "pre", "blockquote",
          "article", "aside", "figure", "hr"}
HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}


class _Structure(HTMLParser):
    """Tracks open elements to find the structural mistakes html.parser would silently repair."""

    def __init__(self, source: str) -> None:
        super().__init__(convert_charrefs=True)
        self.source = source
        self.open: list[tuple[str, int]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in VOID:
            self.open.append((tag, self.getpos()[0]))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        return

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        for index in range(len(self.open) - 1, -1, -1):
            if self.open[index][0] == tag:
                unclosed = [(t, line) for t, line in self.open[index + 1:] if t in MUST_CLOSE]
                if unclosed:
                    name, line = unclosed[-1]
                    raise ProcedureError(f"HTML: <{name}> opened at line {line} is closed by </{tag}> before its own "
                                         f"end tag", self.source, self.getpos()[0])
                del self.open[index:]
                return
        if tag in MUST_CLOSE or tag in HEADINGS:
            raise ProcedureError(f"HTML: </{tag}> closes nothing (no <{tag}> is open)", self.source, self.getpos()[0])

    def finish(self) -> None:
        self.close()
        unclosed = [(tag, line) for tag, line in self.open if tag in MUST_CLOSE]
        if unclosed:
            tag, line = unclosed[-1]  # the innermost: where the page was cut
            raise ProcedureError(f"HTML: <{tag}> is never closed (the page ends inside it; saved incompletely?)",
                                 self.source, line)


def check_structure(text: str, source: str) -> None:
    checker = _Structure(source)
    checker.feed(text)
    checker.finish()


def read_html(text: str, source: str = "<doc>") -> tuple[dict[str, Any], list[Block], list[str]]:
    """The page's metadata (meta tags), its topic's blocks, and tolerated problems (none for HTML)."""
    if not re.search(r"<\s*[a-zA-Z]", text):
        raise ProcedureError("not an HTML page: no tags", source, 1)
    check_structure(text, source)
    soup = BeautifulSoup(text, "html.parser")
    metadata = _metadata(soup)
    root = _topic(soup)
    heading = root.find("h1")  # an article's title may sit in its <header>, which is dropped below
    heading_text = (heading.get_text(" ", strip=True), heading.sourceline or 1) if heading is not None else None
    for tag in root.find_all(True):
        if tag.decomposed:
            continue
        if tag.name in DROPPED or DROPPED_CLASSES.search(" ".join(tag.get("class") or [])):
            tag.decompose()
    blocks = _blocks(root)
    if not any(b.kind == "heading" and b.level == 1 for b in blocks):
        title = soup.find("title")
        if heading_text and heading_text[0]:
            blocks.insert(0, Block("heading", heading_text[1], text=heading_text[0], level=1))
        elif title is not None and title.get_text(strip=True):
            text = SITE_SUFFIX.sub("", title.get_text(" ", strip=True)) or title.get_text(" ", strip=True)
            blocks.insert(0, Block("heading", title.sourceline or 1, text=text, level=1))
    return metadata, blocks, []


def _metadata(soup: BeautifulSoup) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for meta in soup.find_all("meta"):
        name, content = str(meta.get("name") or "").strip(), meta.get("content")
        if name in ("id", "product", "release", "pages") and content is not None:
            value = str(content).strip()
            data[name] = [p for p in re.split(r"[,\s]+", value) if p] if name == "pages" else value
    return data


def _topic(soup: BeautifulSoup) -> Tag:
    """The element holding the topic itself, not the site around it."""
    for selector in ("main", "article", "[role=main]", "div.body", "div.document", "div#content", "div.content",
                     "body"):
        found = soup.select_one(selector)
        if found is not None:
            return found
    return soup


def _classes(tag: Tag) -> str:
    return " ".join(tag.get("class") or [])


def _line(tag: Tag) -> int:
    return int(tag.sourceline or 0)


def inline(tag: Tag) -> str:
    return tidy(mark_quoted_labels(_inline(tag)))


def _inline(tag: Tag) -> str:
    return _inline_nodes(list(tag.children))


def _inline_nodes(children: list[Any]) -> str:
    out: list[str] = []
    for child in children:
        if isinstance(child, (Comment, Doctype, ProcessingInstruction)):
            continue
        if isinstance(child, NavigableString):
            out.append(re.sub(r"\s+", " ", str(child)))
            continue
        if not isinstance(child, Tag):
            continue
        name, classes = child.name, _classes(child)
        if name == "br":
            out.append(" ")
        elif PATH_CLASSES.search(classes):
            labels = [_plain(t) for t in child.find_all(class_=LABEL_CLASSES)] or menu_path(_plain(child)) or []
            out.append(path_markup([label for label in labels if label]) if len(labels) > 1 else bold(_plain(child)))
        elif LABEL_CLASSES.search(classes) or name in ("strong", "b", "kbd"):
            out.append(bold(_plain(child)))
        elif name in ("em", "i", "cite", "dfn"):
            out.append(emphasised(_inline(child), "".join(out)))
        elif name in ("code", "tt", "samp", "var"):
            out.append(code_or_path(_plain(child)))
        elif name in ("img", "sup", "script", "style"):
            continue
        else:  # a, span, small, ...: their text
            out.append(_inline(child))
    return "".join(out)


def _plain(tag: Tag) -> str:
    return " ".join(tag.get_text(" ").split())


def _is_inline(node: Any) -> bool:
    if isinstance(node, NavigableString):
        return not isinstance(node, (Comment, Doctype, ProcessingInstruction))
    return isinstance(node, Tag) and node.name in {"a", "span", "strong", "b", "em", "i", "code", "kbd", "samp", "tt",
                                                    "var", "br", "img", "sup", "sub", "small", "cite", "dfn", "abbr",
                                                    "mark", "u", "s", "q", "time", "label", "font"}


def _blocks(tag: Tag) -> list[Block]:
    """Blocks of a container; loose inline content (text directly in a ``<li>`` or ``<div>``) is a paragraph."""
    out: list[Block] = []
    run: list[Any] = []

    def flush() -> None:
        if run:
            line = next((n.sourceline for n in run if isinstance(n, Tag) and n.sourceline), None) or _line(tag)
            text = tidy(mark_quoted_labels(_inline_nodes(run)))
            if text:
                out.append(Block("paragraph", line, text=text))
            run.clear()

    for child in list(tag.children):
        if _is_inline(child):
            run.append(child)
            continue
        flush()
        if isinstance(child, Tag):
            out += _block(child)
    flush()
    return out


def _block(tag: Tag) -> list[Block]:
    name, classes = tag.name, _classes(tag)
    if name in HEADINGS:
        text = inline(tag)
        return [Block("heading", _line(tag), text=text, level=HEADINGS[name])] if text else []
    if name == "p":
        if NOTE_CLASSES.search(classes):
            return [_note(tag)]
        if any(isinstance(c, Tag) and c.name in BLOCKS for c in tag.children):
            return _blocks(tag)  # <p> never closed: html.parser kept what follows inside it
        text = inline(tag)
        return [Block("paragraph", _line(tag), text=text)] if text else []
    if name in ("ol", "ul"):
        items = [Item(_blocks(li), _line(li)) for li in _list_items(tag)]
        return [Block("list", _line(tag), ordered=name == "ol", items=items)]
    if name == "dl":
        return [_definitions(tag)]
    if name == "table":
        return [Block("table", _line(tag), table=_table(tag))]
    if name == "pre":
        return [Block("code", _line(tag), text=tag.get_text().rstrip())]
    if name == "blockquote" or (name in ("div", "section", "aside") and NOTE_CLASSES.search(classes)):
        return [_note(tag)]
    if name in ("hr", "img", "figure", "picture", "video", "audio", "map"):
        return []
    return _blocks(tag)  # div, section, article, span-as-block, ...: their content


def _list_items(tag: Tag) -> list[Tag]:
    """The items of a list. An ``<li>`` left unclosed (legal HTML) holds the next one: it is a sibling."""
    items: list[Tag] = []
    for li in tag.find_all("li", recursive=False):
        items += _split_item(li)
    return items


def _split_item(li: Tag) -> list[Tag]:
    nested = [child for child in li.children if isinstance(child, Tag) and child.name == "li"]
    for child in nested:
        child.extract()
    return [li] + [item for child in nested for item in _split_item(child)]


def _definitions(tag: Tag) -> Block:
    items: list[Item] = []
    for term in tag.find_all("dt", recursive=False):
        definition = term.find_next_sibling("dd")
        body = _blocks(definition) if definition is not None else []
        first = body[0].text if body and body[0].kind == "paragraph" else ""
        label = _plain(term)
        items.append(Item([Block("paragraph", _line(term), text=f"{bold(label)}: {first}".strip()), *body[1:]],
                          _line(term)))
    return Block("list", _line(tag), items=items)


def _table(tag: Tag) -> Table:
    rows = []
    for tr in tag.find_all("tr"):
        if tr.find_parent("table") is not tag:
            continue
        rows.append([" ".join(b.text for b in _blocks(cell) if b.text) for cell in tr.find_all(["th", "td"], recursive=False)])
    rows = [row for row in rows if row]
    return Table(rows[0], rows[1:], line=_line(tag)) if rows else Table([], [], line=_line(tag))


def _note(tag: Tag) -> Block:
    """A note, warning or tip; its title (``.admonition-title``, ``.note-title``, a leading "Note:") is its label."""
    classes = _classes(tag)
    title = tag.find(class_=re.compile(r"(?:admonition|note|callout)-?title|title", re.I))
    label = _plain(title) if title is not None else ""
    if title is not None:
        title.decompose()
    if not label:
        kind = NOTE_CLASSES.search(classes)
        label = kind.group(0) if kind and kind.group(0).casefold() not in ("admonition", "callout", "alert") else ""
    body = " ".join(b.text if b.kind != "list" else " ".join(b.plain_items()) for b in _blocks(tag) if b.text or b.items)
    return Block("note", _line(tag), text=note_text(label, body), label=label.capitalize())
