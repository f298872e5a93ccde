"""Synthesis and the validation gate: the research graph's answer-making nodes.

`synthesize_node` drafts the answer the reader sees first — the span of the expected
type from the best-ranked evidence unit (`compose`) — with the cited units behind it;
`verify_node` is DocuChat's gate (grounding, constraints, bounded re-prompts).
"""

from __future__ import annotations

import re
from dataclasses import replace as dc_replace

from langchain_core.runnables import RunnableConfig

from agentcycle.agent.research import skills
from agentcycle.agent.research.answer_type import (
    Expectation,
    asking_part,
    asks_a_quantity,
    expect,
    instructed_part,
    main_clause,
    split_bridge,
    split_pair,
)
from agentcycle.agent.research.classify import either_or, last_sentence_split
from agentcycle.agent.research.compare import compose_comparison
from agentcycle.agent.research.comparison import Comparison, split_comparison
from agentcycle.agent.research.compose import (
    Composition,
    compose,
    compose_bridged,
    compose_pair,
)
from agentcycle.agent.research.described import Resolved, resolve_described
from agentcycle.agent.research.described_value import resolve_described_value
from agentcycle.agent.research.explicit_value import asked_unit
from agentcycle.agent.research.extract import Span, required_product
from agentcycle.agent.research.followed_constant import counting_constant
from agentcycle.agent.research.key_entities import (
    foreign_source,
    missing_entities,
    unknown_names,
    unplaced_functions,
    unstated_constants,
)
from agentcycle.agent.research.mc import score_options
from agentcycle.agent.research.pointed_value import HOP_UNITS, pointed_value, points_at_value
from agentcycle.agent.research.retrieve import anchored_coverage, coverage, support_terms
from agentcycle.agent.research.rewrite import without_document_names
from agentcycle.agent.research.runtime import Update, config_of, tools_of
from agentcycle.agent.research.state import (
    INSUFFICIENT,
    Citation,
    Evidence,
    ResearchConfig,
    ResearchResult,
    ResearchState,
    Step,
)
from agentcycle.agent.research.stated_default import StatedDefault, resolve_default
from agentcycle.agent.research.synthesize import Scored, cite, score_units
from agentcycle.agent.research.text import Vocabulary, normalise
from agentcycle.agent.research.tools import ResearchTools
from agentcycle.agent.research.validate import Constraints, check
from agentcycle.agent.research.value_band import asked_value, band_of

_tools, _config = tools_of, config_of


def pooled_evidence(state: ResearchState, with_failed: bool = False) -> list[Evidence]:
    """The passages of the completed steps (of all steps when none completed); with
    `with_failed`, those of failed steps follow them."""
    steps = state["steps"]
    chosen = [s for s in steps if s.status == "completed"] or steps
    if with_failed:
        chosen += [s for s in steps if s not in chosen]
    ids = list(dict.fromkeys(c for s in chosen for c in s.evidence_ids))
    return [state["evidence"][c] for c in ids if c in state["evidence"]]


def _support(
    state: ResearchState,
    units: list[Scored],
    evidence: list[Evidence],
    tools: ResearchTools,
    first_hop: Evidence | None = None,
) -> float:
    """Simple: one passage must cover the question; multi-hop: the cited passages together,
    with `first_hop` (the passage naming a resolved default, "Google is the default")."""
    # A passage seldom names the document it is in ("the seed architecture document's
    # notes"), though a heading may ("Developer Guide"): the better of the two readings
    return max(
        _support_of(question, state["question_type"], units, evidence, tools, first_hop)
        for question in {state["objective"], without_document_names(state["objective"])}
    )


def _support_of(
    question: str,
    question_type: str,
    units: list[Scored],
    evidence: list[Evidence],
    tools: ResearchTools,
    first_hop: Evidence | None,
) -> float:
    vocabulary = tools.vocabulary()
    terms = support_terms(question, vocabulary)
    asked = set(support_terms(asking_part(main_clause(question)), vocabulary))
    texts = [f"{h.context}\n{h.text}" for h in evidence]
    single = anchored_coverage(terms, asked, texts, vocabulary)
    if question_type == "multi_hop" or first_hop is not None:
        hops = [*([first_hop] if first_hop else []), *(u.evidence for u in units)]
        joined = "\n".join(f"{h.context}\n{h.text}" for h in hops)
        return max(single, coverage(terms, joined, vocabulary))
    return single


def _llm_draft(
    state: ResearchState, evidence: list[Evidence], tools: ResearchTools
) -> tuple[str, list[Citation], bool] | None:
    passages = evidence[:5]
    errors = state.get("gate_errors") or []
    prompt = (
        f"Question: {state['objective']}\n\nEvidence:\n"
        f"{skills.evidence_block([p.text for p in passages])}"
    )
    if errors:
        prompt += "\n\nYour previous answer was rejected: " + "; ".join(errors)
    reply = tools.llm.structured(skills.SYNTHESIZE, prompt, skills.SynthesizedAnswer)
    if reply is None:
        return None
    if reply.insufficient or not reply.sentences:
        return INSUFFICIENT, [], True
    citations: list[Citation] = []
    lines = []
    for sentence in reply.sentences:
        marks = [n for n in sentence.citations if 1 <= n <= len(passages)]
        for n in marks:
            hit = passages[n - 1]
            citations.append(
                Citation(
                    n=n,
                    chunk_id=hit.chunk_id,
                    file=hit.file,
                    heading=hit.heading,
                    sentence=sentence.text,
                )
            )
        lines.append(sentence.text + "".join(f" [{n}]" for n in marks))
    return "\n".join(lines), citations, False


RESOLVED_SEARCH = 5  # chunks read for a question whose default was resolved to a name
RESOLVED_ASKED_SEARCH = 8  # … and for that name with the asking clause alone
ALTERNATIVE_UNITS = 12  # the question's best units read for "completed or failed?"


def chosen_alternative(
    objective: str, alternatives: dict[str, str], evidence: list[Evidence], vocabulary: Vocabulary
) -> str:
    """The alternative of a closed "A or B?" question that the evidence states near the
    question's words (scored as a two-option choice); '' when it states neither."""
    units = score_units(objective, evidence, vocabulary)[:ALTERNATIVE_UNITS]
    scores, reasons = score_options(objective, alternatives, units, vocabulary)
    stated = [k for k in alternatives if reasons[k].startswith("stated")]
    if not stated:
        return ""
    return alternatives[max(stated, key=lambda k: scores[k])]


def _side_evidence(
    state: ResearchState, comparison: Comparison, evidence: list[Evidence]
) -> tuple[list[Evidence], list[Evidence]]:
    """Each side's passages: those its own step retrieved, else all of `evidence`."""

    def of_step(asked: str) -> list[Evidence]:
        ids = [c for s in state["steps"] if s.question == asked for c in s.evidence_ids]
        return [state["evidence"][c] for c in ids if c in state["evidence"]] or evidence

    return of_step(comparison.first), of_step(comparison.second)


def _composition(
    question: str,
    evidence: list[Evidence],
    tools: ResearchTools,
    sentences: int,
    sides: tuple[list[Evidence], list[Evidence]] | None = None,
) -> tuple[Expectation, Composition | None]:
    """The expected answer and the composed answer: each side of a comparison (over
    `sides`), through the bridge for a two-hop question, else from the question's own
    best units."""
    question = instructed_part(question)  # "…? Give the node.": the part it names
    comparison = split_comparison(question)
    if comparison is not None:  # "how many more X does A allow than B"
        compared = compose_comparison(
            comparison,
            sides or (evidence, evidence),
            tools.vocabulary(),
            tools.text_similarities,
            sentences,
            evidence,
        )
        if compared is not None:
            return expect(comparison.first), compared
    banded = _band_composition(question, evidence, tools)
    if banded is not None:  # "which quality category is 0.247?": read off a table of bounds
        return banded
    pointed = _with_pointed_value(question, evidence, tools, sentences)
    if pointed is not None:  # "… reported a value. Which category does that value fall into?"
        return pointed
    followed = _with_followed_constant(question, evidence, tools, sentences)
    if followed is not None:  # "… once its tool budget is exhausted. How many tool calls?"
        return followed
    bridged = split_bridge(question)
    if bridged is not None:
        composed = compose_bridged(
            *bridged, evidence, tools.vocabulary(), tools.text_similarities, sentences
        )
        return expect(bridged[1]), composed
    pair = split_pair(question)
    if pair is not None:  # "Which flag …, and is it on by default?": each part answered
        return expect(pair[0]), compose_pair(
            pair, evidence, tools.vocabulary(), tools.text_similarities, sentences
        )
    expectation = expect(question)
    composed = compose(
        question, evidence, tools.vocabulary(), expectation, tools.text_similarities, sentences
    )
    return expectation, composed


BAND_FIT = 0.9  # how sure a band read off a table of bounds is


def _band_composition(
    question: str, evidence: list[Evidence], tools: ResearchTools, source: Scored | None = None
) -> tuple[Expectation, Composition] | None:
    """The band a value the question writes falls into (`value_band`), citing the row
    whose bound it meets and the unit that reported the value; None when the question
    asks for no band or no table of bounds fits."""
    if asked_value(question) is None:
        return None
    asking = last_sentence_split(question)[1]  # the table's words are the asking sentence's
    searched = [
        *evidence,
        *tools.search_units(question, HOP_UNITS),
        *tools.search_units(asking, HOP_UNITS),
    ]
    read = list({e.chunk_id: e for e in searched}.values())
    band = band_of(question, read)
    if band is None:
        return None
    row = Scored(1.0, band.row, band.evidence, 0)
    span = Span(band.name, BAND_FIT, f"band of the value in column {band.column!r}")
    units = [row] if source is None else [row, Scored(1.0, source.text, source.evidence, 1)]
    return expect(question), Composition(band.name, units, span, [], 1.0)


def _with_pointed_value(
    question: str, evidence: list[Evidence], tools: ResearchTools, sentences: int
) -> tuple[Expectation, Composition | None] | None:
    """The asking sentence answered with the value an earlier one reports written in
    (`pointed_value`), citing the unit that reports it; None when there is no such
    value or the rewritten question finds no span."""
    if not points_at_value(question):
        return None
    vocabulary, similarities = tools.vocabulary(), tools.text_similarities
    context = last_sentence_split(question)[0]
    read = [*evidence, *tools.search_units(context, HOP_UNITS)]
    read = list({e.chunk_id: e for e in read}.values())
    found = pointed_value(question, read, vocabulary, similarities)
    if found is None:
        return None
    source = found.source.unit if found.source is not None else None
    banded = _band_composition(found.question, read, tools, source)
    if banded is not None:
        return banded
    read = [*read, *tools.search_units(found.question, HOP_UNITS)]
    read = list({e.chunk_id: e for e in read}.values())
    expectation = expect(found.question)
    composed = compose(found.question, read, vocabulary, expectation, similarities, sentences)
    if composed is None or composed.span is None or composed.shape_missing:
        return None
    if found.source is not None and all(u.text != found.source.unit.text for u in composed.units):
        composed = dc_replace(
            composed, units=[*composed.units[: max(1, sentences - 1)], found.source.unit]
        )
    return expectation, composed


CONSTANT_LEADS = 3  # the question's best units read for a constant that counts the asked noun


def _with_followed_constant(
    question: str, evidence: list[Evidence], tools: ResearchTools, sentences: int
) -> tuple[Expectation, Composition] | None:
    """A count told by a constant a passage names for it (`counting_constant`): the
    value the corpus sets the constant to, citing where it is set and the passage that
    names it; None when the question counts nothing, no leading passage names such a
    constant, or nothing sets it to a number."""
    expectation = expect(question)
    if expectation.kind != "number" or not asked_unit(question):
        return None  # a count of nothing named: no constant to follow, no units to score
    vocabulary, similarities = tools.vocabulary(), tools.text_similarities
    leads = score_units(question, evidence, vocabulary)[:CONSTANT_LEADS]
    constant = counting_constant(question, [u.text for u in leads])
    if constant is None:
        return None
    read = [*evidence, *tools.search_units(constant, HOP_UNITS)]
    read = list({e.chunk_id: e for e in read}.values())
    asked = f"What is the value of {constant}?"
    composed = compose(asked, read, vocabulary, expect(asked), similarities, 1)
    if composed is None or composed.span is None or not any(
        c.isdigit() for c in composed.span.text
    ):
        return None
    namer = next(u for u in leads if constant in u.text)
    units = [*composed.units[:1], namer]
    return expectation, dc_replace(composed, units=units, cited=units)


def too_little_support(support: float, confidence: float, cfg: ResearchConfig) -> bool:
    """Whether the best passage covers too little of the question to answer from it. A
    question told in other words than its passage covers less of it, so weaker support
    is enough when the passages are clearly on topic (high mean similarity)."""
    on_topic = support >= cfg.min_support_on_topic and confidence >= cfg.on_topic_confidence
    return support < cfg.min_support and not on_topic


def off_topic(support: float, confidence: float, cfg: ResearchConfig) -> bool:
    """Whether the passages read are too far from the question to answer from: their
    mean similarity is below the floor, and no passage covers most of the question
    (one that does is on topic, told in other words than the question's)."""
    return confidence < cfg.min_confidence and support < cfg.covered_despite_confidence


def _units(composed: Composition | None) -> list[Scored]:
    return composed.units if composed else []


def _answers(composed: Composition | None) -> bool:
    """Whether a composition offers an answer the gate could accept: a span of the asked
    shape from evidence that names the asked focus."""
    return (
        composed is not None
        and composed.span is not None
        and not composed.focus_missing
        and not composed.shape_missing
    )


def synthesize_node(state: ResearchState, config: RunnableConfig) -> Update:
    """Draft the answer: the direct answer, then extractive evidence with [n] citations
    (or, with an LLM, its generated sentences, checked the same way by the gate)."""
    tools, cfg = _tools(config), _config(state)
    evidence = pooled_evidence(state)
    question, trace = state["objective"], []
    # "the default provider" is the one a passage says it is; "the program the agent
    # uses as its probe" the one a passage names for that description
    comparison = split_comparison(question)
    sides = _side_evidence(state, comparison, evidence) if comparison else None
    resolved = None  # a comparison's sides name their own things
    if comparison is None:
        resolved = (
            resolve_default(question, evidence, tools.default_statements())
            or resolve_described(question, evidence, tools)
            or resolve_described_value(question, evidence, tools)
        )
    if resolved is not None:
        question = resolved.question
        # The name is a new handle ("google" heads a column of the model table): the
        # chunks whose units best match the resolved question are read too.
        # The name with the asking clause alone is searched too: the setting's story
        # ("if I leave the Provider setting at its default") matches passages about
        # settings, not the table that holds what is asked.
        asked = f"{resolved.name} {asking_part(main_clause(question))}"
        found = [
            resolved.evidence,
            *tools.search_units(question, RESOLVED_SEARCH),
            *tools.search_units(asked, RESOLVED_ASKED_SEARCH),
        ]
        seen = {e.chunk_id for e in evidence}
        read = [e for e in found if e.chunk_id not in seen]
        evidence = [*evidence, *dict((e.chunk_id, e) for e in read).values()]
        what = "default named" if isinstance(resolved, StatedDefault) else "thing described"
        trace.append(f"synthesize: the {what} is {resolved.name!r}")
    if isinstance(resolved, Resolved) and resolved.is_answer:
        # "What is the name of the class that …": the name the description resolved to
        expectation = expect(state["objective"])
        span = Span(resolved.name, 1.0, "the thing described")
        composed = Composition(resolved.name, list(resolved.units), span, [], 1.0)
    else:
        expectation, composed = _composition(
            question, evidence, tools, cfg.answer_sentences, sides
        )
    first_hop = resolved.evidence if resolved else None
    support = _support(state, _units(composed), evidence, tools, first_hop)
    if composed is not None and composed.compared:
        # each side was asked on its own: the whole question's words are split between
        # two passages, so each side's step is judged by how well it covers its own
        support = max(support, min(s.support for s in state["steps"][:2]))
    if resolved is None and not (_answers(composed) and support >= cfg.min_support):
        # A step judged failed may still hold the answer's passage (the bridge's row in
        # another file's table covers few of the question's words): read its passages
        # too, but only when the completed steps' passages do not answer.
        widened = pooled_evidence(state, with_failed=True)
        if len(widened) > len(evidence):
            retry = _composition(question, widened, tools, cfg.answer_sentences)
            retry_support = _support(state, _units(retry[1]), widened, tools)
            if _answers(retry[1]) and retry_support >= cfg.min_support:
                evidence, (expectation, composed), support = widened, retry, retry_support
                trace.append("synthesize: answered from the passages of failed steps too")
    units = _units(composed)
    completed = [s for s in state["steps"] if s.status == "completed"]
    confidence = sum(s.confidence for s in completed or state["steps"]) / max(
        1, len(completed or state["steps"])
    )
    reasons = []
    if not completed and support < cfg.min_support_uncompleted:
        reasons.append(f"no step completed and support {support:.2f}")
    if too_little_support(support, confidence, cfg):
        reasons.append(f"support {support:.2f} < {cfg.min_support}")
    if off_topic(support, confidence, cfg):
        reasons.append(f"confidence {confidence:.2f} < {cfg.min_confidence}")
    if not units:
        reasons.append("no evidence unit")
    if composed and composed.focus_missing and cfg.refuse_missing_focus:
        reasons.append(f"evidence never names {composed.focus_missing}")
    if composed and composed.shape_missing:
        asked = repr(expectation.head) if expectation.head else "person"  # "who …"
        reasons.append(f"no span of the shape a {asked} has")
    if composed and composed.span is None and asks_a_quantity(question):
        reasons.append("no number of the asked kind in the best evidence")
    product = required_product(question)
    if composed and composed.span is None and product:
        reasons.append(f"no {product} version in the best evidence")
    if composed and composed.unbound_setting:
        reasons.append(f"no passage states the asked value of {composed.unbound_setting}")
    if composed and composed.given_for_others:
        reasons.append("the evidence gives what is asked only for other names or items")
    unknown = unknown_names(state["objective"], tools.vocabulary())
    if unknown:
        reasons.append(f"the corpus never names {unknown}")
    unnamed = missing_entities(
        state["objective"], [u.evidence for u in units], evidence, tools.vocabulary()
    )
    if unnamed:
        reasons.append(f"the cited passages never name {unnamed}")
    # the answer comes from its lead passage; a comparison's from both sides' passages
    answered_from = units if comparison is not None else units[:1]
    foreign = foreign_source(state["objective"], [u.evidence for u in answered_from], evidence)
    if foreign:
        reasons.append(f"the question names {foreign}, which the answer does not come from")
    unstated = unstated_constants(state["objective"], [u.text for u in units[:1]])
    if unstated:
        reasons.append(f"no cited sentence states {unstated}")
    lead = units[0] if units else None
    unplaced = unplaced_functions(state["objective"], lead.evidence, lead.text) if lead else []
    if unplaced:
        reasons.append(f"the answering passage never names {unplaced}")
    insufficient = bool(reasons)
    verbatim = True
    direct = ""
    if insufficient:
        answer, citations = INSUFFICIENT, []
    else:
        answer, citations = cite(composed.citable() if composed else units)
        direct = composed.direct if composed else ""
        if Constraints(**state["constraints"]).requires_quote:
            answer = "\n".join(f"“{c.sentence}” [{c.n}]" for c in citations)
        if tools.llm is not None and tools.llm.enabled and not state.get("gate_fallback"):
            drafted = _llm_draft(state, evidence, tools)
            if drafted is not None:
                answer, citations, insufficient = drafted
                first = answer.splitlines()[0] if answer and not insufficient else ""
                direct = re.sub(r"\s*\[\d+\]", "", first)
                verbatim = False
    alternatives = either_or(state["objective"])
    if alternatives and not insufficient:
        chosen = chosen_alternative(state["objective"], alternatives, evidence, tools.vocabulary())
        direct = chosen or direct
    draft = ResearchResult(
        question=state["question"],
        answer=answer,
        direct=direct,
        answer_type=expectation.kind,
        citations=citations,
        confidence=confidence,
        insufficient=insufficient,
        question_type=state["question_type"],
    )
    how = composed.span.how if composed and composed.span else "no span: best unit shown"
    # chunks read here (a resolved default's searches) join the pool the gate checks
    # citations against: a sentence cited from them is grounded
    read = [*evidence, *(u.evidence for u in _units(composed))]  # + what composing searched
    pooled = {**state["evidence"], **{e.chunk_id: e for e in read}}
    return {
        "evidence": pooled,
        "draft": draft,
        "verbatim": verbatim,
        "trace": [
            *trace,
            f"synthesize: expects {expectation.kind} (focus {expectation.focus}); {how}; "
            f"{len(citations)} citations, support {support:.3f}, confidence {confidence:.3f}"
            f"{', INSUFFICIENT: ' + '; '.join(reasons) if insufficient else ''}"
            f"{f' (best candidate {composed.direct[:80]!r})' if insufficient and composed else ''}",
        ],
    }


# --------------------------------------------------------------------------- 6 verify


def verify_node(state: ResearchState, config: RunnableConfig) -> Update:
    """The validation gate: strip ungrounded citations, re-prompt on unmet constraints."""
    cfg = _config(state)
    draft = state["draft"]
    constraints = Constraints(**state["constraints"])
    counters = state["counters"].model_copy()
    report = check(
        draft.citations,
        state["evidence"],
        constraints,
        counters.retrieval_calls,
        draft.insufficient,
        draft.answer,
        verbatim=state.get("verbatim", True),
    )
    counters.citations_stripped += report.stripped
    trace = [f"gate: {'ok' if report.ok else '; '.join(report.errors)}"]
    update: Update = {"counters": counters, "gate_errors": report.errors, "trace": trace}
    if report.ok:
        return update
    searches_short = any(e.startswith("MIN_SEARCHES") for e in report.errors)
    rounds = len(state["steps"])
    if searches_short and rounds < cfg.max_tool_calls:
        step = Step(step_id=rounds + 1, question=state["objective"])
        update["steps"] = [*state["steps"], step]
        update["route"] = "execute"
        return update
    if counters.reprompts < cfg.max_reprompts and not searches_short:
        counters.reprompts += 1
        update["route"] = "synthesize"
        update["gate_fallback"] = counters.reprompts >= cfg.max_reprompts
        return update
    # Out of re-prompts: keep only what is grounded.
    kept = {c.sentence for c in report.citations}
    lines = [
        line
        for line in draft.answer.splitlines()
        if any(normalise(k) in normalise(line) for k in kept)
    ]
    if not lines:
        fixed = draft.model_copy(
            update={"answer": INSUFFICIENT, "citations": [], "insufficient": True}
        )
    else:
        fixed = draft.model_copy(update={"answer": "\n".join(lines), "citations": report.citations})
    update["draft"] = fixed
    # Done with this draft: a route left over from an earlier re-prompt must not send
    # it round again (that loop ran into LangGraph's recursion limit, issue #20).
    update["route"] = ""
    update["trace"] = [*trace, "gate: kept the grounded part after the last re-prompt"]
    return update


def after_verify(state: ResearchState) -> str:
    if state.get("gate_errors") and state.get("route") in ("execute", "synthesize"):
        return state["route"]
    return "mc_select"
