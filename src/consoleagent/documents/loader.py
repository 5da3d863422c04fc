"""Reading a documentation file of any supported format into a :class:`Document`.

The format comes from the file's suffix (``.md``/``.markdown``, ``.rst``/``.rest``/``.txt`` is not
guessed, ``.html``/``.htm``); text given without a file is Markdown unless ``fmt`` says otherwise.
Metadata (id, product, release, pages) is YAML front matter in Markdown, a leading field list in
reStructuredText (Sphinx's file-wide metadata), ``<meta name=... content=...>`` in HTML.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from consoleagent.documents.blocks import Block
from consoleagent.documents.builder import build_document, first_section_line
from consoleagent.documents.model import Document, Procedure, ProcedureError

Format = Literal["markdown", "rst", "html"]
MAX_CHARS = 5_000_000  # a page of documentation, with room to spare
SUFFIXES: dict[str, Format] = {".md": "markdown", ".markdown": "markdown", ".rst": "rst", ".rest": "rst",
                               ".html": "html", ".htm": "html"}


def format_of(path: str | Path) -> Format:
    suffix = Path(path).suffix.casefold()
    if suffix not in SUFFIXES:
        raise ProcedureError(f"not a documentation file: {suffix or 'no suffix'} (one of {', '.join(SUFFIXES)})",
                             str(path), 1)
    return SUFFIXES[suffix]


def read_blocks(text: str, source: str, fmt: Format) -> tuple[dict[str, Any], list[Block], list[str]]:
    """Metadata, blocks and tolerated problems of a page in one format. Pages are untrusted: one too large or
    nested too deeply to read is an error naming the file, not a crash."""
    if len(text) > MAX_CHARS:
        raise ProcedureError(f"{len(text):,} characters: larger than the {MAX_CHARS:,} a documentation page may have",
                             source, 1)
    try:
        return _read_blocks(text, source, fmt)
    except RecursionError:
        raise ProcedureError(f"nested too deeply to read as {fmt}", source, 1) from None


def _read_blocks(text: str, source: str, fmt: Format) -> tuple[dict[str, Any], list[Block], list[str]]:
    if fmt == "rst":
        from consoleagent.documents.rst import read_rst

        return read_rst(text, source)
    if fmt == "html":
        from consoleagent.documents.html import read_html

        return read_html(text, source)
    from consoleagent.documents.markdown import read_markdown

    metadata, blocks = read_markdown(text, source)
    return metadata, blocks, []


def parse_document(text: str, source: str = "<doc>", fmt: Format | None = None) -> Document:
    """Every procedure of a page (see ``builder``); the format from ``fmt``, else ``source``'s suffix, else Markdown."""
    if fmt is None:
        fmt = SUFFIXES.get(Path(source).suffix.casefold(), "markdown")
    metadata, blocks, warnings = read_blocks(text, source, fmt)
    doc_id = str(metadata.get("id") or Path(source).stem)
    return build_document(blocks, source=source, doc_id=doc_id, front_matter=metadata, fmt=fmt, warnings=warnings)


def parse_procedure(text: str, source: str = "<doc>", fmt: Format | None = None) -> Procedure:
    """The first procedure of a page; raises :class:`ProcedureError` when it has none."""
    document = parse_document(text, source, fmt)
    if not document.procedures:
        _, blocks, _ = read_blocks(text, source, fmt or SUFFIXES.get(Path(source).suffix.casefold(), "markdown"))
        raise ProcedureError(document.skipped or "no procedure", source, first_section_line(blocks))
    return document.procedures[0]


def read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ProcedureError(f"not UTF-8 text ({exc.reason} at byte {exc.start})", str(path), 1) from None
    except OSError as exc:
        raise ProcedureError(f"cannot read: {exc.strerror}", str(path), 1) from None


def load_document(path: str | Path) -> Document:
    path = Path(path)
    return parse_document(read_text(path), source=str(path), fmt=format_of(path))


def load_procedure(path: str | Path) -> Procedure:
    path = Path(path)
    return parse_procedure(read_text(path), source=str(path), fmt=format_of(path))


def read_metadata(path: str | Path) -> dict[str, Any]:
    """A file's metadata alone (front matter, leading field list or meta tags); errors name file and line."""
    path = Path(path)
    metadata, _, _ = read_blocks(read_text(path), str(path), format_of(path))
    return metadata


def document_paths(root: Path, recursive: bool = True) -> list[Path]:
    """Every documentation file under ``root`` (``recursive=False``: in it, not in its subfolders), sorted."""
    found = root.rglob("*") if recursive else root.glob("*")
    return sorted(p for p in found if p.is_file() and p.suffix.casefold() in SUFFIXES)
