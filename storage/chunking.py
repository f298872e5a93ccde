"""Parse Markdown, plain text, HTML and PDF into blocks, then pack blocks into chunks.

Parsing and chunking are separate so every format shares one chunker. A parser returns
the document's text plus its blocks (paragraphs, lists, code, tables) with the heading
path each sits under; the chunker packs consecutive blocks of one section up to a size
the embedding model can see whole (all-MiniLM-L6-v2 truncates at 256 word pieces,
about 1,000 characters), splits oversized blocks at line or sentence breaks, and lets
each chunk start with the tail of the previous one in the same section (overlap) so
an answer cut by a boundary is still found.

Offsets are character offsets into the document text: the file itself for Markdown and
plain text, the extracted text for HTML and PDF. A chunk's id depends only on its file,
its content and how often that content already occurred in the file, so editing one
paragraph changes the ids of the chunks around it and nothing else.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

MAX_CHARS = 1000
OVERLAP_CHARS = 150
HEADING_SEPARATOR = " > "

TEXT_SUFFIXES = {".md": "markdown", ".markdown": "markdown", ".txt": "text", ".text": "text",
                 ".log": "text", ".html": "html", ".htm": "html", ".pdf": "pdf"}


class SkipFile(Exception):
    """This file cannot be ingested; the message says why (shown next to the file name)."""


@dataclass(frozen=True)
class Block:
    start: int
    end: int
    headings: tuple[str, ...] = ()


@dataclass(frozen=True)
class ParsedDocument:
    text: str
    blocks: list[Block]


@dataclass(frozen=True)
class Chunk:
    ordinal: int
    start: int
    end: int
    heading: str
    text: str

    @property
    def embed_text(self) -> str:
        """What the model sees: the heading path gives a bare paragraph its topic."""
        return f"{self.heading}\n\n{self.text}" if self.heading else self.text

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.embed_text.encode("utf-8")).hexdigest()


# --------------------------------------------------------------------------- reading

def file_kind(path: Path) -> str | None:
    """The parser name for a file, None when the type is not supported."""
    return TEXT_SUFFIXES.get(path.suffix.lower())


def decode_text(data: bytes) -> str:
    """Bytes of a text file as str; refuses binary content instead of indexing garbage."""
    if not data.strip():
        raise SkipFile("empty file")
    if b"\x00" in data[:8192]:
        raise SkipFile("binary content, not text")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        if text.count("\ufffd") > max(8, len(text) // 100):
            raise SkipFile("not UTF-8 text (binary or unknown encoding)") from None
        return text


def parse_file(path: Path, data: bytes | None = None) -> ParsedDocument:
    """Parse one file by its suffix; raises SkipFile with a one-line reason."""
    kind = file_kind(path)
    if kind is None:
        raise SkipFile(f"unsupported file type {path.suffix or '(no suffix)'!r}")
    data = path.read_bytes() if data is None else data
    document = parse_pdf(data) if kind == "pdf" else PARSERS[kind](decode_text(data))
    if not document.blocks:
        raise SkipFile("no text found")
    return document


# --------------------------------------------------------------------------- parsers

def _line_starts(text: str) -> list[int]:
    starts = [0]
    starts.extend(m.end() for m in re.finditer("\n", text))
    starts.append(len(text))
    return starts


def _trimmed(text: str, start: int, end: int, headings: tuple[str, ...]) -> Block | None:
    """A block without surrounding whitespace; None when nothing is left."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return Block(start, end, headings) if end > start else None


def parse_markdown(text: str) -> ParsedDocument:
    """Top-level Markdown blocks (via markdown-it-py) under their heading path."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    lines = _line_starts(text)
    stack: list[tuple[int, str]] = []
    blocks: list[Block] = []
    for i, token in enumerate(tokens):
        if token.level != 0 or token.map is None or token.nesting == -1:
            continue
        if token.type == "heading_open":
            depth = int(token.tag[1:])
            title = tokens[i + 1].content.strip() if i + 1 < len(tokens) else ""
            stack = [(d, t) for d, t in stack if d < depth] + [(depth, title)]
            continue
        if token.type == "hr":
            continue
        first, last = token.map
        block = _trimmed(text, lines[first], lines[min(last, len(lines) - 1)],
                         tuple(t for _, t in stack))
        if block:
            blocks.append(block)
    return ParsedDocument(text, blocks)


def _paragraph_blocks(text: str, headings: tuple[str, ...] = (), offset: int = 0,
                      end: int | None = None) -> Iterator[Block]:
    end = len(text) if end is None else end
    position = offset
    for match in re.finditer(r"\n[ \t\r\f\v]*\n", text[offset:end]):
        block = _trimmed(text, position, offset + match.start(), headings)
        if block:
            yield block
        position = offset + match.end()
    block = _trimmed(text, position, end, headings)
    if block:
        yield block


def parse_text(text: str) -> ParsedDocument:
    """Plain text and logs: paragraphs separated by blank lines, no headings."""
    return ParsedDocument(text, list(_paragraph_blocks(text)))


_HTML_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_HTML_BLOCKS = ("p", "li", "pre", "blockquote", "table", "dt", "dd", "figcaption",
                "caption", "address")


def parse_html(html: str) -> ParsedDocument:
    """Visible HTML text: headings set the path, block elements become paragraphs."""
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for hidden in soup(["script", "style", "noscript", "template", "head"]):
        hidden.decompose()
    parts: list[str] = []
    blocks: list[Block] = []
    stack: list[tuple[int, str]] = []
    length = 0
    wanted = set(_HTML_HEADINGS + _HTML_BLOCKS)
    for element in soup.find_all(list(wanted)):
        if element.name not in _HTML_HEADINGS and any(
            parent.name in wanted for parent in element.parents
        ):
            continue  # nested inside a block we already took whole
        if element.name == "pre":  # code keeps its spacing
            content = element.get_text().strip("\n")
        else:
            content = re.sub(r"\s+", " ", element.get_text(" ", strip=True)).strip()
        if not content:
            continue
        if element.name in _HTML_HEADINGS:
            depth = int(element.name[1])
            stack = [(d, t) for d, t in stack if d < depth] + [(depth, content)]
        else:
            blocks.append(Block(length, length + len(content), tuple(t for _, t in stack)))
        parts.append(content)
        length += len(content) + 2
    if not blocks:  # no block markup at all: fall back to the visible text
        return parse_text(soup.get_text("\n"))
    return ParsedDocument("\n\n".join(parts), blocks)


def parse_pdf(data: bytes) -> ParsedDocument:
    """Text of each page (pypdf); the heading path is the page number."""
    import io
    import logging

    from pypdf import PdfReader
    from pypdf.errors import PyPdfError

    if not data.strip():
        raise SkipFile("empty file")
    logging.getLogger("pypdf").setLevel(logging.ERROR)  # our SkipFile line says it once
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise SkipFile("encrypted PDF")
        pages = [page.extract_text() or "" for page in reader.pages]
    except SkipFile:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, OSError) as exc:
        raise SkipFile(f"unreadable PDF ({type(exc).__name__}: {exc})") from None
    text = ""
    blocks: list[Block] = []
    for number, page in enumerate(pages, start=1):
        if text:
            text += "\n\n"
        offset = len(text)
        text += page
        blocks.extend(_paragraph_blocks(text, (f"page {number}",), offset, len(text)))
    return ParsedDocument(text, blocks)


PARSERS: dict[str, Callable[[str], ParsedDocument]] = {
    "markdown": parse_markdown,
    "text": parse_text,
    "html": parse_html,
}


# --------------------------------------------------------------------------- chunking

def _cut_point(text: str, start: int, limit: int) -> int:
    """Where to end a piece that must not pass `limit`: a line, sentence or word break."""
    window = text[start:limit]
    for pattern in ("\n", ". ", " "):
        cut = window.rfind(pattern)
        if cut > len(window) // 2:
            return start + cut + len(pattern)
    return limit


def _split_block(text: str, block: Block, max_chars: int) -> Iterator[Block]:
    start = block.start
    while block.end - start > max_chars:
        cut = _cut_point(text, start, start + max_chars)
        piece = _trimmed(text, start, cut, block.headings)
        if piece:
            yield piece
        start = cut
    piece = _trimmed(text, start, block.end, block.headings)
    if piece:
        yield piece


def _overlap_start(text: str, previous_start: int, previous_end: int, overlap: int) -> int:
    """Start of the overlap taken from the previous chunk, at a line or word boundary.

    At most half of the previous chunk is repeated, so a short chunk is never swallowed
    whole by the next one.
    """
    start = max(previous_start + (previous_end - previous_start) // 2, previous_end - overlap)
    window = text[start:previous_end]
    for pattern in ("\n", " "):
        found = window.find(pattern)
        if found != -1:
            return start + found + 1
    return previous_end


def chunk_document(document: ParsedDocument, max_chars: int = MAX_CHARS,
                   overlap: int = OVERLAP_CHARS) -> list[Chunk]:
    """Pack a document's blocks into chunks; never across a heading change."""
    text = document.text
    spans: list[tuple[int, int, tuple[str, ...]]] = []
    current: tuple[int, int, tuple[str, ...]] | None = None
    for block in document.blocks:
        for piece in _split_block(text, block, max_chars):
            same_section = current is not None and current[2] == piece.headings
            if same_section and piece.end - current[0] <= max_chars:
                current = (current[0], piece.end, piece.headings)
                continue
            if current is not None:
                spans.append(current)
            start = piece.start
            if same_section:
                start = min(_overlap_start(text, current[0], current[1], overlap), start)
            current = (start, piece.end, piece.headings)
    if current is not None:
        spans.append(current)
    chunks = []
    for start, end, headings in spans:
        while start < end and text[start].isspace():
            start += 1
        chunks.append(Chunk(len(chunks), start, end, HEADING_SEPARATOR.join(headings),
                            text[start:end]))
    return chunks


def chunk_ids(file_key: str, chunks: list[Chunk]) -> list[str]:
    """Stable ids: the file, the chunk's content hash and its repeat count in the file."""
    seen: dict[str, int] = {}
    ids = []
    for chunk in chunks:
        occurrence = seen.get(chunk.hash, 0)
        seen[chunk.hash] = occurrence + 1
        key = f"{file_key}\0{chunk.hash}\0{occurrence}"
        ids.append(hashlib.sha256(key.encode("utf-8")).hexdigest()[:32])
    return ids


def chunk_text(text: str, kind: str = "text", max_chars: int = MAX_CHARS,
               overlap: int = OVERLAP_CHARS) -> list[Chunk]:
    """Chunk a string already in memory (program logs, session summaries)."""
    if not text.strip():
        return []
    return chunk_document(PARSERS[kind](text), max_chars, overlap)
