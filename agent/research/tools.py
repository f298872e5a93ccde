"""What the research graph needs from the outside world, as one small protocol.

The graph is pure Python (no Prefect, no storage imports): the `tasks` layer hands it
an object with these methods through LangGraph's `configurable`, backed by Prefect
tasks in the `ask` flow and by plain storage calls in tests and benchmarks.
"""

from __future__ import annotations

from typing import Any, Protocol

from agentcycle.agent.research.state import Evidence
from agentcycle.agent.research.stated_default import DefaultStatement
from agentcycle.agent.research.text import Vocabulary


class ResearchTools(Protocol):
    llm: Any  # agentcycle.agent.llm.LLMProvider

    def search(
        self, query: str, k: int, file: str | None = None, heading: str | None = None
    ) -> list[Evidence]:
        """Hybrid search of the corpus, best first (similarity may be left at 0)."""

    def search_many(self, queries: list[str], k: int) -> list[list[Evidence]]:
        """`search` for each query, in order: a step's pooled retrieval in one call, so an
        orchestrated implementation pays for one task run, not one per query."""

    def search_units(self, query: str, k: int) -> list[Evidence]:
        """Chunks holding the best-matching sentences and table rows (BM25 per unit)."""

    def prepare(self, texts: list[str]) -> None:
        """Embed texts about to be used as queries in one batch (a latency hint)."""

    def similarities(self, query: str, chunk_ids: list[str]) -> list[float]:
        """Cosine of the query's embedding to each stored chunk vector."""

    def text_similarities(self, query: str, texts: list[str]) -> list[float]:
        """Cosine of the query's embedding to each text's embedding."""

    def vocabulary(self) -> Vocabulary:
        """Document frequencies over the corpus's chunks."""

    def default_statements(self) -> list[DefaultStatement]:
        """Every "<Name> is the default" the corpus says, with the words around it."""

    def recall(self, question: str, threshold: float) -> dict[str, Any] | None:
        """A remembered answer to a near-identical question, or None."""

    def remember(
        self, question: str, answer: str, citations: list[dict[str, Any]], confidence: float
    ) -> None:
        """Store a good answer for later questions."""
