"""What kind of answer a question expects, and which words name the thing asked for.

Rules only: the wh-phrase decides the type ("how many" → a number, "which function" →
an identifier, "is it safe to" → yes/no), and the nouns right after it are the
question's *focus* ("the default port", "chunk overlap"). The focus is what refusal
checks: a passage about the right subject that never mentions the focus does not
answer the question (a near-miss), however similar it looks.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Literal

from agentcycle.agent.research.classify import (
    back_reference,
    last_sentence_split,
    pointed_noun,
)
from agentcycle.agent.research.text import STOPWORDS, content_terms, stem
from agentcycle.agent.research.wording import AS_IS, DEFAULT_CLAUSE, LEFT

AnswerType = Literal[
    "number", "default", "identifier", "yes_no", "list", "name", "phrase", "manner"
]

QUANTITY_NOUNS = (
    r"value|values|number|numbers|percentage|percent|fraction|threshold|thresholds|tolerance|"
    r"cutoff|cut-off|limit|cap|caps|size|score|similarity|confidence|r-free|rfree|cc|clashscore|count|"
    r"rate|wavelength|resolution|budget|depth|timeout|length|version|ratio|range|dimension|"
    r"overlap|temperature|port|memory|seconds|minutes|tokens|words|width|height|bound|"
    r"maximum|minimum|date|day|recall|precision|accuracy|latency|throughput|window|weight|"
    r"share|proportion|"
    # "what response time does X give": a duration, whatever the word before "time"
    r"duration|delay|interval|response time|run time|wall time|wait time"
)
_VERB_AUX = r"does|do|did|is|are|was|were|can|could|will|would|should|has|have|must|may"
_NUMBER_Q = re.compile(
    r"\b(how (many|much|long|often|large|big|small|far|similar|close|high|low|deep|"
    r"strict|confident|fast|slow)|what (percentage|fraction)|"
    # "under what threshold", but "under what licence" asks for a name; "at what
    # verbosity" asks for a level by name ("at what resolution" is a quantity noun below)
    r"(below|above|under|over|within|at least|at most|"
    r"no (?:more|less|fewer) than) what\b(?!\s+(?:licen[cs]es?|terms|names?|"
    r"conditions?|circumstances|headings?|sections?|categor(?:y|ies)|labels?)\b)|"
    r"(roughly|approximately) how|"
    # "what is the most retreats it permits": the most of a plural is a count
    r"\bwhat(?: is|'s) the (?:most|fewest|least|largest number of)\s+[a-z]+s\b|"
    # "what map correlation must it exceed": a bound asks for the number it sets; "what
    # happens when it cannot reach the server" asks what happens
    r"\b(what|which)\b(?!\s+happens)[^?]*(?<!cannot )(?<!can't )(?<!not )(?<!never )"
    r"\b(exceed(?:ed)?|surpass(?:ed)?|stay (?:above|below|under)|fall below|reach(?:ed)?|"
    r"attain(?:ed)?)\b|"
    # ("which quality level does an R-free … fall into": the noun phrase ends at its verb)
    # ("what did the hit rate drop to": a bare "what" asks for the subject's value)
    rf"(what|which)(?: (?:{_VERB_AUX}))?( (?!(?:{_VERB_AUX})\b)\S+){{0,4}}?"
    rf"[ _-]({QUANTITY_NOUNS})\b|"
    # "what is the deep research agent's reference relevance threshold for nested chunks?":
    # the noun phrase "what is the" asks for ends in a quantity noun, however long it is
    rf"\bwhat(?:'s|\s+is|\s+are|\s+was)\s+the\s+(?:(?:[\w'’-]+|\([^()?]*\))\s+){{0,6}}?"
    rf"(?:{QUANTITY_NOUNS})"
    r"\s*(?:\?|$|\b(?:for|of|in|on|at|used|that|when|applied|set)\b))",
    re.IGNORECASE,
)
_STRONG_NUMBER_Q = re.compile(
    r"\b(how (many|much|long|often)|percentage|fraction|number of|in (seconds|tokens|mb|words))\b",
    re.IGNORECASE,
)
# "How does the classifier respond to X?" asks what happens: a clause, not a name.
_MANNER = re.compile(
    # "When the agent runs X (regex then LLM), how are duplicates removed?": after a comma
    r"(?:^\s*(?:[\w,'’-]+\s+){0,6}?|,\s+)"
    r"how (?:does|do|did|should|can|is|are|was|were|will|would)\b"
    # "What does the agent do when the provider is down?": what it does, as a clause
    r"|\bwhat (?:does|do|did|should|will|would) (?:[\w.'’-]+\s+){1,5}?do\b(?!\s+with\b)",
    re.IGNORECASE,
)
# "Is X …?", and after a leading phrase that asks nothing itself: "With the anthropic
# provider, can the model …?", "Under the v2 rule, is that CC high enough …?"
_YES_NO = re.compile(
    r"^(?:(?:(?!\b(?:what|which|how|who|whom|whose|why)\b)[^,?])+,\s+)?"
    r"(is|are|does|do|did|can|could|should|will|would|was|were|has|have|must)\s",
    re.IGNORECASE,
)
_IDENTIFIER_NOUNS = (
    r"function|method|class|file|files|flag|flags|parameter|variable|env var|field|node|"
    r"tool|template|category|event|message|check|collection|key|setting|option|module|"
    r"directory|folder|error|strategy|command|constant|attribute|type|mode|state|phase|"
    r"extension|extensions|column|keyword|banner|phrase|name|label|value name|path|endpoint|test|"
    r"marker|markers|helper"
)
_IDENTIFIER_Q = re.compile(
    rf"\b(which|what)( \S+){{0,3}}? ({_IDENTIFIER_NOUNS})\b|"
    r"\bwhat is the name\b|\bwhich (?:\S+ )?(?:environment variable|PHIL parameter)",
    re.IGNORECASE,
)
_NAME_Q = re.compile(
    r"\b(who|which (\S+ ){0,2}(model|program|provider|llm|package|library|database|"
    r"vector (store|database)|person|author|system|framework|gateway|reranker)s?)\b|"
    r"\bwhat (\S+ ){0,2}(model|program|provider|package|library|database)\b",
    re.IGNORECASE,
)
_LIST_Q = re.compile(
    r"\b(which|what) (\S+ ){0,3}(files|programs|extensions|names|flags|tools|"
    r"models|keywords|types|categories|checks|values|steps|fields|formats|languages|"
    r"strategies|modes)\b(?!\.\w).*\b(are|does|do|"
    r"accept|list|include|contain|prefer|require|use|need|share|can|could|must|should|may)\b"
    r"|^list\b|\blist (all|the|every)\b"
    # "into which four intents", "what three stages": a count of plural things is a list
    # … also with modifiers before the plural: "which three reactive recovery 'shapes'"
    r"|\b(which|what) (two|three|four|five|six|seven|eight|nine|ten|[2-9]) "
    r"(?:[\w-]+ ){0,3}[\"'“]?[a-z_-]+s\b",
    re.IGNORECASE,
)
_WH = re.compile(
    r"\b(what|which|how (?:many|much|long|does|do|is)|who|where|when|below what|above what)\b",
    re.IGNORECASE,
)
_VERBS = {
    "is",
    "are",
    "was",
    "were",
    "does",
    "do",
    "did",
    "can",
    "must",
    "should",
    "will",
    "would",
    "has",
    "have",
    "of",
    "in",
    "for",
    "by",
    "that",
    "when",
    "per",
    "with",
    "from",
    "to",
    "on",
    "at",
    "after",
    "before",
    "under",
    "applies",
    "apply",
    "runs",
    "run",
    "sets",
    "set",
    "takes",
    "take",
    "makes",
    "make",
    "happens",
    "happen",
    "follows",
    "follow",
    "fell",
    "falls",
    "respond",
    "responds",
    "enforces",
    "enforce",
    "uses",
    "use",
    "used",
    "returns",
    "return",
    "gives",
    "give",
    "lists",
    "list",
    "says",
    "say",
    "shows",
    "show",
    "holds",
    "hold",
    "keeps",
    "keep",
    "sends",
    "send",
    "counts",
    "count",
    "marks",
    "mark",
    "decides",
    "decide",
    "selects",
    "select",
    "contains",
    "contain",
    "appear",
    "appears",
    "becomes",
    "become",
    "overrides",
    "override",
    "controls",
    "control",
    "defines",
    "define",
}


def _third_person(verb: str) -> str:
    """Third person singular: English adds "es" after a sibilant or an "o" ("passes")."""
    return verb + ("es" if verb.endswith(("s", "sh", "ch", "x", "z", "o")) else "s")


# Common verbs of technical questions ("which programs *prefer* half-maps"), each with
# its third-person form: they end the noun phrase the wh-word asks about.
_VERBS |= {
    form
    for verb in (
        "prefer", "require", "need", "support", "produce", "create", "call", "read", "write",
        "handle", "trigger", "replace", "remove", "drop", "skip", "compute", "store", "load",
        "save", "accept", "include", "get", "receive", "provide", "allow", "build", "generate",
        "detect", "determine", "emit", "raise", "hold", "reject", "ignore", "cause",
        "stop", "cover", "start", "fail", "pass", "catch", "block", "send", "match", "point",
        "pick", "select", "choose", "decide", "convert", "switch", "assign", "control",
        "turn", "enable", "disable", "come", "override", "bypass", "go", "let",
        "implement", "perform", "invoke", "expose", "define", "validate", "guard",
        "describe", "document", "mention",
    )
    for form in (verb, _third_person(verb))
} | {"has", "have"}  # fmt: skip
# Words naming the *kind* of answer, not its subject: the evidence needn't repeat them.
_KIND_NOUNS = {
    "model",
    "program",
    "file",
    "class",
    "node",
    "flag",
    "phrase",
    "llm",
    "function",
    "method",
    "tool",
    "paramet",
    "variabl",
    "field",
    "categor",
    "option",
    "setting",
    "name",
    "type",
    "kind",
    "mode",
    "phas",
    "step",
    "stage",
    "state",  # "which state comes after 'testing'": lifecycles, like phases, name states
    "status",
    "messag",
    "event",
    "check",
    "error",
    "strategy",
    "strateg",
    "key",
    "command",
    "constant",
    "modul",
    "directory",
    "templat",
    "collection",
    "environ",
    "valu",
    "number",
    "provid",
    "package",
    "librar",
    "databas",
    "system",
    "tak",
    "mak",
    "respons",
    "exact",
    "many",
    "much",
    "long",
    "roughly",
    "about",
    # the kind of thing or number asked for ("which source file", "which Docker
    # container", "what similarity cutoff"): passages state the value, not its kind
    "source",
    "container",
    "cutoff",
    "threshold",
    "tolerance",
    "similarity",
    "argument",
    "date",
    # the form of the answer, not its subject: "which script", "which boolean field",
    # "what identifier", "which of the following"
    "identifier",
    "script",
    "boolean",
    "numeric",
    "integer",
    "string",
    "label",
    "tag",
    "word",
    "following",
    # a property the answer is an instance of ("what color": orange, "which hash
    # algorithm": MD5, "what file-name pattern": ai_agent_NN.log); seldom written beside it
    "color",
    "colour",
    "algorithm",
    "pattern",
    "format",
    "keyword",
    "range",
    "limit",  # "what is the character limit", "the default length": a number, which
    "length",  # passages give as "truncated at max_readme_chars (default: 5000)"
    "naming",  # "what is the naming pattern": ai_agent_NN.log
    "condition",  # "under what condition does Rule C fire": when …
    # the measure a number is given in ("below what *share* of residues": < 90 %), and
    # the place on a screen ("which Coot *menu*": Validate > …): passages give the value
    "share",
    "helper",  # "which helper function": _safe_float()
    "code",  # "what error code": UNGROUNDED_CLAIM
    "fraction",
    "proportion",
    "percentage",
    "percent",
    "ratio",
    "menu",
    "button",
    "tab",
    "panel",
    "dialog",
    "window",
}
_KIND_NOUNS |= {stem(word) for word in _KIND_NOUNS} | {"class", "phrase", "clas", "phras"}
_FOCUS_STOP = STOPWORDS | {
    "default",
    "value",
    "values",
    "number",
    # "the maximum amount of citation text": how much, of what the phrase after "of" names
    "amount",
    "quantity",
    "level",  # "above what sigma level": "above 4 sigma" names the measure, not its level
    "cap",  # "DocuChat's cap on reprompts": a maximum, which a passage writes MAX_REPROMPTS
    "name",
    "maximum",
    "minimum",
    "exact",
    "full",  # "the full name of that model": the whole name, which no passage calls full
    "main",
    "typical",
    "current",
    "specific",
    "next",  # "the symbol next to a stage": where it stands, not what is asked
    # "the equivalent keyword", "what value corresponds to …": a relation, not a subject
    "equivalent",
    "correspond",
    "corresponding",
    "largest",
    "smallest",
    "highest",
    "lowest",
    "longest",
    "shortest",
    "first",  # "the first stage of the template": lists number their items, seldom say so
    # "what third filename", "the final R-free": a place in a list or a run, which the
    # passage shows by order ("README, README.txt or README.md"), seldom by the word
    "third",
    "fourth",
    "fifth",
    "last",
    "final",
}
# "which of those *three*": a count of the options, never what the evidence must name
_NUMBER_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
# "which *extra* value", "which *internal* call": they set the asked thing apart from
# others, and passages name the thing itself, seldom with this word; "how many *times*"
# counts occurrences, a word no passage need write
_SETTING_APART = (
    "extra", "additional", "internal", "other", "particular", "actual", "different",
    "separate", "further", "certain", "single", "same", "new", "special", "precise",
    "overall", "approximate", "times", "distinct", "unique",
)  # fmt: skip
_FOCUS_STOP |= {stem(word) for word in (*_NUMBER_WORDS, "both", *_SETTING_APART)}


@dataclass(frozen=True)
class Expectation:
    """The answer type and the focus words of a question."""

    kind: AnswerType
    focus: list[str] = field(default_factory=list)  # stemmed content terms after the wh-word
    asks_default: bool = False
    head: str = ""  # the noun the wh-word asks for, stemmed: "which *node*" → "node"


_ABBREVIATION = re.compile(r"\b(?:i\.e|e\.g|etc|vs|cf|approx)\.", re.IGNORECASE)


def main_clause(question: str) -> str:
    """The asking sentence: the last one ending in '?', else the whole question."""
    # "i.e." and "e.g." end no sentence: "what is X, i.e. the Y?" is one question
    text = _ABBREVIATION.sub(lambda m: m.group(0).replace(".", "\0"), question.strip())
    parts = [p.strip().replace("\0", ".") for p in re.split(r"(?<=[.?!;])\s+", text) if p.strip()]
    asking = [p for p in parts if p.endswith("?")]
    return asking[-1] if asking else question.strip()


# up to six words before the wh-word, a file or dotted name among them ("In the X-ray
# workflows.yaml, which …")
_ASKING = re.compile(
    r"^\s*(?:[\w,'’./-]+\s+){0,6}?(what|which|how|who|where|when)\b", re.IGNORECASE
)
# ", which added the X provider," is a relative clause about what came before it, not
# a question: "which" right before a verb in the past or a form of "be"/"have"
_COMMA_ASK = re.compile(
    r",\s+(?=(?:what|which|how|who|where|when)\b)"
    r"(?!which\s+(?:is|was|are|were|has|have|had|[a-z]+ed)\b)",
    re.IGNORECASE,
)
_BACK_REFERENCE = re.compile(
    r"\b(its|it|that|this|these|those|such|they|their|them|then|the same|the following)\b",
    re.IGNORECASE,
)


def asks_a_quantity(question: str) -> bool:
    """ "How many/much/long/often …", "what percentage …": a number and nothing else
    answers ("which X value" may be a name)."""
    return _STRONG_NUMBER_Q.search(main_clause(question)) is not None


# a code name: Cell_State_Analyzer_Tool, phenix.refine, `resolve_cryo_em`, camelCase
_CODE_NAME = re.compile(r"`[^`]+`|\b[A-Za-z]\w*(?:[_.][A-Za-z0-9]\w*)+\b|\b[a-z]+[A-Z]\w*\b")


def _names_its_antecedent(asking: str) -> bool:
    """Whether the asking clause names, before its back-reference, the code name that
    reference points at: in "which model does Cell_State_Analyzer_Tool rely on for its
    learning?" the "its" is the tool's, and the clause before the comma only places it."""
    reference = _BACK_REFERENCE.search(asking)
    return reference is not None and bool(_CODE_NAME.search(asking[: reference.start()]))


def points_back(asking: str) -> bool:
    """Whether an asking clause refers to something said before it ("its", "that tool")."""
    return _BACK_REFERENCE.search(asking) is not None


def asking_part(clause: str) -> str:
    """What follows the last ", what/which/how…": "When checking whether X is placed,
    what tolerance does Tier 1 use?" asks about the tolerance, not about "whether"."""
    commas = list(_COMMA_ASK.finditer(clause))
    return clause[commas[-1].end() :] if commas else clause


# "When X was run against Y, how many of them …": a condition on the asked fact itself,
# so the context restates the fact's setting and names no bridge to look up first
_CONDITION_FIRST = re.compile(
    # "In the legal graph, if the replanner's call fails, …": a placing phrase may lead
    r"\s*(?:(?:in|for|within|during|according to)\s[^,?]{3,80},\s*)?"
    r"(?:when|whenever|if|after|before|once|while|since|because|although|though)\b",
    re.IGNORECASE,
)


# "Apart from .mtz and .sca, which other extension …": the words that name what the
# answer is not. Such a clause sets up no fact to look up first.
SETTING_APART = (
    r"apart from|aside from|besides|other than|except(?: for)?|in addition to|not counting"
)
_SETS_APART = re.compile(
    rf"(?:^|[.;:]\s+)(?:{SETTING_APART})\s+(?:(?![.;:]\s).)*$", re.IGNORECASE
)


# "… activates the planner. Inside the LangGraph pipeline, which level …": a sentence
# that opens with a place or a setting places what it asks, it states no bridge
_PLACING_OPENER = re.compile(
    r"(?<=[.!?])\s+((?:in|inside|within|during|under|across|for|on|at|per|according to)\s"
    r"(?:[^.!?]|\.(?=\w))*)$",  # a dot inside a name ("workflows.yaml") ends nothing
    re.IGNORECASE,
)


def _placed_asking(context: str, asking: str) -> tuple[str, str]:
    """(context, asking clause) with a placing phrase moved from the end of the context
    to the asking clause it opens."""
    placing = _PLACING_OPENER.search(context)
    if placing is None:
        return context, asking
    return context[: placing.start()], f"{placing.group(1)}, {asking}"


# "For the LLM provider whose only required variable is X, which …": a thing described
# by a relative clause, then asked about; a bridge though nothing points back at it
_DESCRIBED = (  # "For the <up to four words: the last, the noun> whose/that/which/where"
    r"^\s*for\s+(?:the|a|an|each)\s+(?:[\w-]+\s+){0,3}?([\w-]+)\s+(?:whose|that|which|where)\b"
)
_DESCRIBED_NOUN = re.compile(_DESCRIBED, re.IGNORECASE)
_DESCRIBED_FIRST = re.compile(
    rf"{_DESCRIBED}[^,?]*,\s+(?:which|what|how|who|where|when)\b", re.IGNORECASE
)


def described_noun(context: str) -> str:
    """The noun a described-first context is about ("provider" of "For the LLM provider
    whose only required variable is X"), or ''."""
    found = _DESCRIBED_NOUN.match(context)
    return found.group(1).lower() if found else ""


# "that script" after a context that names the file: the file is named, not described
_FILE_NOUNS = {"script", "file", "module"}
_NAMED_FILE = re.compile(r"[\w./-]+\.(?:py|sh|csh|ya?ml|json|md|txt|toml)\b")


def split_bridge(question: str) -> tuple[str, str] | None:
    """(context, asking clause) of a question that sets up a fact before asking about
    it — "X is forced after Y; which tool does X depend on?" — or None.

    The context names the intermediate fact (the bridge); the asking clause says what
    to find about it. Split at the last ';', or at ", which/what/how ..." when the asking
    part points back ("its", "that program"); it must start with (or soon reach) a
    wh-word. A context sentence before a separate question ("X reranks 20 documents.
    How many does it keep?") is left whole: there the context is the subject itself,
    and ranking without it loses the passage that answers. A separate question that
    points back with "that/this <noun>" ("forces a specific tool after X. Which model
    does that tool use?") is split there: the earlier sentence describes the bridge.
    """
    text = question.strip()
    parts: tuple[str, str] | None = None
    if ";" in text:
        head, _, tail = text.rpartition(";")
        parts = (head, tail)
    else:
        commas = list(_COMMA_ASK.finditer(text))
        # "In the GUI, what is X?" only places X; a back-reference points at a fact,
        # unless the context is a condition on the asked fact ("When X ran, how many …")
        if (
            commas
            and points_back(_first_of_pair(text[commas[-1].end() :]))
            and not _CONDITION_FIRST.match(text)
            and not _SETS_APART.search(text[: commas[-1].start()])
            and not _names_its_antecedent(text[commas[-1].end() :])
        ):
            cut = commas[-1]
            parts = _placed_asking(text[: cut.start()], text[cut.end() :])
    if parts is None and _DESCRIBED_FIRST.match(text):
        # "For the provider whose only required variable is X, which model …": the
        # opening describes the thing the asking clause is about without naming it
        cut = next(_COMMA_ASK.finditer(text))
        parts = (text[: cut.start()], text[cut.end() :])
    if parts is None and back_reference(text):
        parts = last_sentence_split(text)  # "… a tool after X. Which model does that tool use?"
    if parts is None:
        return None
    context, asking = parts[0].strip(), parts[1].strip()
    if asking.lower().startswith("and ") or not _ASKING.search(asking):
        return None  # "X, and which Y?" asks two things: the whole question decides
    if pointed_noun(asking) in _FILE_NOUNS and _NAMED_FILE.search(context):
        return None  # "… in agent/session_tools.py. Which flag does that script take?"
    if len(content_terms(context)) < 3:
        return None
    return context, asking


# "Which flag turns X on, and is it on by default?", "… in which release, and how many
# tests does its file hold?": two questions in one, each with its own kind of answer
_PAIR = re.compile(
    r"^(?P<first>.*\b(?:what|which|how|who|where|when)\b.*?)\s*[,;]\s*and\s+"
    r"(?P<second>(?:(?:in|at|from|by|for|on|to|under|since)\s+)?"
    r"(?:what|which|how|who|where|when|why|is|are|does|do|did|was|were|can|will)\b[^?]*)"
    r"\?\s*$",
    re.IGNORECASE | re.DOTALL,
)


def _first_of_pair(asking: str) -> str:
    """The first question of "WH …, and WH … that X?": its second part points back at
    the first part's answer ("what status must a document have before *that tool*
    returns it"), never at the words before the first part."""
    pair = _PAIR.match(asking.strip())
    return pair["first"] if pair is not None else asking


# "…, and how many retries does it allow? Give the node.": a closing instruction that
# says which of the question's parts is to be answered
_GIVE_THE = re.compile(
    r"\?\s*(?:please\s+)?(?:give|name|state|report|answer with)\s+(?:only\s+|just\s+)?"
    r"the\s+(?P<noun>(?:[\w-]+\s+){0,2}[\w-]+?)s?\s*\.?\s*$",
    re.IGNORECASE,
)
_PARTS = re.compile(
    r"^(?P<first>.*\b(?:what|which|how|who|where|when)\b.*?)\s*[,;]\s*and\s+"
    r"(?P<second>[^?]*\b(?:what|which|how|who|where|when)\b[^?]*)\?$",
    re.IGNORECASE | re.DOTALL,
)


def instructed_part(question: str) -> str:
    """The question a closing instruction picks out of a two-part one: "which node does
    X return, and how many retries does Y allow? Give the node." asks for the node;
    "… Give the number." for the count. Otherwise the question as asked."""
    give = _GIVE_THE.search(question)
    if give is None:
        return question
    body = question[: give.start() + 1].strip()
    parts = _PARTS.match(body)
    if parts is None:
        return body
    noun = stem(give["noun"].split()[-1].lower())
    for part in (parts["first"], parts["second"]):
        head = head_noun(part)
        counts = noun in ("numb", "count", "valu") and _NUMBER_Q.search(part) is not None
        if head == noun or counts:
            return f"{part.strip()[0].upper()}{part.strip()[1:]}?"
    return body


def split_pair(question: str) -> tuple[str, str] | None:
    """(first question, second question) of "WH …, and WH …?", or None. The first keeps
    the sentences before it (they name its subject); the second may point back at it
    ("and is *it* on by default?"), so the first part's words help rank its evidence."""
    pair = _PAIR.match(question.strip())
    if pair is None:
        return None
    second = pair["second"].strip()
    return f"{pair['first'].strip()}?", f"{second[0].upper()}{second[1:]}?"


# Determiners that open an object, never a reduced relative clause: after a word in "-s"
# they make it a verb ("rule strips *every* key", "model turns *my* advice"). An article
# does not: "the file extensions *the* crawler treats" is a noun phrase.
_DETERMINERS = {"every", "each", "all", "any", "its", "their", "no", "my", "your", "our"}
PREPOSITIONS = {"for", "in", "of", "to", "with", "by", "from", "about", "on", "at"}


# past participles not in "-ed": "a stage *shown* with ⊘", "the value *given* to X"
_IRREGULAR_PARTICIPLES = {
    "shown", "given", "taken", "written", "known", "seen", "chosen", "drawn", "driven",
    "hidden", "broken", "thrown", "begun", "done", "sent", "kept", "built", "found",
}  # fmt: skip


# past forms not in "-ed" that are never nouns: "which program *ran* in cycle 1"
_IRREGULAR_PAST = {
    "ran", "went", "came", "began", "wrote", "took", "made", "gave", "saw", "chose",
    "drew", "drove", "broke", "threw", "knew", "became", "rose", "fell", "spoke", "won",
    "held", "said", "told", "thought", "brought", "caught", "taught", "bought", "sold",
}  # fmt: skip


def _participle(word: str) -> bool:
    """ "allowed", "introduced", "shown", "ran": a verb's past form (an identifier never
    is)."""
    return (word.endswith("ed") and len(word) > 4 and "_" not in word) or (
        word in _IRREGULAR_PARTICIPLES or word in _IRREGULAR_PAST
    )


_PARTICLES = {"off", "up", "out", "down"}  # "which variable *turns off* the check"
# "which stage *comes right* after": an adverb that places the verb's subject
_PLACING_ADVERBS = {"right", "just", "directly", "immediately"}
# "which variable *lets you* bypass it": a verb of causing before its object pronoun
# (a noun may be followed by a subject pronoun: "which files you need")
_CAUSING = {"lets", "makes", "helps", "allows", "tells", "forces", "causes", "gets"}
_OBJECT_PRONOUNS = {"you", "it", "them", "us", "me"}
# "which marker *fires when* the call fails": a clause opening after the word says when
# the verb happens
_SUBORDINATORS = {"when", "whenever", "if", "once", "while", "unless", "until"}


# "which value *serves both as* X and as Y", "which flag *counts as* …": a role opens
_ROLE_OPENERS = {"both", "either", "as"}


def _verb_before_object(word: str, following: list[str]) -> bool:
    """Whether `word` is a verb in the third person by its object: "-s" before a
    determiner ("which rule *strips* every key", "which node *reads* its file"), before
    a particle ("turns off"), before a clause ("fires when"), or, for a verb of causing,
    before a pronoun ("lets you")."""
    if not word.endswith("s") or word.endswith("ss") or not following:
        return False
    after = following[0].strip("?,.;:()'\"").lower()
    return (
        after in _DETERMINERS
        or after in _PARTICLES
        or after in _PLACING_ADVERBS
        or after in _SUBORDINATORS
        or after in _ROLE_OPENERS
        or (word in _CAUSING and after in _OBJECT_PRONOUNS)
    )


_NOT_PLURAL_ENDINGS = ("ss", "is", "us")  # "analysis", "status", "access": no -s form
_THIRD_PERSON = re.compile(r"[a-z]{2,}[^su'’]s")  # "treats", "keeps": not "progress", "agent's"


def _verb_by_agreement(noun: str, word: str, following: list[str]) -> bool:
    """Whether `word` is the verb of the singular `noun` before it, by its -s ending and
    the content word it takes ("which endpoint *streams* real-time updates"); before an
    auxiliary it is a plural noun ("which recovery *shapes* does it list")."""
    if noun.endswith("s") or not word.endswith("s") or word.endswith(_NOT_PLURAL_ENDINGS):
        return False
    if not following:
        return False
    after = following[0].strip("?,.;:()'\"").lower()
    if after in {"that", "whether"}:
        return True  # "which test file *checks* that …"
    if after in {"the", "a", "an"}:  # "which endpoint *streams* the agent's progress",
        # unless a verb of its own follows: "which file *extensions* the crawler treats"
        return not any(_THIRD_PERSON.fullmatch(w.strip("?,.;:()'\"")) for w in following[1:])
    return bool(after) and after not in _VERBS and after not in STOPWORDS


def _plural_subjects_verb(phrase: list[str], word: str, following: list[str]) -> bool:
    """ "how many tests *belong* to": right after the plural noun counted, a bare word
    before a preposition or determiner is its verb, not another noun."""
    if len(phrase) != 1 or not phrase[0].endswith("s") or not following:
        return False
    after = following[0].strip("?,.;:()'\"").lower()
    return (
        word.isalpha()
        and not word.endswith("s")
        and (after in _DETERMINERS or after in PREPOSITIONS)
    )


# "-ly" endings of adverbs ("deliberately", "automatically", "explicitly"), not of nouns
# ("assembly", "family", "anomaly"): an adverb says how, never what the evidence names
_ADVERB = re.compile(r"\w{3,}(?:at|al|ent|ant|iv|ous|ful|ic|it|ct|ar|ick|ng)ely$|"
                     r"\w{3,}(?:al|ent|ant|ous|ful|ic|it|ct|ar|ick|ng)ly$")


_CLAUSE_DETERMINERS = {"the", "a", "an", "its", "their", "this", "these", "those", "each"}
# after these a determiner opens the phrase's own complement ("inside *the* pipeline")
_PLACING_WORDS = PREPOSITIONS | {"inside", "within", "into", "over", "under", "through", "across"}


_MEASURE_ADJECTIVES = {"wide", "long", "tall", "deep", "high", "big", "large", "old", "thick"}


def _phrase_after(words: list[str], counted: bool = False) -> list[str]:
    """The noun phrase opening `words`; `counted`: its first word is the noun a "how
    many" counts, whatever else it could be ("how many *points* does R-free give")."""
    phrase: list[str] = []
    for index, word in enumerate(words[:8]):
        bare = word.strip("?,.;:()'\"").lower()
        if counted and index == 0:
            phrase.append(bare)
            continue
        if counted and bare in _MEASURE_ADJECTIVES:
            break  # "how many characters *wide* is the window": what is measured, no noun
        if _ADVERB.fullmatch(bare):
            continue  # "which program *deliberately* has no …"
        if (
            bare in _CLAUSE_DETERMINERS
            and any(w not in STOPWORDS for w in phrase)
            and phrase[-1] not in _PLACING_WORDS
        ):
            break  # "the number of tasks *the* agent allows": a reduced relative clause
        if index == 0 and bare.endswith(("'s", "’s")) and len(bare) > 2:
            phrase.append(bare[:-2])  # "which *tool's* output": a tool is asked for
            break
        # A participle ("tasks *allowed* in") ends the noun phrase like a verb does.
        if (
            bare in _VERBS
            or _participle(bare)
            or (phrase and _verb_before_object(bare, words[index + 1 : index + 2]))
            or (counted and _plural_subjects_verb(phrase, bare, words[index + 1 : index + 2]))
        ):
            if phrase:
                break
            continue
        phrase.append(bare)
    return phrase


_QUANTITY_WH = {"how many", "how much", "how long"}
_AUXILIARIES = {
    "will", "would", "does", "do", "did", "must", "should", "can", "could", "may", "is", "are"
}  # fmt: skip


_MEASURE_OF = {"size", "amount", "length", "duration"}
_MEASURE_STEMS = {stem(word) for word in _MEASURE_OF}


def _measure_of(words: list[str]) -> bool:
    """Whether a measure word is followed at once by "of" ("the size of X"); "the size in
    MB of X" asks the size itself, in a unit a passage must write."""
    bare = [w.strip("?,.;:()'\"").lower() for w in words]
    return any(a in _MEASURE_OF and b == "of" for a, b in pairwise(bare))


def _owned_part(phrase: list[str]) -> list[str]:
    """The words after the phrase's last possessive: what is asked is the thing owned
    ("synthesis retry limit"), and the owner ("the deep-research agent") is a name the
    passages must write anyway (`key_entities`)."""
    owner = max((i for i, w in enumerate(phrase[:-1]) if re.search(r"['’]s$", w)), default=-1)
    return phrase[owner + 1 :]


# "what command-line parameter": where the parameter is given, as "environment variable"
# says where a setting is; passages show the command (`tool key=2`), seldom the words
_COMMAND_LINE = re.compile(r"\bcommand[- ]line\b", re.IGNORECASE)


def _focus(clause: str) -> list[str]:
    """Subject words of the noun phrase the wh-word asks about ("the default *port*").

    Words naming the answer's kind ("which *model*") and verbs are left out; when the
    phrase is only generic ("what is the default value of X"), X's words are the focus.
    """
    asking = _COMMAND_LINE.sub("command", asking_part(clause))
    match = _WH.search(asking)
    if not match:
        return []
    words = re.split(r"\s+", asking[match.end() :].strip())
    if match.group(0).lower() in _QUANTITY_WH and words[0].lower() in _AUXILIARIES:
        return []  # "how long will DocuChat wait": a quantity of what its subject does
    if len(words) > 2 and words[0].lower() in _MEASURE_OF and words[1].lower() == "of":
        words = words[2:]  # "what size of buffer": how big the buffer is; a "chunk size" is named
    phrase = _phrase_after(words, counted=match.group(0).lower() in ("how many", "how much"))
    owned = _owned_part(phrase)  # "the deep-research agent's synthesis retry limit"
    terms = [t for t in content_terms(" ".join(owned)) if t not in _FOCUS_STOP | _KIND_NOUNS]
    if not terms:  # "the agent's value": the owner is all the phrase names
        terms = [t for t in content_terms(" ".join(phrase)) if t not in _FOCUS_STOP | _KIND_NOUNS]
    if terms and set(terms) <= _MEASURE_STEMS and _measure_of(words):
        terms = []  # "what is the size of the retry buffer": how big the buffer is
    if not terms:
        rest = " ".join(words)
        of = re.search(r"\b(?:of|for)\s+(.+)$", rest)
        if of:
            after = _phrase_after(re.split(r"\s+", of.group(1)))
            terms = [
                t for t in content_terms(" ".join(after)) if t not in _FOCUS_STOP | _KIND_NOUNS
            ][-3:]  # "of X's Y": the head noun comes last
    return terms[:3]


_WHICH = re.compile(r"\b(which|what)\s+", re.IGNORECASE)
_RELATIVE = {"whose", "that", "which", "who", "whom", "where", "when"}
_KIND_OF = {"kind", "type", "sort"}


# Words that are nouns as often as verbs; right after "which", a preposition that
# places them ("which set in ai_agent.py") makes them the noun asked for ("which set of
# programs" asks for the programs)
_NOUN_OR_VERB = {"set", "list", "run", "map", "check", "test", "call", "step"}
_PLACE_PREPOSITIONS = {"in", "inside", "within", "from"}


def _next_is(words: list[str], index: int, allowed: set[str]) -> bool:
    following = words[index + 1 : index + 2]
    return bool(following) and following[0].strip("?,.;:()'\"").lower() in allowed


def head_noun(clause: str) -> str:
    """The noun right after "which"/"what" ("which MANDATORY *tool*", "which plan
    *template*", "what kind of *tool*"), stemmed; '' when a verb follows ("what is")."""
    clause = asking_part(clause)
    match = _WHICH.search(clause)
    if not match:
        return ""
    phrase: list[str] = []
    words = clause[match.end() :].split()
    for index, word in enumerate(words[:5]):
        bare = word.strip("?,.;:()'\"").lower()
        if phrase and word.startswith("("):
            break  # "which LLM (model name) does …": an aside after the noun asked for
        if bare == "of" and phrase and phrase[-1] in _KIND_OF:
            phrase = []
            continue
        if index == 0 and bare.endswith(("'s", "’s")) and bare[:-2].isalpha():
            phrase.append(bare[:-2])  # "which *tool's* output": the tool is asked for
            break
        # "which done_tracking *strategy*": a code name may modify the noun asked for
        if not bare.replace("-", "").replace("_", "").isalpha():
            break
        if bare in _NOUN_OR_VERB and not phrase and _next_is(words, index, _PLACE_PREPOSITIONS):
            phrase.append(bare)  # "which *set* in ai_agent.py clears it": a noun, placed
            continue
        if bare in _VERBS or bare in STOPWORDS:
            break
        if phrase and _verb_before_object(bare, words[index + 1 : index + 2]):
            break  # "which rule *strips* every key": the rule is asked for
        if phrase and _verb_by_agreement(phrase[-1], bare, words[index + 1 : index + 8]):
            break  # "which endpoint *streams* real-time updates": the endpoint is asked for
        if phrase and _participle(bare):
            break  # "which version *introduced* X": a verb in the past
        if bare in _RELATIVE or _ADVERB.fullmatch(bare):
            break  # "which programs *whose* …", "which program *deliberately* …"
        phrase.append(bare)
        if word.endswith((",", ";", ":")):
            break  # "which programs, of ...": punctuation ends the noun phrase
    # "which cross-encoder *model*": a hyphenated word modifies, the last word heads; a
    # code name alone ("which done_tracking is …") names no kind of thing
    if not phrase or "_" in phrase[-1]:
        return ""
    return stem(phrase[-1].rsplit("-", 1)[-1])


# "Name the test file that …", "Give the flag …": an imperative asks like "which"
_IMPERATIVE = re.compile(r"^\s*(?:please\s+)?(?:name|give|state|identify)\s+the\s+", re.IGNORECASE)
# "List the file extensions …" asks for a list (its kind) of extensions (its head)
_LIST_IMPERATIVE = re.compile(r"^\s*(?:please\s+)?list\s+(?:all\s+)?(?:of\s+)?the\s+", re.I)


# "Where is the X mapping defined?", "where in the codebase is the knowledge base
# stored?": a file or path
_WHERE_FILE = re.compile(
    r"^\s*where\s+(?:(?:in|within|inside)\s+[^?]*?\s+)?(?:is|are|was|were)\b[^?]*\b"
    r"(?:defined|declared|implemented|stored|kept|saved|located|written)\b",
    re.IGNORECASE,
)


# "… easy cases like 'how many cells'": a quoted question asks nothing of the answer
_QUOTED_EXAMPLE = re.compile(
    r"(?<!\w)['‘\"“](?=[^'’\"”\n]*\b(?:how|what|which|who|when|where|why)\b)"
    r"[^'’\"”\n]{2,60}['’\"”](?!\w)",
    re.IGNORECASE,
)


_ANY_ASKING = re.compile(
    r"\b(?:what|which|how|who|whom|whose|where|when|why|name|give|state|identify|list)\b",
    re.IGNORECASE,
)


def _as_asked(question: str) -> str:
    """A terse query ("TODO_MAX_ITEMS?", "qa_memory hit threshold in the planner?") asks
    what the thing it names is: read it as "What is <it>?"."""
    if _ANY_ASKING.search(question) or _YES_NO.match(question.strip()):
        return question
    bare = question.strip().rstrip("?").strip()
    if not bare:
        return question
    if re.fullmatch(r"[A-Za-z_][\w.]*", bare) and ("_" in bare or "." in bare):
        return f"What is the default value of {bare}?"  # a setting named alone: its value
    return f"What is the {bare}?"


# "what is the name of the X file": the file is asked for, named
_NAME_OF = re.compile(
    r"\bwhat(?:\s+is|\s+was|'s)?\s+the\s+(?:exact\s+)?name\s+of\s+(?:the|a|an|its)\s+"
    rf"(?=(?:[\w-]+\s+){{0,3}}(?:{_IDENTIFIER_NOUNS})\b)",
    re.IGNORECASE,
)


# "What is the equivalent command-line keyword for X?" asks which keyword, as "which" does
# ("the name of the crawler" or "the type of X" asks about X, not for a kind of name)
_NAMED_KINDS = "|".join(
    n for n in _IDENTIFIER_NOUNS.split("|") if n not in {"name", "type", "value name"}
)
_WHAT_IS_THE_THING = re.compile(
    r"\bwhat\s+(?:is|was)\s+the\s+"
    rf"(?=(?:[\w-]+\s+){{0,2}}(?:{_NAMED_KINDS})\s+(?:for|in|of|that|which|to)\b)",
    re.IGNORECASE,
)


# "(e.g., what Single_Cell_Cropper_Tool depends on)": an example of what is asked about,
# whose names are neither the asked thing nor the answer's kind
_EXAMPLE_ASIDE = re.compile(
    r"\s*\((?:e\.g\.|eg\b|for example|for instance|such as)[^()]*\)", re.IGNORECASE
)


def without_examples(question: str) -> str:
    """The question less its parenthesised examples."""
    return _EXAMPLE_ASIDE.sub("", question)


def expect(question: str) -> Expectation:
    """The expected answer type of a question (rules; the first match wins)."""
    question = without_examples(question)
    if _WHERE_FILE.search(asking_part(main_clause(question))):
        return Expectation("identifier", _focus(main_clause(question)), False, "file")
    question = re.sub(r"\bwhat['’]s\b", "what is", question, flags=re.IGNORECASE)
    question = _QUOTED_EXAMPLE.sub("that", question)
    question = _as_asked(question)
    question = _DATA_TYPE.sub(r"\1 type", question)  # "data" is the kind, not the subject
    clause = _IMPERATIVE.sub("Which ", main_clause(question))
    clause = _NAME_OF.sub("which ", clause)  # "what is the name of the report file"
    clause = _WHAT_IS_THE_THING.sub("which ", clause)
    unset = bool(_UNSET.search(question))
    if _CONDITION_FIRST.match(clause):  # "When my advice says how many copies …, which
        asked = asking_part(clause)  # parameter receives that number?": a name; "If X
        # is at its default, how many …": the default applies to what is asked
        unset = unset or bool(re.search(r"\bdefault\b", clause[: -len(asked) or None], re.I))
        clause = asked
    head = head_noun(_LIST_IMPERATIVE.sub("Which ", clause))
    kind, focus, asks_default = _classify_answer(clause, head, unset)
    if not head and _FILE_NAME.search(clause):  # "what is that archive's file name?"
        return Expectation("identifier", focus, asks_default, "file")
    if _WHAT_PRIORITY.search(clause):  # "what priority does the template have": its value
        return Expectation("number", focus, asks_default, head)
    if not head and _UNTIL_WHEN.search(clause):  # "until when was X inert?": a date
        return Expectation("phrase", focus, asks_default, "date")
    if not head and _SET_TO.search(clause):  # "what does it set hitl_iteration to?":
        return Expectation("default", focus, asks_default, head)  # a value of any form
    if not head and _WHEN_PAST.search(asking_part(clause)):  # "when was X done?"
        return Expectation("phrase", focus, asks_default, WHEN)
    return Expectation(kind, focus, asks_default, head)


# "what data type does it use for step_id": a type, whose focus is step_id, not "data"
_DATA_TYPE = re.compile(r"\b(what|which)\s+(?:data|value)\s+type\b", re.IGNORECASE)
# "What does that node set hitl_iteration to?", "what is MAX_X set to": the value bound
# to a setting, a number as well as a name
_SET_TO = re.compile(r"\bwhat\b[^?]*\bset\s+`?[\w.]+`?\s+to\s*\??$|\bwhat\b[^?]*\bset\s+to\s*\??$",
                     re.IGNORECASE)  # fmt: skip


# "When was Phase 1 done?", "when did the crawler switch?": a past event, told by the
# date or the release it happened in ("2025-01", "v112"); "when does X stop?" asks for
# a condition
_WHEN_PAST = re.compile(r"^\W*when\s+(?:was|were|did)\b", re.IGNORECASE)
WHEN = "when"  # Expectation.head of a past event's time


# "Until when was the channel inert?", "since when …", "by when …": a point in time,
# read as a date is ("on what date")
_UNTIL_WHEN = re.compile(r"\b(?:until|till|since|by|from)\s+when\b", re.IGNORECASE)


# "what priority does X have" asks the configured value; "which priority is it mapped
# to" picks one of the named levels
_WHAT_PRIORITY = re.compile(r"\bwhat\s+(?:[\w-]+\s+)?priority\b", re.IGNORECASE)
# "X's file name", "the filename of X": a file is asked for (not "a file-name pattern")
_FILE_NAME = re.compile(
    r"\b(?:what|which)\b.*\b(?:file[ _]?name|filename)s?\b"
    r"(?!\s*(?:pattern|prefix|suffix|convention|format|template|extension))",
    re.IGNORECASE,
)


# "If I leave `provider` unset, which backend…", "when no model is given": what applies
# then is the default, though the question never says the word
_UNSET = re.compile(
    rf"\b{LEFT}\s+(?:\S+\s+){{0,4}}?(?:unset|blank|empty|unspecified|{AS_IS})\b"
    r"|\b(?:do not|don't|never|without)\s+(?:set|setting|specify|specifying|pass|passing|"
    r"change|changing|touch|touching|modify|modifying|override|overriding)\b"
    r"|\bis(?:n't| not)\s+(?:set|specified|given)\b"
    r"|\bif\s+(?:no|none)\b(?=[^,?]*\b(?:set|given)\b)"
    # "if my prompt says nothing about how many searches": what is assumed unasked
    r"|\b(?:says?|mentions?|states?)\s+nothing\s+(?:about|of|on)\b"
    r"|\b(?:does not|doesn't|do not|don't)\s+(?:say|mention|state)\b"
    r"|\bis\s+silent\s+(?:about|on)\b",
    re.IGNORECASE,
)


_THING_HEADS = {stem(n) for n in _IDENTIFIER_NOUNS.split("|") if " " not in n} - {"valu"}
# Nouns of named things a question may point back at ("that same program"): a bridge
# of one of these kinds is a name, not a phrase
NAMED_THINGS = _THING_HEADS | {
    stem(n) for n in ("model", "program", "provider", "package", "library", "database", "tool")
}


def _names_a_thing(clause: str, head: str) -> bool:
    """ "Which *test* covers the page limit": the asked noun is a named thing, so a
    quantity word later in the clause does not make the answer a number."""
    if head not in _THING_HEADS or _STRONG_NUMBER_Q.search(clause):
        return False
    # "below what parameter count", "which token limit": the thing only qualifies the
    # quantity asked for
    return not re.search(rf"\b{re.escape(head)}\w*[ -](?:{QUANTITY_NOUNS})\b", clause, re.I)


# "which residues does the estimator count": after "does <subject>" a quantity word is
# the verb, and the wh-word asks for the things it counts
_QUANTITY_VERB = re.compile(
    r"\b(?:which|what)\s+[a-z_-]+\s+(?:does|do|did)\b[^?,;]*\b(?:count|limit|score|rank)\b"
    r"(?!\s+(?:of|is|are|was|were)\b)",
    re.IGNORECASE,
)


_QUANTITY_HEADS = {stem(noun) for noun in QUANTITY_NOUNS.split("|")}


def _counts_the_things_asked(clause: str, head: str) -> bool:
    """ "Which residues does X count": the answer names residues, it is not a number."""
    return (
        bool(head)
        and head not in _QUANTITY_HEADS
        and not _STRONG_NUMBER_Q.search(clause)
        and bool(_QUANTITY_VERB.search(clause))
    )


# "which level is that value mapped to", "what is X converted into": the value a
# mapping gives (a passage writes it after "mapped to", never before)
MAPPING = r"(?:mapped|maps|converted|converts|translated|translates|coerced|normali[sz]ed)"
ASKS_MAPPED_TARGET = re.compile(rf"\b{MAPPING}\s+(?:in)?to\b", re.IGNORECASE)


# "where in planner.py is X?": a place in a source file, which its line numbers give
WHERE_IN_SOURCE = r"\bwhere\s+in\s+`?[\w/-]+\.(?:py|js|ts|java|c|cpp|go|rs|rb|sh)\b"
# "at which lines of planner.py does X live?", "what line in crawl.py sets it?": line
# numbers, not a line's text
_LINES_OF_A_FILE = re.compile(
    r"\b(?:at|on)\s+(?:which|what)\s+lines?\b|\b(?:which|what)\s+lines?\s+(?:of|in)\s+"
    rf"`?[\w/-]+\.\w+|{WHERE_IN_SOURCE}",
    re.IGNORECASE,
)


# a value accepted in place of another is a word, not a number
_ALIAS = re.compile(r"\b(?:alias|aliases|synonyms?|alternative spellings?)\b", re.IGNORECASE)


def _classify_answer(
    clause: str, head: str, unset: bool = False
) -> tuple[AnswerType, list[str], bool]:
    # Neither "which level is *that default* value mapped to" (it points back at a
    # default named before) nor "the depth the GUI uses by default is translated to
    # which level" asks for a default: both ask what a default becomes
    # "the provider that the GUI uses by default": the default names another thing
    own = re.sub(DEFAULT_CLAUSE, " ", clause, flags=re.IGNORECASE)
    asks_default = unset or (
        # "falls back to *a default* plan": a thing of that name, not a default asked for
        bool(re.search(r"(?<!\bthat )(?<!\bthis )(?<!\ba )\bdefault\b", own, re.IGNORECASE))
        and not ASKS_MAPPED_TARGET.search(clause)
    )
    yes_no = _YES_NO.match(clause)
    if yes_no:  # "When I inspect X, do I …?": the leading phrase asks for nothing
        return "yes_no", _focus(clause[yes_no.start(1) :]), asks_default
    focus = _focus(clause)
    if _MANNER.search(clause):
        return "manner", focus, asks_default
    if _LINES_OF_A_FILE.search(clause):  # "at which lines of planner.py …": numbers
        return "number", focus, asks_default
    if _LIST_Q.search(clause):
        return "list", focus, asks_default
    if asks_default and not _STRONG_NUMBER_Q.search(clause):
        return "default", focus, True  # a default may be a name or a value
    if _ALIAS.search(clause) and not _STRONG_NUMBER_Q.search(clause):
        return "identifier", focus, asks_default  # "what value … as an alias for verbose"
    if (
        _NUMBER_Q.search(clause)
        and not _names_a_thing(clause, head)
        and not _counts_the_things_asked(clause, head)
    ):
        return "number", focus, asks_default
    if _NAME_Q.search(clause):
        return "name", focus, asks_default
    if _IDENTIFIER_Q.search(clause):
        return "identifier", focus, asks_default
    if asks_default:
        return "default", focus, True
    return "phrase", focus, asks_default
