"""What a question that compares two facts asks: "how many more reprompts does A allow
than B?" is two questions ("how many reprompts does A allow?", "what is B?") and a
difference; "which threshold is higher: A's or B's?" and "which has the lower cap, A or
B?" two questions and a choice; "how many results does A return, compared with B?" and
"how many does A make, and how many does B?" two questions whose answers are shown side
by side; "is A the same number as B?" and "does A use more calls than B?" two questions
and a yes or no.

Read before planning (each side gets its own retrieval step, often in another
document) and before answering (`compare.compose_comparison`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from agentcycle.agent.research.text import content_terms

Operation = Literal[
    "difference", "ratio", "larger", "smaller", "both", "same", "more than", "less than",
    "common",
]

# the comparative degrees a choosing question may ask for
_DEGREE = r"higher|larger|bigger|greater|lower|smaller|longer|shorter"
_AUX = r"does|do|did|can|will|would"  # the auxiliary of "how many X does A …"
# what sets the two sides off the asking words: "…: A or B", "…, A or B", "… - A or B"
_SIDES_START = r"\s*(?:[:,]|\s[-–—])\s*"
# "which limit is larger, and by how much - A or B?": the choice and the difference
_BY_HOW_MUCH = r"(?P<by>,?\s+and\s+by\s+how\s+much)?"
# "how many more reprompts does A allow than B", "how much longer is A than B"
# the degrees of a difference: "how many *more* …", "how many points *lower* …"
_MORE_OR_LESS = r"(?:more|fewer|less|higher|larger|bigger|greater|longer|lower|smaller|shorter)"
_HOW_MANY_MORE = re.compile(
    rf"\bhow (?:many|much) {_MORE_OR_LESS}\s+(?:(?P<noun>[\w\s-]+?)\s+)?"
    r"(?P<verb>does|do|did|can|will|would|is|are)\s+(?P<first>[^?]+?)\s+than\s+"
    r"(?P<second>[^?]+?)\s*(?:\?|$)",
    re.IGNORECASE,
)
# "how many billion parameters larger is A than B", "how many points lower is A than B":
# the unit of the difference before its degree
_HOW_MANY_UNITS_MORE = re.compile(
    rf"\bhow (?:many|much)\s+(?P<noun>[\w\s-]+?)\s+{_MORE_OR_LESS}\s+"
    rf"(?P<verb>is|are|{_AUX})\s+(?P<first>[^?]+?)\s+than\s+"
    r"(?P<second>[^?]+?)\s*(?:\?|$)",
    re.IGNORECASE,
)
# the verb that ends the first side of "how many seconds longer did A *take* than B":
# the second side does the same ("how many seconds did B take?")
_LAST_WORD = re.compile(r"\s+(?P<word>[a-z]+)$")
# "how many times larger is A than B", "by what factor does A exceed B": a ratio
_TIMES = r"(?:how many times|by (?:what|which|how large a) factor)"
_GREATER = r"(?:more|higher|larger|bigger|greater|longer|looser|wider)"  # "times larger"
_HOW_MANY_TIMES = re.compile(
    rf"\b{_TIMES}\s+(?:{_GREATER}\s+)?"
    r"(?P<verb>is|are|does|do)\s+(?P<first>[^?]+?)(?:\s+(?:exceed|exceeds)|\s+than)\s+"
    r"(?P<second>[^?]+?)\s*(?:\?|$)",
    re.IGNORECASE,
)
# "which threshold is higher: A, or B?", "which is larger, A or B?"
_WHICH_IS = re.compile(
    rf"\bwhich(?:\s+(?P<noun>[\w-]+(?:\s+[\w-]+)?))?\s+is\s+(?P<degree>{_DEGREE}){_BY_HOW_MUCH}"
    rf"{_SIDES_START}"
    r"(?P<first>[^?]+?),?\s+or\s+(?P<second>[^?]+?)\s*(?:\?|$)",
    re.IGNORECASE,
)
# "which has the lower loop-iteration cap, A or B(, and what are the two caps)?"
_WHICH_HAS = re.compile(
    r"\bwhich(?:\s+(?:one|of\s+(?:the\s+)?(?:two|them|these|those)))?\s+(?P<verb>has|uses|allows|"
    rf"sets|gives|keeps|permits|returns|takes|makes)\s+(?:the\s+|a\s+)?(?P<degree>{_DEGREE}|more|"
    rf"fewer)\s+(?P<noun>[^,:?]+?){_BY_HOW_MUCH}{_SIDES_START}"
    r"(?P<first>[^?]+?),?\s+or\s+(?P<second>[^?,;]+?)\s*(?:[,;]\s*and\b[^?]*)?(?:\?|$)",
    re.IGNORECASE,
)
# "which is the higher cut-off: A's relevance threshold, or B's confidence threshold?"
_WHICH_IS_THE = re.compile(
    rf"\bwhich\s+is\s+the\s+(?P<degree>{_DEGREE}|stricter|looser)\s+(?P<noun>[^,:?]+?)"
    rf"{_BY_HOW_MUCH}{_SIDES_START}"
    r"(?P<first>[^?]+?),?\s+or\s+"
    r"(?P<second>[^?,;]+?)\s*(?:\?|$)",
    re.IGNORECASE,
)
# "how many results does A return, compared with B's web_search?"
_COMPARED_WITH = re.compile(
    r"^(?P<ask>.+?)[,;]?\s+(?:(?:as\s+)?compared\s+(?:with|to)|versus|vs\.?|as opposed to)\s+"
    r"(?P<second>[^?]+?)\s*\??\s*$",
    re.IGNORECASE,
)
# "how many queries does A produce, and how many does B produce?"
_AND_HOW_MANY = re.compile(
    rf"^(?P<ask>.*?\bhow many\s+(?P<noun>.+?)\s+(?:in total\s+)?(?P<aux>{_AUX})\s+.+?)[,;]?"
    rf"\s+and\s+how many(?:\s+(?:{_AUX}))?\s+(?P<second>[^?]+?)\s*\??\s*$",
    re.IGNORECASE,
)
# "is DocuChat's cap on reprompts the same number as the count after which …?"
_SAME_AS = re.compile(
    r"^\s*(?:is|are)\s+(?P<first>.+?)\s+(?:the\s+same(?:\s+(?:number|value|count|limit|"
    r"setting))?\s+as|equal\s+to|identical\s+to)\s+(?P<second>[^?]+?)\s*\??\s*$",
    re.IGNORECASE,
)
# "do A and B produce the same number of search queries each time?": how many each does
_BOTH_THE_SAME = re.compile(
    r"^\s*(?:do|did|will|would)\s+(?P<first>.+?)\s+and\s+(?P<second>.+?)\s+(?P<verb>[a-z]+)\s+"
    r"the\s+same\s+(?:number|count|amount)\s+of\s+(?P<noun>[^?]+?)"
    r"(?:\s+(?:each|every|per)\s+\w+)?\s*\??\s*$",
    re.IGNORECASE,
)
# "which vector database do both A and B retrieve their passages from?": what each
# does, and the value they share; the verb (a base form after the plural subject) ends
# the second side
_COMMON_VERBS = (
    r"use|retrieve|store|search|call|rely|need|require|read|write|share|support|run|keep|"
    r"load|query|depend|accept|return|emit|log|embed|rank|rerank|split|send|take|have|"
    r"pick|choose|select|default|fall|build|parse|follow|apply|check|stream|save|cache"
)
_BOTH_COMMON = re.compile(
    r"^\s*(?:which|what)\s+(?P<noun>(?:[\w-]+\s+){0,3}?[\w-]+)\s+(?P<aux>do|did|can|will)\s+"
    rf"both\s+(?P<first>.+?)\s+and\s+(?P<second>.+?)\s+(?P<predicate>(?:{_COMMON_VERBS})\b[^?]*)"
    r"\?\s*$",
    re.IGNORECASE,
)
_SINGULAR_AUX = {"do": "does", "did": "did", "can": "can", "will": "will"}
# "does A use more LLM calls than B's limit?", "is A's threshold higher than B's?": a
# yes or no, with both values
_DOES_MORE_THAN = re.compile(
    r"^\s*(?:does|do|did|can|will|would)\s+(?P<first>.+?)\s+(?P<verb>[a-z]+)\s+"
    r"(?P<degree>more|fewer|less)\s+(?P<noun>[^?]+?)\s+than\s+(?P<second>[^?]+?)\s*\??\s*$",
    re.IGNORECASE,
)
_IS_MORE_THAN = re.compile(
    rf"^\s*(?:is|are|was|were)\s+(?P<first>.+?)\s+(?P<degree>{_DEGREE})\s+than\s+"
    r"(?P<second>[^?]+?)\s*\??\s*$",
    re.IGNORECASE,
)
# "… higher than 0.5", "… more calls than 10": a number written out is no second fact
_LITERAL = re.compile(r"\W*(?:the\s+)?[~<>≤≥]?\s*\d[\d.,]*\s*(?:%|[A-Za-z]{0,8})\W*$")
# where the subject of "how many N does SUBJECT verb" or "what is the N of SUBJECT" stands
_COUNTED_SUBJECT = re.compile(
    rf"\bhow many\s+.+?\s+(?:{_AUX})\s+(?P<subject>.+?)"
    r"\s+[a-z]+(?:\s+(?:by default|at most|in total|at once))?$",
    re.IGNORECASE,
)
_OF_SUBJECT = re.compile(r"\bwhat(?: is|'s) the\s+.+?\s+(?:of|for|in)\s+(?P<subject>.+)$", re.I)
_AUXILIARY = re.compile(rf"\b(?:{_AUX})\b", re.IGNORECASE)
_SMALLER = {"lower", "smaller", "shorter", "fewer", "less", "looser"}
# a side that names its own quantity ("the maximum number of retries") is asked as is
_NAMES_A_QUANTITY = re.compile(
    r"(?:\b|_)(?:number|count|maximum|minimum|limit|value|threshold|score|size|budget|cap)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Comparison:
    operation: Operation
    first: str  # the question each side asks on its own
    second: str
    # the two things compared, as the question names them ("DocuChat Agent Mode"): a
    # "which has the lower cap" answer names the one it picks
    names: tuple[str, str] = ("", "")
    by_how_much: bool = False  # "… and by how much": the difference is shown too


def split_comparison(question: str) -> Comparison | None:
    """The two questions a comparing question asks, and what to do with their answers."""
    text = question.strip()
    common = _BOTH_COMMON.match(text)
    if common is not None:
        aux = _SINGULAR_AUX[common["aux"].lower()]
        predicate = re.sub(r"\btheir\b", "its", common["predicate"])
        first, second = (
            f"Which {common['noun']} {aux} {_lowered(common[side].strip())} {predicate}?"
            for side in ("first", "second")
        )
        return Comparison("common", first, second, (common["first"], common["second"]))
    times = _HOW_MANY_TIMES.search(text)
    if times is not None and not _LITERAL.match(times["second"]):
        return Comparison("ratio", *(_what_is(times[side]) for side in ("first", "second")))
    units = _HOW_MANY_UNITS_MORE.search(text)
    if units is not None and not _LITERAL.match(units["second"]):
        if units["verb"].lower() in ("is", "are"):
            return Comparison("difference", _what_is(units["first"]), _what_is(units["second"]))
        return _done_by_both(units["noun"].strip(), units["verb"], units["first"], units["second"])
    more = _HOW_MANY_MORE.search(text)
    if more is not None:
        noun = (more["noun"] or "").strip()
        first = f"How many {noun} {more['verb']} {more['first']}?".replace("  ", " ")
        return Comparison("difference", first, _side_question(noun, more["second"], True))
    which = _WHICH_IS.search(text)
    if which is not None:
        operation: Operation = "smaller" if which["degree"].lower() in _SMALLER else "larger"
        noun = (which["noun"] or "").strip()
        return Comparison(
            operation,
            _side_question(noun, which["first"]),
            _side_question(noun, which["second"]),
            (which["first"].strip(), which["second"].strip()),
            bool(which["by"]),
        )
    has = _WHICH_HAS.search(text) or _WHICH_IS_THE.search(text)
    if has is not None:
        operation = "smaller" if has["degree"].lower() in _SMALLER else "larger"
        noun, sides = has["noun"].strip(), (has["first"].strip(), has["second"].strip())
        verb = (has.groupdict().get("verb") or "").lower()
        if has["degree"].lower() in ("more", "fewer") and verb:
            # "which keeps more documents: A or B" asks how many each keeps; "which allows
            # more retries: A's reprompt limit or B's" what each limit is
            base = "have" if verb == "has" else verb.removesuffix("s")
            asked = tuple(
                f"What is {side}?"
                if _NAMES_A_QUANTITY.search(side)
                else f"How many {noun} does {side} {base}?"
                for side in sides
            )
        elif verb:
            asked = tuple(f"What is the {noun} of {side}?" for side in sides)
        else:  # "which is the higher cut-off: A's threshold, or B's?"
            asked = tuple(_side_question(noun, side) for side in sides)
        return Comparison(operation, *asked, names=sides, by_how_much=bool(has["by"]))
    return _context_sides(text) or _set_out_sides(text) or _side_by_side(text)


def _done_by_both(noun: str, auxiliary: str, first: str, second: str) -> Comparison | None:
    """ "How many seconds longer did A take than B?": how many seconds each took, the
    first side's last word (its verb) done by the second side too. None when the second
    side is a number written out ("… take than 60 s")."""
    if _LITERAL.match(second):
        return None
    first, second = first.strip(), second.strip()
    asked_first = f"How many {noun} {auxiliary} {first}?"
    if _NAMES_A_QUANTITY.search(second):  # "… than the number of types B extracts"
        return Comparison("difference", asked_first, _what_is(second))
    verb = _LAST_WORD.search(first)
    if verb is not None and not second.lower().endswith(f" {verb['word'].lower()}"):
        second = f"{second} {verb['word']}"
    return Comparison("difference", asked_first, f"How many {noun} {auxiliary} {_lowered(second)}?")


# "… Which allows more?", "What are the two caps, and which is higher?": a choice whose
# sides an earlier sentence sets out ("A caps X, and B caps Y.")
_WHICH_MORE_ALONE = re.compile(
    r"\bwhich(?:\s+(?:one|of\s+(?:the\s+)?(?:two|them)))?\s+(?P<verb>allows|has|uses|sets|"
    rf"gives|keeps|permits|is)\s+(?P<degree>{_DEGREE}|more|fewer)\b[^?]*\?\s*$",
    re.IGNORECASE,
)
_CLAUSES = re.compile(r",\s+(?:and|while|whereas)\s+|;\s+", re.IGNORECASE)
# the verb of a side's clause: what it does to the counted thing
_SIDE_VERB = re.compile(
    r"\b(?P<verb>caps|limits|bounds|allows|permits|sets|uses|keeps|retries|returns|makes|"
    r"runs|gives|takes|has)\b",
    re.IGNORECASE,
)
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def _context_sides(text: str) -> Comparison | None:
    """ "The deep research agent caps remediation retries, and the PHENIX agent caps
    duplicate-command retries. Which allows more?": each clause of the sentence before
    the asking one is a side ("How many remediation retries does the deep research
    agent cap?"), named by its subject."""
    sentences = _SENTENCE_SPLIT.split(text.strip())
    if len(sentences) < 2:
        return None
    asking = _WHICH_MORE_ALONE.search(sentences[-1])
    if asking is None or " or " in sentences[-1]:
        return None
    clauses = _CLAUSES.split(sentences[-2].strip().rstrip("."))
    if len(clauses) != 2:
        return None
    sides = []
    for clause in clauses:
        verb = _SIDE_VERB.search(clause)
        if verb is None or not clause[: verb.start()].strip() or not clause[verb.end() :].strip():
            return None
        subject, counted = clause[: verb.start()].strip(), clause[verb.end() :].strip()
        base = verb["verb"].lower()
        base = "have" if base == "has" else base.removesuffix("es" if base.endswith("ies") else "s")
        sides.append((subject, f"How many {counted} does {_lowered(subject)} {base}?"))
    operation: Operation = "smaller" if asking["degree"].lower() in _SMALLER else "larger"
    return Comparison(
        operation, sides[0][1], sides[1][1], names=(sides[0][0], sides[1][0])
    )


# the asking sentence of a comparison whose sides an earlier sentence sets out: "What is
# the larger of the two caps?", "Which of the two thresholds is higher?", "How many times
# larger is the Tier 1 tolerance?"
_OF_THE_TWO = re.compile(
    rf"\b(?:what|which)\s+is\s+the\s+(?P<degree>{_DEGREE}|stricter|looser)\s+of\s+the\s+"
    r"(?:two|both)\s+(?P<noun>[^?]+?)\s*\??\s*$",
    re.IGNORECASE,
)
_WHICH_OF_THE_TWO = re.compile(
    r"\bwhich\s+of\s+the\s+(?:two|both)\s+(?P<noun>[^?]+?)\s+is\s+"
    rf"(?:the\s+)?(?P<degree>{_DEGREE}|stricter|looser)\s*\??\s*$",
    re.IGNORECASE,
)
_TIMES_ALONE = re.compile(
    rf"\b{_TIMES}\s+{_GREATER}\s+(?:is|are)\s+"
    r"(?P<subject>[^?]+?)\s*\??\s*$",
    re.IGNORECASE,
)
# how the sentence before sets out the two sides: "Compare A with B.", "One is A, the
# other is B.", "A …, while B …"
_COMPARE_SIDES = re.compile(
    r"^\s*compare\s+(?P<first>.+?)\s+(?:with|to|against|and)\s+(?P<second>.+?)\s*[.:]?\s*$",
    re.IGNORECASE,
)
_ONE_THE_OTHER = re.compile(
    r"\bone\s+is\s+(?P<first>.+?)\s*[,;]\s*(?:and\s+)?the\s+other\s+(?:is\s+)?"
    r"(?P<second>.+?)\s*[.:]?\s*$",
    re.IGNORECASE,
)
_CONTRAST = re.compile(r"\s*,\s+(?:while|whereas)\s+|;\s+", re.IGNORECASE)


def _set_out_sides(text: str) -> Comparison | None:
    """ "Compare A's cap with B's cap. What is the larger of the two caps?": the two
    sides come from the sentence before the asking one (its "compare … with …", its "one
    is …, the other …", or its two clauses set against each other by "while"), each asked
    for the noun of the asking sentence. A ratio ("how many times larger is A's
    tolerance?") puts the side the asking sentence names first."""
    sentences = _SENTENCE_SPLIT.split(text.strip())
    if len(sentences) < 2:
        return None
    asking = sentences[-1]
    chosen = _OF_THE_TWO.search(asking) or _WHICH_OF_THE_TWO.search(asking)
    times = None if chosen else _TIMES_ALONE.search(asking)
    if chosen is None and times is None:
        return None
    sides = _sides_set_out(sentences[-2].strip())
    if sides is None:
        return None
    if times is not None:
        subject = set(content_terms(times["subject"]))
        first, second = (set(content_terms(side)) for side in sides)
        if len(subject & second) > len(subject & first):
            sides = (sides[1], sides[0])
        noun = _head_noun(times["subject"])
        operation: Operation = "ratio"
    else:
        assert chosen is not None
        noun = _singular(chosen["noun"].strip())
        operation = "smaller" if chosen["degree"].lower() in _SMALLER else "larger"
    asked = tuple(
        f"What is {side}?" if _NAMES_A_QUANTITY.search(side) or not noun
        else f"What is the {noun} of {_lowered(side)}?"
        for side in sides
    )
    return Comparison(operation, *asked)


def _sides_set_out(sentence: str) -> tuple[str, str] | None:
    """The two sides a sentence sets out, or None."""
    for form in (_COMPARE_SIDES, _ONE_THE_OTHER):
        found = form.search(sentence)
        if found is not None:
            return found["first"].strip(), found["second"].strip()
    clauses = _CONTRAST.split(sentence.rstrip("."))
    if len(clauses) == 2 and all(len(c.split()) >= 3 for c in clauses):
        first, second = (_clause_subject(c.strip()) for c in clauses)
        return first, second
    return None


# the verb that ends a side clause's subject: "the v120 guard *allows* 0.5 % on a, b, c"
_CLAUSE_VERB = re.compile(
    r"\s+(?:compares|allows|uses|applies|sets|caps|limits|requires|keeps|returns|gives|"
    r"takes|has|permits|checks|accepts|needs|runs|calls|makes|bounds|waits|tolerates)\b",
    re.IGNORECASE,
)


def _clause_subject(clause: str) -> str:
    """The subject of a side clause ("The Tier 1 check compares cells with one
    tolerance" → "The Tier 1 check"), or the clause when no verb of the list ends it."""
    verb = _CLAUSE_VERB.search(clause)
    return clause[: verb.start()].strip() if verb and verb.start() > 0 else clause


def _head_noun(phrase: str) -> str:
    """The last word of a noun phrase ("the Tier 1 tolerance" → "tolerance")."""
    words = re.findall(r"[A-Za-z][\w-]*", phrase)
    return words[-1] if words else ""


def _singular(noun: str) -> str:
    """ "CC thresholds" → "CC threshold": the noun each side is asked for."""
    head, _, last = noun.rpartition(" ")
    if last.endswith("s") and not last.endswith("ss") and len(last) > 3:
        last = last[:-1]
    return f"{head} {last}".strip()


def _lowered(subject: str) -> str:
    """ "The deep research agent" inside a question: "the deep research agent"."""
    first, _, rest = subject.partition(" ")
    return f"{first.lower()} {rest}" if first in ("The", "A", "An") else subject


def _side_by_side(text: str) -> Comparison | None:
    """The forms that ask for both values ("A, compared with B"; "how many does A …, and
    how many does B …") or whether they are equal ("is A the same number as B?")."""
    more = _DOES_MORE_THAN.search(text)
    if more is not None and not _LITERAL.match(more["second"]):
        less = more["degree"].lower() != "more"
        noun, verb = more["noun"].strip(), more["verb"].lower()
        return Comparison(
            "less than" if less else "more than",
            f"How many {noun} does {more['first']} {verb.removesuffix('s')}?",
            _side_question(noun, more["second"], counted=True),
        )
    higher = _IS_MORE_THAN.search(text)
    if higher is not None and not _LITERAL.match(higher["second"]) and _NAMES_A_QUANTITY.search(
        higher["first"]
    ):  # "is A's threshold higher than B's?"; "is the link cache larger …" may be said outright
        return Comparison(
            "less than" if higher["degree"].lower() in _SMALLER else "more than",
            _side_question("", higher["first"]),
            _side_question("", higher["second"]),
        )
    both_same = _BOTH_THE_SAME.search(text)
    if both_same is not None:  # "do A and B produce the same number of queries?"
        noun, verb = both_same["noun"].strip(), both_same["verb"]
        sides = (both_same["first"].strip(), both_same["second"].strip())
        return Comparison("same", *(f"How many {noun} does {side} {verb}?" for side in sides))
    same = _SAME_AS.search(text)
    if same is not None:
        return Comparison(
            "same", _side_question("", same["first"]), _side_question("", same["second"])
        )
    pair = _AND_HOW_MANY.search(text)
    if pair is not None:
        second = f"How many {pair['noun']} {pair['aux']} {pair['second']}?"
        if _AUXILIARY.search(pair["second"]):  # "and how many steps of the plan does B keep"
            second = f"How many {pair['second']}?"
        return Comparison("both", f"{pair['ask'].strip()}?", second)
    compared = _COMPARED_WITH.search(text)
    if compared is None:
        return None
    ask, other = compared["ask"].strip().rstrip(",;"), compared["second"].strip()
    for form in (_COUNTED_SUBJECT, _OF_SUBJECT):
        subject = form.search(ask)
        if subject is not None:
            second = ask[: subject.start("subject")] + other + ask[subject.end("subject") :]
            return Comparison("both", f"{ask}?", f"{second[0].upper()}{second[1:]}?")
    if _NAMES_A_QUANTITY.search(other):  # "…, compared with the mirror's retry limit"
        return Comparison("both", f"{ask}?", _side_question("", other))
    return None


# "the default confidence the evaluator requires": a definite phrase with a head noun of
# its own, asked as it stands ("What bar is the default confidence …" asked for a "bar"
# no passage names); "the one used in X" leaves its noun to the question
_OWN_HEAD = re.compile(r"the\s+(?!ones?\b|same\b|other\b)[\w-]+\s+[\w-]+", re.IGNORECASE)


def _what_is(side: str) -> str:
    """The question a side named by a noun phrase asks ("is A larger than B": "What is
    A?")."""
    return f"What is {side.strip().rstrip('?').strip()}?"


def _side_question(noun: str, side: str, counted: bool = False) -> str:
    """ "What is the maximum number of retries?" for a side that names its quantity,
    "How many documents the executor returns?" for a counted side that tells what it
    counts, "What model is the one used in X?" for a side that leaves the noun implied."""
    side = side.strip().rstrip("?").strip()
    if _NAMES_A_QUANTITY.search(side):
        return _what_is(side)
    if counted and noun:
        return f"How many {noun} {side}?"
    if _OWN_HEAD.match(side):
        return _what_is(side)
    return f"What {noun or 'value'} is {side}?"
