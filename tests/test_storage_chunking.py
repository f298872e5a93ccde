"""Parsing and chunking: offsets point at the text, headings nest, ids are stable."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcycle.storage.chunking import (
    MAX_CHARS,
    OVERLAP_CHARS,
    SkipFile,
    chunk_document,
    chunk_ids,
    chunk_text,
    parse_file,
    parse_html,
    parse_markdown,
)
from agentcycle.storage.search import rrf_fuse

SHARED = Path(__file__).resolve().parents[2] / "shared"
CORPUS = SHARED / "data" / "corpus"


def make_pdf(lines: list[str]) -> bytes:
    """A minimal valid one-page PDF with real text (no PDF writer library needed)."""
    shown = " ".join(f"({line}) Tj 0 -16 Td" for line in lines)
    content = f"BT /F1 12 Tf 72 720 Td {shown} ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> >> >>",
        f"<< /Length {len(content)} >>\nstream\n{content}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n{body}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{o:010d} 00000 n \n" for o in offsets).encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\n".encode()
    out += f"startxref\n{xref}\n%%EOF\n".encode()
    return out


def test_markdown_chunks_point_into_the_file_and_carry_heading_paths() -> None:
    path = CORPUS / "phenix-agent-docs" / "OVERVIEW.md"
    document = parse_file(path)
    chunks = chunk_document(document)
    source = path.read_text(encoding="utf-8")
    assert len(chunks) > 50
    for chunk in chunks:
        assert source[chunk.start : chunk.end] == chunk.text
        assert len(chunk.text) <= MAX_CHARS + OVERLAP_CHARS
        assert chunk.heading.startswith("PHENIX AI Agent V2 - Technical Overview")
    rag = [c for c in chunks if "reranks the 20 candidates" in c.text]
    assert rag and "RAG Pipeline" in rag[0].heading


def test_heading_path_nests_and_pops() -> None:
    text = "# A\n\nintro\n\n## B\n\nunder b\n\n### C\n\nunder c\n\n## D\n\nunder d\n"
    chunks = chunk_document(parse_markdown(text))
    assert [(c.heading, c.text) for c in chunks] == [
        ("A", "intro"),
        ("A > B", "under b"),
        ("A > B > C", "under c"),
        ("A > D", "under d"),
    ]


def test_long_sections_split_with_overlap_at_word_boundaries() -> None:
    sentences = " ".join(f"Sentence number {i} says something useful." for i in range(200))
    chunks = chunk_text(f"# Long\n\n{sentences}\n", "markdown")
    assert len(chunks) > 5
    for before, after in pairwise(chunks):
        assert after.start < before.end, "consecutive chunks of one section overlap"
        assert before.end - after.start <= OVERLAP_CHARS
        assert after.text[0].isalnum()


def test_editing_one_paragraph_changes_only_nearby_chunk_ids() -> None:
    text = (CORPUS / "seeds" / "docuchat-agent-mode.md").read_text(encoding="utf-8")
    old_chunks = chunk_document(parse_markdown(text))
    target = old_chunks[len(old_chunks) // 2]
    edited = text.replace(target.text, target.text + " An edited sentence.", 1)
    new_chunks = chunk_document(parse_markdown(edited))
    old_ids = set(chunk_ids("f.md", old_chunks))
    new_ids = set(chunk_ids("f.md", new_chunks))
    assert 1 <= len(new_ids - old_ids) <= 2
    assert len(old_ids & new_ids) >= len(old_ids) - 2
    assert chunk_ids("f.md", old_chunks) == chunk_ids("f.md", chunk_document(parse_markdown(text)))


def test_html_headings_and_blocks() -> None:
    html = """<html><head><title>t</title><style>p{}</style></head><body>
      <h1>Guide</h1><p>First <b>para</b>.</p><script>var x;</script>
      <h2>Install</h2><ul><li><p>step one</p></li><li>step two</li></ul>
      <pre>code  line\n  two</pre></body></html>"""
    document = parse_html(html)
    chunks = chunk_document(document)
    assert all(document.text[c.start : c.end] == c.text for c in chunks)
    assert chunks[0].heading == "Guide" and "First para ." in chunks[0].text
    assert chunks[-1].heading == "Guide > Install"
    assert "step one" in chunks[-1].text and "code  line\n  two" in chunks[-1].text
    assert "var x" not in document.text


def test_pdf_text_is_extracted_per_page(tmp_path: Path) -> None:
    path = tmp_path / "paper.pdf"
    path.write_bytes(make_pdf(["Hybrid search fuses vector and text ranks.", "Second line."]))
    chunks = chunk_document(parse_file(path))
    assert chunks[0].heading == "page 1"
    assert "Hybrid search fuses vector and text ranks." in chunks[0].text


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("empty.md", b"", "empty file"),
        ("blank.txt", b"  \n\n ", "empty file"),
        ("nul.txt", b"abc\x00\x01\x02" * 100, "binary content"),
        ("broken.pdf", b"%PDF-1.4\nnot really a pdf", "unreadable PDF"),
        ("image.png", b"\x89PNG\r\n\x1a\n", "unsupported file type"),
    ],
)
def test_malformed_files_raise_skipfile_with_a_reason(
    tmp_path: Path, name: str, data: bytes, reason: str
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(SkipFile, match=reason):
        parse_file(path)


_paragraph = st.text(alphabet=st.sampled_from("abcdefgh ijk.\n"), min_size=1, max_size=400)
_section = st.tuples(
    st.integers(1, 3), st.text("XYZ", min_size=1, max_size=5), st.lists(_paragraph, max_size=5)
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_section, max_size=6), st.integers(200, 800), st.integers(0, 150))
def test_chunks_cover_every_block_in_order(sections, max_chars, overlap) -> None:
    text = "".join(
        f"{'#' * depth} {title}\n\n" + "".join(f"{p}\n\n" for p in paragraphs)
        for depth, title, paragraphs in sections
    )
    document = parse_markdown(text)
    chunks = chunk_document(document, max_chars=max_chars, overlap=overlap)
    covered = set()
    for chunk in chunks:
        assert text[chunk.start : chunk.end] == chunk.text
        assert chunk.text == chunk.text.strip()
        assert len(chunk.text) <= max_chars + overlap
        covered.update(i for i in range(chunk.start, chunk.end) if not text[i].isspace())
    for block in document.blocks:
        assert all(i in covered for i in range(block.start, block.end) if not text[i].isspace())
    assert [c.start for c in chunks] == sorted(c.start for c in chunks)


@given(st.lists(st.lists(st.sampled_from("abcdefghij"), unique=True, max_size=10), max_size=4))
def test_rrf_rewards_agreement(rankings) -> None:
    fused = dict(rrf_fuse(rankings))
    assert set(fused) == {key for ranking in rankings for key in ranking}
    for key, score in fused.items():
        expected = sum(1 / (60 + r.index(key) + 1) for r in rankings if key in r)
        assert score == pytest.approx(expected)
    ordered = [score for _, score in rrf_fuse(rankings)]
    assert ordered == sorted(ordered, reverse=True)
