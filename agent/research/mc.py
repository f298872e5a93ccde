"""Multiple-choice selection over the gathered evidence (legal-RAG seed, node 7).

Rules-only: an option is supported by a passage sentence that states it verbatim
close to the question's own words (entailment-like overlap: the question's rare
terms within a window around the option), with embedding similarity of question +
option to the best evidence as the tie-breaker. Options the question itself states
("criterion is < 0.35") are premises, so their occurrences count only where the
window holds more than the premise. "Which is NOT ..." questions pick the least
supported option.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from agentcycle.agent.research.answer_type import Expectation, asking_part, expect, main_clause
from agentcycle.agent.research.clean import (
    cells,
    clean_inline,
    header_for,
    is_table_row,
    label_above,
)
from agentcycle.agent.research.explicit_value import asked_unit, code_names_in, counts_another_noun
from agentcycle.agent.research.superlative import asked_extreme, extreme_option
from agentcycle.agent.research.synthesize import Scored
from agentcycle.agent.research.text import (
    ARROW,
    STOPWORDS,
    Vocabulary,
    content_terms,
    find_name,
    normalise,
    present_terms,
    stem,
    term_set,
    tokens,
    yaml_records,
)

WINDOW_CHARS = 80
OTHER_COUNT = 0.6  # weight of "3 queries" as support for 3 when passages are counted
BARE_NUMBER = 0.85  # weight of "120" found alone as support for the option "120 seconds"
ANSWERED = 0.5  # the option the open answer names: its span was extracted for the question
ORDERED = 0.5  # the option a passage numbers highest (lowest) when that is what is asked
BOUND_OPTION = 0.4  # the one option a passage binds to a name the question writes
# the one option a passage binds to the number the question writes ("sharpened=90"): as
# sure as a stated fact, above an open answer read without the options
BOUND_VALUE = 0.6
NEIGHBOUR = 0.6  # the one option an arrow chain puts right after (before) the named step
DESCRIBED = 0.6  # the one option whose own gloss holds the question's words
NAMED_CELL = 1.0  # the option a table row holds under the column the question names
NAMED_CELL_ROWS = 5  # the question's best units read for it
NAMED_ITEM = 0.4  # the one option a list item holds whose own label the question writes
SUBJECT_ITEM = 0.3  # the one option whose list item names the question's code names
BOUND_UNITS = 5  # the question's best units read for it: "verbosity = normal" further down
# is some config's default, not the asked event's verbosity


def _occurrences(option: str, text: str) -> list[int]:
    needle = normalise(option)
    if not needle:
        return []
    pattern = re.compile(r"(?<![\w.])" + re.escape(needle) + r"(?![\w])")
    return [m.start() for m in pattern.finditer(text)]


_LEADING_NUMBER = re.compile(r"[<>≤≥~]?\s*(\d+(?:\.\d+)?)\b")


NAMESPACED = 0.9  # weight of "map_to_model" found alone for the option "phenix.map_to_model"


def shared_namespace(choices: dict[str, str]) -> str:
    """The dotted prefix every option starts with ("phenix."), or ''. A table that lists
    the programs of one suite often drops it, so the rest of the name finds the option."""
    options = [o.strip(" `'\"") for o in choices.values()]
    heads = {o.split(".", 1)[0] + "." for o in options if "." in o[1:]}
    if len(options) < 2 or len(heads) != 1 or not next(iter(heads))[0].isalpha():
        return ""
    prefix = heads.pop()
    return prefix if all(o.startswith(prefix) and len(o) > len(prefix) + 2 for o in options) else ""


def _needles(option: str, namespace: str = "") -> list[tuple[str, float]]:
    """(text to find, weight): the option itself, and for "120 seconds" or "40 points"
    its number alone, a little weaker ("'120') # 2 min" states 120 seconds too); with a
    namespace all options share, the name without it."""
    found = [(option, 1.0)]
    bare = option.strip(" `'\"")
    if namespace and bare.startswith(namespace):
        found.append((bare[len(namespace) :], NAMESPACED))
    match = _LEADING_NUMBER.match(option.strip())
    if match and match.end() < len(option.strip()):
        found.append((match.group(1), BARE_NUMBER))
    if _DECIMAL.fullmatch(option.strip()):  # "0.60" is written "0.6", and "0.6" "0.60"
        found += [(form, 1.0) for form in _decimal_forms(option.strip()) if form != option]
    found += [(form, BOUND_FORM) for form in _bound_forms(option)]
    return found


BOUND_FORM = 0.9  # weight of "≥ 6 characters" found for the option "6 or more characters"
_AT_LEAST = re.compile(
    r"\b(?:(\d+(?:\.\d+)?)\s+or\s+more|at\s+least\s+(\d+(?:\.\d+)?))\s+(\w+)", re.IGNORECASE
)
_AT_MOST = re.compile(
    r"\b(?:(\d+(?:\.\d+)?)\s+or\s+(?:fewer|less)|at\s+most\s+(\d+(?:\.\d+)?))\s+(\w+)",
    re.IGNORECASE,
)


_AT_LEAST_FORMS = ("≥ {n} {noun}", "≥{n} {noun}", ">= {n} {noun}", "{n}+ {noun}")
_AT_MOST_FORMS = ("≤ {n} {noun}", "≤{n} {noun}", "<= {n} {noun}")


def _bound_forms(option: str) -> list[str]:
    """The ways a bound in an option is written with a sign: "6 or more characters" and
    "at least 6 characters" are "≥ 6 characters" (or ">= 6", "6+"), "at most 3 retries"
    is "≤ 3 retries"."""
    forms = []
    for pattern, templates in ((_AT_LEAST, _AT_LEAST_FORMS), (_AT_MOST, _AT_MOST_FORMS)):
        for match in pattern.finditer(option):
            number, noun = match.group(1) or match.group(2), match.group(3)
            forms += [template.format(n=number, noun=noun) for template in templates]
    return forms


_DECIMAL = re.compile(r"\d+\.\d+")


def _decimal_forms(number: str) -> list[str]:
    """The ways a decimal fraction is written: without trailing zeros and with one
    ("1.0" is left alone: a bare 1 states too many other things)."""
    bare = number.rstrip("0").rstrip(".")
    return [bare, f"{bare}0"] if "." in bare else []


PARAPHRASED = 0.8  # weight of an option whose every word a unit states, in its own wording
# "the first step" is "step 1": an ordinal and its number are the same word for an option
_ORDINALS = {
    "first": "1", "second": "2", "third": "3", "fourth": "4", "fifth": "5", "sixth": "6",
    "seventh": "7", "eighth": "8", "ninth": "9", "tenth": "10",
}  # fmt: skip


def _closeness(terms: list[str], text: str, vocabulary: Vocabulary, total: float) -> float:
    """The share of the question's weight (IDF) that a text around an option holds."""
    return sum(vocabulary.idf(t) for t in present_terms(terms, text)) / total


@lru_cache(maxsize=64)
def _option_words(option: str) -> frozenset[str]:
    """A phrase option's content words, an ordinal as its number; none for an option of
    one word or with a number (it needs its own text). Cached: `_mc_units` tests each
    option against every unit below the question's best."""
    wanted = frozenset(_ORDINALS.get(t, t) for t in content_terms(option))
    return wanted if len(wanted) >= 2 and not any(c.isdigit() for c in option) else frozenset()


def words_option(option: str, text: str) -> bool:
    """Whether a text holds every word of a phrase option in its own wording ("only
    step 1 is kept" for "Only the first step")."""
    wanted = _option_words(option)
    return bool(wanted) and wanted <= {_ORDINALS.get(t, t) for t in term_set(text)}


def _worded_elsewhere(
    option: str,
    units: list[Scored],
    texts: list[str],
    ranks: list[float],
    question_terms: list[str],
    vocabulary: Vocabulary,
    total: float,
) -> tuple[float, str]:
    """Support for a phrase option that no unit writes as such, from the best unit that
    words it (`words_option`), weaker than the option verbatim. A list item ranks as its
    label ("- Action: Return None (signal completion)" under "Rule 2: Counting query
    after segmentation")."""
    best, where = 0.0, ""
    for unit, text, rank in zip(units, texts, ranks, strict=True):
        if words_option(option, text):
            proximity = _closeness(question_terms, text, vocabulary, total)
            value = PARAPHRASED * (0.5 * rank + 0.5 * proximity)
            if value > best:
                best, where = value, unit.text
    return best, where


DISTINCT = 0.5  # weight of a phrase option whose own words a unit states with most of the rest


def _distinctly_worded(
    letter: str, choices: dict[str, str], units: list[Scored], texts: list[str]
) -> tuple[float, str]:
    """Support for a phrase option that differs from the others in a word or two ("The
    *latest* completed stage that lists the program" against "the *earliest* …"): the
    best unit holding those words of its own and most of the words it shares with the
    others ("find the LATEST completed stage"). No unit writes the whole option, and
    every option shares the rest, so the words it alone has decide."""
    option = choices[letter]
    words = set(content_terms(option))
    others = set().union(*(content_terms(v) for k, v in choices.items() if k != letter))
    own, shared = words - others, words & others
    if len(words) < 3 or not own or any(c.isdigit() for c in option):
        return 0.0, ""
    for unit, text in zip(units, texts, strict=True):
        held = term_set(text)
        if own <= held and len(shared & held) * 2 >= len(shared):
            return DISTINCT * unit.score, unit.text
    return 0.0, ""


ROW_SAYS_YES = 0.5  # an option whose table row says Yes in the column the question names
_YES_CELL = {"yes", "true", "✓", "✔", "✅", "y"}
_NO_CELL = {"no", "false", "✗", "✘", "❌", "n"}


def flagged_rows(
    objective: str, choices: dict[str, str], units: list[Scored]
) -> dict[str, tuple[bool, str]]:
    """{letter: (the cell says yes, the row)} for options that key a table row whose
    Yes/No column the question names ("which done flag does NOT use the any-PDB
    fallback" reads each flag's "Any-PDB fallback" cell). Given only when two or more
    options have such a row: then the table itself compares them."""
    asked = term_set(objective)
    keys = {normalise(clean_inline(v)).strip(" `"): k for k, v in choices.items()}
    found: dict[str, tuple[bool, str]] = {}
    for unit in units:
        if not is_table_row(unit.text):
            continue
        raw = cells(unit.text)
        letter = keys.get(normalise(clean_inline(raw[0])).strip(" `")) if raw else None
        header = header_for(unit.text, unit.evidence.table_text)
        if letter is None or letter in found or len(header) != len(raw):
            continue
        for title, cell in zip(header[1:], raw[1:], strict=True):
            words = content_terms(title)
            value = clean_inline(cell).strip().lower()
            if words and set(words) <= asked and value in _YES_CELL | _NO_CELL:
                found[letter] = (value in _YES_CELL, unit.text)
                break
    return found if len(found) >= 2 else {}


def matches_answer(option: str, answer: str, question: str = "") -> bool:
    """Whether the open answer to the question names this option: the same text, the
    same text once the option's words the question writes are set aside ("C" names
    "Rule C" for "which rule …"), or the same leading number ("120" for "120 seconds")."""
    said, offered = normalise(answer).strip(" .`'\""), normalise(option).strip(" .`'\"")
    if not said or not offered:
        return False
    if said == offered:
        return True
    asked = term_set(question)
    own = [w for w in offered.split() if len(w) < 3 or not term_set(w) <= asked]
    if own and len(own) < len(offered.split()) and " ".join(own) == said:
        return True
    said_number, offered_number = _LEADING_NUMBER.match(said), _LEADING_NUMBER.match(offered)
    if not (said_number and offered_number and said_number.group(1) == offered_number.group(1)):
        return False
    said_unit, offered_unit = said[said_number.end() :], offered[offered_number.end() :]
    # "120" names "120 seconds" and "40 pts" names "40"; "120 tokens" is not "120 s"
    return not said_unit.strip() or not offered_unit.strip() or (
        content_terms(said_unit) == content_terms(offered_unit)
    )


def option_named(option: str, normalised_text: str, namespace: str = "") -> bool:
    """Whether a text (already `normalise`d) states the option, or the bare number of
    "120 seconds"; with the `namespace` all options share, also the name without it."""
    return any(
        _occurrences(needle, normalised_text) for needle, _ in _needles(option, namespace)
    )


def score_options(
    objective: str,
    choices: dict[str, str],
    units: list[Scored],
    vocabulary: Vocabulary,
    similarity: Callable[[str, list[str]], list[float]] | None = None,
    answer: str = "",
    passages: Iterable[str] = (),
) -> tuple[dict[str, float], dict[str, str]]:
    """Support per option letter (0..~1.4) and a one-line reason per option.

    `answer`: the rules' open answer to the question (no options shown); the one option
    it names gets `ANSWERED` more. `passages`: the texts read, where a YAML key that
    is an option ("sad_phasing:") describes it with the block under it."""
    terms = content_terms(objective)
    total = sum(vocabulary.idf(t) for t in terms) or 1.0
    counted = asked_unit(objective)
    scores: dict[str, float] = {}
    reasons: dict[str, str] = {}
    answered = [k for k, v in choices.items() if matches_answer(v, answer, objective)]
    flags = flagged_rows(objective, choices, units)
    texts = [normalise(unit.text) for unit in units]  # once, not once per option
    # "**Keywords that indicate simple counting:**" above a list says what its items are
    labels = [normalise(label_above(unit.text, unit.evidence.text)) for unit in units]
    # an item under a label continues the label's sentence: it ranks as well as its label
    ranked_as = _ranked_with_label(units, texts, labels)
    namespace = shared_namespace(choices)
    for letter, option in choices.items():
        option_terms = set(content_terms(option))
        # "all 3 queries" is weak support for 3 when the question counts passages
        other_counts = bool(counted) and option.strip().replace(".", "").isdigit()
        window_terms = [t for t in terms if t not in option_terms]
        best, where = 0.0, ""
        for unit, text, label, rank in zip(units, texts, labels, ranked_as, strict=True):
            for needle, weight in _needles(option, namespace):
                length = len(normalise(needle))
                for position in _occurrences(needle, text):
                    start, end = max(0, position - WINDOW_CHARS), position + length + WINDOW_CHARS
                    window = f"{label}\n{text[start:end]}"
                    proximity = _closeness(window_terms, window, vocabulary, total)
                    value = weight * (0.5 * rank + 0.5 * proximity)
                    if other_counts and counts_another_noun(text, position + length, counted):
                        value *= OTHER_COUNT
                    if value > best:
                        best, where = value, unit.text
        if best == 0.0:  # "Only the first step": a phrase the evidence words otherwise
            best, where = _worded_elsewhere(
                option, units, texts, ranked_as, window_terms, vocabulary, total
            )
        if best == 0.0:  # "The latest completed stage …" against "the earliest …"
            best, where = _distinctly_worded(letter, choices, units, texts)
        if answered == [letter]:  # only when the open answer names one option
            best += ANSWERED
        if letter in flags:  # the option's row answers the question's yes/no column
            best = best + ROW_SAYS_YES if flags[letter][0] else 0.0
            where = flags[letter][1]
        scores[letter] = best
        if where:
            reasons[letter] = f"stated in evidence: {where[:160]!r}"
        elif answered == [letter]:
            reasons[letter] = f"named by the answer found without the options: {answer!r}"
        else:
            reasons[letter] = "not stated in the retrieved evidence"
    unit_texts = [unit.text for unit in units]
    expectation = expect(objective)  # once: the rules below each read it
    # a default is the value a passage marks as the default, not any assignment of it
    if not expectation.asks_default:
        for letter in _bound_options(terms, choices, unit_texts[:BOUND_UNITS]):
            _credit(scores, reasons, letter, BOUND_OPTION, "bound to the question's name")
    for letter in _options_bound_to_value(objective, choices, unit_texts[:BOUND_UNITS]):
        _credit(scores, reasons, letter, BOUND_VALUE, "bound to the question's value")
    neighbour = _neighbouring_option(objective, choices, unit_texts[:BOUND_UNITS])
    if neighbour is not None:
        _credit(scores, reasons, neighbour, NEIGHBOUR, "next to the named step in a sequence")
    headed = [(unit.text, unit.evidence.heading.rsplit(">", 1)[-1]) for unit in units]
    # a YAML key glosses its option with the block under it ("sad_phasing:" over its
    # `applicable_when:` lines), which the line-by-line units split apart
    blocks = dict.fromkeys([*(unit.evidence.text for unit in units), *passages])
    keys = {option.strip().strip("`") for option in choices.values()}
    headed += [(rec, "") for block in blocks for key, rec in yaml_records(block) if key in keys]
    described = _described_option(_predicate_terms(objective, expectation), choices, headed)
    if described is not None:
        _credit(scores, reasons, described, DESCRIBED, "its own description matches")
    rows = [
        (unit.text, header_for(unit.text, unit.evidence.table_text))
        for unit in units
        if is_table_row(unit.text)
    ]
    in_column = _named_column_option(objective, expectation, choices, rows[:NAMED_CELL_ROWS])
    if in_column is not None:
        _credit(scores, reasons, in_column, NAMED_CELL, "in the column the question names")
    subject = _subject_item_option(objective, choices, units)
    if subject is not None:
        why = "its list item names the question's subject"
        _credit(scores, reasons, subject, SUBJECT_ITEM, why)
    labelled = _named_item_option(objective, choices, unit_texts)
    if labelled is not None:
        _credit(scores, reasons, labelled, NAMED_ITEM, "in the list item the question names")
    passages_read = dict.fromkeys(unit.evidence.text for unit in units[:BOUND_UNITS])
    keyed = _keyed_entry_option(objective, choices, list(passages_read))
    if keyed is not None:
        _credit(scores, reasons, keyed, NAMED_ITEM, "on the entry keyed by the question's name")
    combined = _combined_option(choices, list(blocks))  # the units' passages best first
    if combined is not None:  # stated, though no passage writes the option as worded
        scores[combined] += COMBINED
        reasons[combined] = "stated in evidence: one passage writes each of its settings"
    for letter in _contrasted_options(objective, choices, units, texts):
        why = "its passage says what is asked, not the other"
        _credit(scores, reasons, letter, CONTRASTED, why)
    ordered = extreme_option(objective, choices, unit_texts, rows)
    if ordered is not None:
        why = f"numbered {asked_extreme(objective)} among the options"
        _credit(scores, reasons, ordered, ORDERED, why)
    if similarity is not None and units:
        texts = [u.text for u in units[:3]]
        for letter, option in choices.items():
            sims = similarity(f"{objective} {option}", texts)
            scores[letter] += 0.1 * max(sims)
    for letter in _numbers_written(objective, choices):
        scores[letter] *= PREMISE
        reasons[letter] = f"the question writes it, as a premise: {reasons[letter]}"
    return scores, reasons


# a setting written with its value: `use_rules_only=True`, `thinking_level = none`
_ASSIGNMENT = re.compile(r"(?<![\w.])[A-Za-z_][\w.]*\s*=\s*[\w.:-]+")
COMBINED = 0.3  # the one option whose settings a passage writes all of


def _combined_option(choices: dict[str, str], passages: list[str]) -> str | None:
    """The one option combining two settings or more ("use_rules_only=True together
    with thinking_level=none") that a passage writes every setting of, value included:
    a passage on rules-only mode that says "also set `thinking_level=none`" holds the
    combination, where each setting alone is written in many places. The passages are
    read best first, and the first that writes any combination whole decides; None when
    no option combines settings, or that passage writes several whole."""
    combinations = {
        letter: parts
        for letter, option in choices.items()
        if len(parts := [_assigned(p) for p in _ASSIGNMENT.findall(option)]) >= 2
    }
    for text in (_assigned(passage) for passage in passages):
        whole = [
            k for k, parts in combinations.items() if all(_occurrences(p, text) for p in parts)
        ]
        if whole:
            return whole[0] if len(whole) == 1 else None
    return None


def _assigned(text: str) -> str:
    """The text normalised, a setting and its value written without spaces."""
    return re.sub(r"\s*=\s*", "=", normalise(text))


# "If the criterion is r_free "<0.35", what value does the gate use?": the option 0.350
# is the question's own premise, which a passage repeating it supports as well
PREMISE = 0.9
_NUMBER_IN = re.compile(r"(?<![\w.])\d+\.\d+|(?<![\w.])\d+(?![\w.])")


def _numbers_written(objective: str, choices: dict[str, str]) -> list[str]:
    """The letters of the options that are a number the question writes, read as numbers
    ("0.350" for "<0.35"), unless every option is."""
    written = {float(n) for n in _NUMBER_IN.findall(objective)}
    premises = [
        letter
        for letter, option in choices.items()
        if _NUMBER_IN.fullmatch(option.strip()) and float(option.strip()) in written
    ]
    return premises if len(premises) < len(choices) else []


CONTRASTED = 0.5  # an option whose own passage says the asked word, not the ruled-out one
# "severity warning rather than critical", "optional but not mandatory": the asked word
# and the one it is told apart from
_CONTRAST = re.compile(
    r"\b([a-z][\w-]+)\s*,?\s+(?:rather than|instead of|(?:but|and)\s+not|not)\s+([a-z][\w-]+)",
    re.IGNORECASE,
)


def _contrasted_options(
    objective: str, choices: dict[str, str], units: list[Scored], texts: list[str]
) -> list[str]:
    """The options whose best passage (the first unit naming them) says the word the
    question asks for and not the one it rules out ("which code has severity *warning
    rather than critical*": rows "Severity: critical" ×3 and "Severity: warning"),
    given only when some option's passage says the ruled-out word instead: the
    passages then compare the options on that very point."""
    match = _CONTRAST.search(asking_part(main_clause(objective)))
    if match is None:
        return []
    asked, ruled = stem(match.group(1).lower()), stem(match.group(2).lower())
    if asked in STOPWORDS or ruled in STOPWORDS or asked == ruled:
        return []
    says: dict[str, tuple[bool, bool]] = {}
    for letter, option in choices.items():
        for unit, text in zip(units, texts, strict=True):
            if option_named(option, text):
                held = term_set(unit.text) - term_set(option)
                says[letter] = (asked in held, ruled in held)
                break
    chosen = [k for k, (yes, no) in says.items() if yes and not no]
    ruled_out = [k for k, (yes, no) in says.items() if no and not yes]
    return chosen if chosen and ruled_out and len(chosen) < len(choices) else []


def _ranked_with_label(units: list[Scored], texts: list[str], labels: list[str]) -> list[float]:
    """Each unit's score, raised to its label's ("**Keywords that indicate simple
    counting:**" over "- 'count', 'quantity'") when the label is a unit of the same
    chunk: the item alone shares few words with the question its label answers."""
    label_score = {
        (unit.evidence.chunk_id, text.strip(" :")): unit.score
        for unit, text in zip(units, texts, strict=True)
    }
    return [
        max(unit.score, label_score.get((unit.evidence.chunk_id, label.strip(" :")), 0.0))
        if label
        else unit.score
        for unit, label in zip(units, labels, strict=True)
    ]


def _credit(
    scores: dict[str, float], reasons: dict[str, str], letter: str, weight: float, why: str
) -> None:
    """Add `weight` to an option a rule picks, and say why first in its reason."""
    scores[letter] += weight
    reasons[letter] = f"{why}: {reasons[letter]}"


_BOUND_NAME = r"([A-Za-z_][\w.-]*)`?\*{0,2}\s*(?:=|:)\s*`?"


def _bound_options(terms: list[str], choices: dict[str, str], texts: list[str]) -> list[str]:
    """The letters of options a text binds to a name the question writes ("docked=60"
    for "how many points does a docked model get"), when exactly one option is bound, or
    exactly one is bound to a name the question writes whole: a list of such pairs states
    each value for its own name, not for the question's."""
    asked = set(terms)
    shares: dict[str, float] = {}  # per option: the most of a bound name the question writes
    for letter, option in choices.items():
        value = re.escape(option.strip().strip("`"))
        pattern = re.compile(rf"(?<![\w.]){_BOUND_NAME}{value}(?![\w]|\.\d)")
        for text in texts:
            for match in pattern.finditer(text):
                parts = set(content_terms(match.group(1).replace("_", " ")))
                if parts & asked:
                    share = len(parts & asked) / len(parts)
                    shares[letter] = max(shares.get(letter, 0.0), share)
    if len(shares) == 1:
        return list(shares)
    # "sharpened=90, full_map=50" for "a sharpened map": the one name written whole
    whole = [letter for letter, share in shares.items() if share == 1.0]
    return whole if len(whole) == 1 else []


_WRITTEN_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w]|\.\d)")


def _options_bound_to_value(
    question: str, choices: dict[str, str], texts: list[str]
) -> list[str]:
    """The letter of the one option a text binds to a number the question writes
    ("sharpened=90" for "which kind of map gets a stage score of 90"), or none: the
    question gives the value and asks whose it is."""
    numbers = set(_WRITTEN_NUMBER.findall(question))
    if not numbers:
        return []
    values = "|".join(re.escape(n) for n in sorted(numbers))
    bound = []
    for letter, option in choices.items():
        name = re.escape(option.strip().strip("`"))
        pattern = re.compile(
            rf"(?<![\w.]){name}`?\*{{0,2}}\s*(?:=|:)\s*`?(?:{values})(?![\w]|\.\d)"
        )
        if any(pattern.search(text) for text in texts):
            bound.append(letter)
    return bound if len(bound) == 1 else []


# "which state comes right after 'testing'", "what step precedes `plan`": a neighbour in
# a sequence the evidence writes with arrows ("proposed → testing → pending")
_NEIGHBOUR_OF = re.compile(
    r"\b(?:(?:right|immediately|directly|just)\s+)?(?P<side>after|before|follows|precedes)\s+"
    r"(?:the\s+)?['\"`‘“]?(?P<named>[\w.-]+)['\"`’”]?",
    re.IGNORECASE,
)


def _neighbouring_option(question: str, choices: dict[str, str], texts: list[str]) -> str | None:
    """The one option an arrow chain puts right after (or before) the step the question
    names: "pending" for "which state comes right after 'testing'" from "proposed →
    testing → pending"."""
    asked = _NEIGHBOUR_OF.search(question)
    if asked is None:
        return None
    named = re.escape(asked["named"])
    after = asked["side"].lower() in ("after", "follows")
    found = []
    for letter, option in choices.items():
        name = re.escape(option.strip().strip("`'\""))
        first, second = (named, name) if after else (name, named)
        pattern = re.compile(
            rf"(?<![\w.-]){first}`?\s*{ARROW}\s*`?{second}(?![\w-])", re.IGNORECASE
        )
        if any(pattern.search(text) for text in texts):
            found.append(letter)
    return found[0] if len(found) == 1 else None


_WH_PHRASE = re.compile(r"\b(?:which|what)\s+((?:[\w-]+\s+){0,3}?)([\w-]+)\b", re.IGNORECASE)


def _predicate_terms(objective: str, expectation: Expectation) -> list[str]:
    """What the asking clause says of the thing it asks for ("which tool is *recommended
    but not mandatory*"), without the words naming that thing ("which *Analysis Depth
    setting* …", up to the asked noun): the words a gloss of the right option repeats."""
    asking = asking_part(main_clause(objective))
    head = expectation.head
    named: set[str] = set()
    for match in _WH_PHRASE.finditer(asking):
        words = content_terms(match.group(0))
        if head and head in words:
            named = set(words[: words.index(head) + 1])
            break
    # question words count: "recommended" asks nothing here, it is what is said
    said = [stem(t) for t in tokens(asking) if len(t) > 1 and t not in STOPWORDS]
    return [t for t in dict.fromkeys(said) if t not in named]


def _described_option(
    terms: list[str], choices: dict[str, str], units: list[tuple[str, str]]
) -> str | None:
    """The letter of the option whose own gloss holds the most of the question's words,
    at least two and more than any other option's: in a list glossing each option,
    closeness alone ties them. `units` are (text, last heading) pairs.

    A gloss is what a text writes right after the option: in parentheses ("`pivot`
    (agent wants to try a different approach)"), after a colon, as a code comment
    ("planner.py  # Plan generation (2-5 steps)", also past an assignment: 'RETRY =
    "retry"  # Sent again'), or the rest of the clause the option opens ("`anthropic`
    has no native embeddings endpoint"). A heading naming the option glosses it with the
    whole unit under it ("### replanner_node" over "Only fires for multi_hop queries").
    A table row's other cells are no gloss: rows of one table share their words
    ("X-ray, has search model" against "X-ray (no search model)"), so they tie or
    mislead."""
    asked = set(terms)
    best: dict[str, int] = {}
    for letter, option in choices.items():
        name = re.escape(option.strip().strip("`"))
        # a comment glosses a file or name on its line, not a value ("= 3  # per call")
        valued = any(c.isdigit() for c in option)
        # ('REPROMPT = "reprompt"  # Correction sent'): past the name's own assignment
        comment = r"|(?:\s*=\s*[^#\n=]{1,40}?)?\s#\s*([^\n#├└│]{3,160})" if not valued else ""
        # the subject opening a clause (after a label, a cell border or a list marker);
        # a number there counts something ("3 queries run") and is no subject
        clause = (
            rf"|(?:^|[.:;|]\**\s|^\s*[-*]\s)[\s`\"'*]*{name}"
            rf"[`\"'*]*[ \t]+([a-z][^.;:()\n`]{{3,160}})"
            if not valued
            else ""
        )
        # "`pivot` (agent wants …)", "`force_retry` (v120): re-runs …",
        # '"phenix.autosol": {"prefer": "anomalous_intensity"',
        # "`anthropic` has no native …" (a clause in lower case, up to its end)
        gloss = re.compile(
            rf"(?<![\w.]){name}[`\"'*]*\s*(?:\(([^()]{{2,160}})\)(?::\s*([^\n}}]{{3,160}}))?"
            rf"|:\s*([^\n}}]{{3,160}})"
            rf"{comment}){clause}"
        )
        # only a name heads its section: "Local execution" over a unit is no gloss of "local"
        is_name = re.search(r"[_.]|[a-z][A-Z]", option) is not None
        heading_names = re.compile(rf"(?<![\w.]){name}(?![\w])")
        for text, heading in units:
            # "`force_retry` (v120): re-runs …": a parenthesis and the colon's gloss after it
            glosses = [" ".join(g for g in m.groups() if g) for m in gloss.finditer(text)]
            if is_name and heading_names.search(heading):
                glosses.append(f"{heading} {text}")
            for said in glosses:
                held = len(asked & term_set(said.replace("_", " ")))
                best[letter] = max(best.get(letter, 0), held)
    ranked = sorted(best.items(), key=lambda item: item[1], reverse=True)
    if not ranked or ranked[0][1] < 2 or (len(ranked) > 1 and ranked[1][1] >= ranked[0][1]):
        return None
    return ranked[0][0]


def _named_column_option(
    objective: str,
    expectation: Expectation,
    choices: dict[str, str],
    rows: list[tuple[str, list[str]]],
) -> str | None:
    """The letter of the option that the best-ranked table row holds under a column
    the question names as a qualifier: "with the openai provider, which model …" reads
    the openai column of the model table. Closeness cannot tell the cells of one row
    apart: every option sits the same few characters from the question's words. The
    column of the asked noun itself ("which *template* …", "which of these file
    *extensions* …") is not one: every row has a cell there, and which row is meant is
    the whole question; nor is the first column, which names the row. A row naming no
    option, or several, does not decide."""
    asked = set(content_terms(objective)) - {expectation.head, *expectation.focus}
    for text, header in rows:
        raw = cells(text)
        if len(header) != len(raw):
            continue
        named = {
            letter
            for title, cell in zip(header[1:], raw[1:], strict=True)  # [0] keys the row
            if content_terms(title) and set(content_terms(title)) <= asked
            for letter, option in choices.items()
            if matches_answer(option, clean_inline(cell).strip(), objective)
            or words_option(option, cell)  # "Double-quote with escaped inner" in other words
        }
        if len(named) == 1:
            return named.pop()
    return None


# "- Comparison keywords: 'compare', 'treatment'": a list item's own label, then its items
_LABELLED_ITEM = re.compile(
    r"^\s*[-*+]\s*\**(?P<label>[A-Za-z][\w -]{2,40}?)\**\s*:\s*(?P<items>.+)$", re.DOTALL
)


def _named_item_option(objective: str, choices: dict[str, str], texts: list[str]) -> str | None:
    """The letter of the one option held by a list item whose own label the question
    writes as a phrase: "listed among the *comparison keywords*" over "- Cell state
    keywords: …, 'umap'" and "- Comparison keywords: …, 'treatment'". Closeness cannot
    tell the items apart: they share the list's words, and the next item's label is as
    near. A label of one word names too little ("Notes:")."""
    asked = " ".join(stem(t) for t in tokens(objective.lower()))
    named = set()
    for text in texts:
        item = _LABELLED_ITEM.match(text)
        if item is None:
            continue
        label = [stem(t) for t in tokens(item.group("label").lower())]
        if len(label) < 2 or not re.search(rf"(?<!\S){re.escape(' '.join(label))}(?!\S)", asked):
            continue
        items = normalise(item.group("items"))
        named |= {
            letter for letter, option in choices.items() if option_named(option, items)
        }
    named -= _premises(objective, choices)
    return named.pop() if len(named) == 1 else None


# `"phenix.autosol":  {"prefer": "anomalous_intensity",`: a mapping entry's line, keyed
_KEYED_LINE = re.compile(r"^\s*[\"'`]([\w.:/-]*[._][\w.:/-]*)[\"'`]\s*:(?P<rest>.*)$")


def _keyed_entry_option(
    objective: str, choices: dict[str, str], passages: list[str]
) -> str | None:
    """The letter of the one option written on the line of a mapping entry whose key the
    question writes whole (`"phenix.autosol": {"prefer": "anomalous_intensity",` for
    "which array type … for phenix.autosol"): the other entries' lines hold the other
    options, and closeness in words cannot tell the neighbouring lines apart."""
    named: set[str] = set()
    for passage in passages:
        for line in passage.splitlines():
            entry = _KEYED_LINE.match(line)
            if entry is None or not find_name(entry.group(1), objective):
                continue
            rest = normalise(entry.group("rest"))
            named |= {letter for letter, option in choices.items() if option_named(option, rest)}
    named -= _premises(objective, choices)
    return named.pop() if len(named) == 1 else None


def _premises(objective: str, choices: dict[str, str]) -> set[str]:
    """Letters of the options the question itself writes ("criterion is <0.35" and the
    option 0.350): a passage repeating the premise says nothing of them."""
    asked = normalise(objective)
    return {letter for letter, option in choices.items() if option_named(option, asked)}


def _list_items(text: str) -> list[str]:
    """The items of a passage's bulleted lists, each with its continuation lines."""
    items: list[str] = []
    for line in text.split("\n"):
        if re.match(r"\s*[-*+]\s", line):
            items.append(line)
        elif items and line.strip() and not line.lstrip().startswith(("#", "|", "```")):
            items[-1] += f" {line.strip()}"
        elif not line.strip() and items and not items[-1].endswith("\0"):
            items[-1] += "\0"  # a blank line ends the item
    return [item.rstrip("\0") for item in items]


def _subject_item_option(
    objective: str, choices: dict[str, str], units: list[Scored]
) -> str | None:
    """The letter of the one option whose list item also names a code name of the
    question: "which strategy is used by phenix.phaser" over "- `count` — increments a
    counter. Used by `phenix.refine` and `phenix.phaser`." The item's sentences are
    units of their own, so the option and the name are never in one window."""
    subjects = {name.lower() for name in code_names_in(objective)}
    if not subjects:
        return None
    premises = _premises(objective, choices)
    named = set()
    for passage in dict.fromkeys(unit.evidence.text for unit in units):
        for item in _list_items(passage):
            text = normalise(item)
            if not any(re.search(rf"(?<![\w.]){re.escape(s)}(?![\w])", text) for s in subjects):
                continue
            held = {letter for letter, option in choices.items() if option_named(option, text)}
            held -= premises
            if len(held) == 1:
                named |= held
    return named.pop() if len(named) == 1 else None


# "Which package does the agent NOT require?": the verb the question negates
_NEGATED_VERB = re.compile(r"\b(?:NOT|never)\s+(?:[a-z]+ly\s+)?([a-z][a-z-]{2,})\b")
# the passage says it of the option: "`X` is **not required**" after it, "does not
# require X" before it
_NOT = r"\b(?:not|never|no longer)\s+"
_NEGATED_AFTER = re.compile(rf"^[^.;:]{{0,40}}?{_NOT}(?:[a-z]+\s+)??([a-z][a-z-]{{2,}})")
_NEGATED_BEFORE = re.compile(rf"{_NOT}([a-z][a-z-]{{2,}})\s+(?:[\w-]+\s+){{0,3}}$")


def _same_verb(said: str, asked: str) -> bool:
    """Stems of one verb: "use" and "used" stem apart."""
    return said == asked or (min(len(said), len(asked)) >= 3 and said.startswith(asked))


def negatively_stated_option(
    objective: str, choices: dict[str, str], units: list[Scored]
) -> str | None:
    """The one option a passage says the question's negated verb of, negated: "which
    package does the agent NOT require" is answered by "the `langchain-classic` package is
    not required", whatever the other options' support. Picking the least supported
    option is the fallback when no passage says so."""
    asked = _NEGATED_VERB.search(objective)
    if asked is None:
        return None
    verb = stem(asked.group(1).lower())
    found = set()
    for unit in units:
        text = normalise(unit.text)
        for letter, option in choices.items():
            for position in _occurrences(option, text):
                end = position + len(normalise(option))
                after = _NEGATED_AFTER.match(text[end:])
                before = _NEGATED_BEFORE.search(text[max(0, position - 60) : position])
                said = [m for m in (after, before) if m is not None]
                if any(_same_verb(stem(m.group(1)), verb) for m in said):
                    found.add(letter)
    return found.pop() if len(found) == 1 else None


# the words the question negates, to the clause's end: "NOT flagged requires_full_map"
_NEGATED_PREDICATE = re.compile(r"\b(?:NOT|never)\s+(?P<predicate>[^,;?()]+)")
MIN_LISTED = 2  # the options a list must name with the property to leave one out


def complement_option(
    objective: str, choices: dict[str, str], units: list[Scored]
) -> str | None:
    """The one option a list leaves out of those it gives the negated property: "which
    program is NOT flagged `requires_full_map`" over the row "| `requires_full_map: true`
    | Strip any half-maps | dock_in_map, real_space_refine, validation_cryoem |" is the
    fourth option, whatever else is said of the four. The unit must write the negated
    property (its code names, or most of its words) and every option but one; None when
    no unit does, or units leave out different options."""
    asked = _NEGATED_PREDICATE.search(objective)
    if asked is None or len(choices) < MIN_LISTED + 1:
        return None
    predicate = content_terms(asked["predicate"])
    code = [t for t in predicate if re.search(r"[_.]", t)]
    namespace = shared_namespace(choices)
    left_out = set()
    for unit in units:
        text = normalise(unit.text)
        present = present_terms(predicate, text)
        if not (set(code) <= present if code else 2 * len(present) > len(predicate)):
            continue
        missing = [k for k, option in choices.items() if not option_named(option, text, namespace)]
        if len(missing) == 1:
            left_out.add(missing[0])
    return left_out.pop() if len(left_out) == 1 else None


def select(scores: dict[str, float], negated: bool) -> str:
    """The best supported option, or the least supported one for NOT/EXCEPT questions."""
    ordered = sorted(scores, key=lambda k: (scores[k], k))
    return ordered[0] if negated else ordered[-1]
