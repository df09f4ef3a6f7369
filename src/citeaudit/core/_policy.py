"""Which sentences need a citation: the claim policy.

The segmenter finds sentences; the policy decides which of the uncited ones state something
about the world that a source must back. A sentence that carries a marker is always a claim.
Each rule below has a name; ``not-citable`` in the configuration lists the rules in force
(default: all of them), so ``not-citable = []`` asks a citation of every sentence.

``about-sources``
    Statements about the sources or the answer itself: "The passages do not provide
    sufficient information to …", "There is no mention of fees in the documents.", "I could
    not find …", "Based on the provided sources, here is a summary."
``pleasantry``
    Greetings, thanks, pleasantries and closings: "That's a very interesting question.",
    "Thanks for asking!", "I hope this helps.", "Let me know if you have other questions."
``question``
    Questions: "Would you like more details?"
``hedge``
    Disclaimers and hedges that assert nothing about the world: "Results may vary.",
    "Please consult a doctor before changing your dose.", "This is not legal advice.",
    "However, it is important to note that the passages are limited." A hedge that goes on to
    state a fact ("It is worth noting that the drug was withdrawn in 2004.") is a claim.
``announcement``
    What announces the text after it: a lead-in ending in ``:``, "Here are the main steps.",
    "The following applies.", and a sentence right before a list whose content is that list
    ("To improve standards, several methods can be undertaken by educators."). A lead-in
    run together with what follows it in one unit ("Here's how:Mueller and Perry met in
    rehab.") states what follows: a claim.
``heading``
    Title lines: a line of its own without final punctuation, short (at most five words) or in
    title case (at most twelve), followed by a blank line or a list; and lines that are all
    emphasis ("**Note**"). A title line in sentence case that states an amount is a claim.
``listed``
    List items under a cited lead-in ("… methods include [12][13]:" then "- Gradual
    liberalization") are covered by its citation: the sentence that opens each item (a
    further sentence of the item, or a paragraph indented under it, states its own claim).

Every test here is one anchored match or a bounded scan of the sentence: linear in the text.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from re import _constants as _c  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]
from typing import Any, NamedTuple

from citeaudit.core._amounts import states_amount

__all__ = ["BLANK_OR_LIST", "ITEM_LINE", "LIST_NEXT", "NOT_CITABLE", "RULE_KINDS", "Exemptions",
           "exempt", "list_items", "policy_rule", "under_cited_lead"]

NOT_CITABLE = ("about-sources", "pleasantry", "question", "hedge", "announcement", "heading",
               "listed")
# The kind a unit each rule exempts is reported as (the claim guide's kinds; ``listed``: an
# item under a cited lead-in, covered by its citation).
RULE_KINDS = {"about-sources": "meta", "pleasantry": "pleasantry", "question": "question",
              "hedge": "disclaimer", "announcement": "announcement", "heading": "heading",
              "listed": "listed"}

# Words that open a sentence without adding to what it says.
_OPENER = (r"(?:(?:however|unfortunately|also|additionally|moreover|furthermore|sadly|again"
           r"|okay|ok|sure|alright|well|now|great|certainly|of course|first|next|then"
           r"|regrettably|that said|in addition|overall|finally|lastly|but|and|so|please note"
           r"|note|i'm sorry|i am sorry|sorry|i apologi[sz]e|apologies|as mentioned(?: earlier"
           r"| above| before)?)\b[ \t]*(?:,|that\b|but\b)?[ \t]*){0,4}")
_SOURCES = (r"(?:the |these |this |those |my |our |your |each |any |all )?(?:(?:provided"
            r"|given|available|retrieved|above|supplied|cited|referenced|listed|search|attached"
            r"|following|other|remaining|current|two|three|both|relevant)[ \t]+){0,3}"
            r"(?:passages?|sources?|documents?|docs|search results|results|contexts?|excerpts?"
            r"|snippets?|texts?|articles?|references|materials?|manual|guide|handbook|faq"
            r"|documentation|press releases?"
            # "the evidence does not support X" is a claim: evidence the answer was given
            r"|(?:retrieved |provided |given |available )(?:information|data|evidence)"
            r"|(?:information|data|evidence)(?= (?:provided|given|above|available|retrieved"
            r"|supplied|here|you)))\b(?: (?:provided|given|above|available|retrieved|supplied"
            r"|here|you (?:provided|gave|shared|sent)))?")
_NEGATION = (r"(?:also |unfortunately |still |simply |themselves )?(?:do(?:es)?(?:n't| not)"
             r"|did(?:n't| not)|cannot|can't|fail(?:s|ed)? to|lack|contains? no|provides? no"
             r"|offers? no|makes? no|gives? no|ha(?:ve|s) no|says? nothing|mentions? nothing"
             r"|only (?:mention|discuss|cover|address|refer to|talk about|describe|provide"
             r"|contain|include|focus on)s?|focus(?:es)? (?:mainly |primarily |only |mostly )?on"
             r"|(?:is|are) limited to"
             r"|(?:is|are|was|were|seem|seems|appear|appears)(?: to be)? (?:silent|limited"
             r"|insufficient|inconclusive|unclear|incomplete|not (?:clear|sufficient|enough"
             r"|specific|explicit|detailed|conclusive|relevant|available)|(?:n't|not) (?:"
             r"mention|discuss|provid|specif|address|cover|includ|stat|explain|giv|offer)"
             r"\w*))")
_NOTHING = (r"(?:there (?:is|are|was|were|seems to be|appears to be)|there's|i (?:found|see"
            r"|saw)) (?:no|not (?:any|enough|much))\b")
_ABOUT = (
    rf"{_SOURCES} {_NEGATION}"
    rf"|{_NOTHING}[^\n]{{0,120}}?\b(?:in|within|from|among|across|by|on) {_SOURCES}"
    r"|i (?:could(?:n't| not)|cannot|can't|was(?:n't| not) able to|am(?: not|n't) able to"
    r"|(?:was|am) unable to|did(?:n't| not)|do(?:n't| not)|have(?:n't| not)|lack|will not"
    r"|won't) (?:find|locate|see|identify|determine|provide|answer|confirm|verify|have"
    r"|access|know|give|offer|say|tell|be certain)\b"
    r"|i (?:do(?:n't| not) have|have no) (?:enough |sufficient |specific |further |any )*"
    r"(?:information|data|details|access|knowledge)"
    rf"|(?:based on|according to|from|using|given|with) {_SOURCES},? (?:here(?: is| are|'s)"
    r"|i (?:can|cannot|can't|could|will|would|found)|it (?:is|'s|was) (?:not )?(?:possible"
    r"|impossible|difficult|hard|unclear|not clear)|we (?:can|cannot)|the (?:answer|summary)"
    r"|(?:a|the) (?:summary|overview|answer|breakdown)|(?:this|the) (?:is|question)"
    r"|(?:no|not enough) (?:information|answer|data))"
    r"|(?:this|my|the) (?:answer|response|summary|reply|explanation|overview)(?: above| below)?"
    r" (?:is|was) (?:based|drawn|derived|compiled|taken)"
    r"|(?:this|my|the) (?:answer|response|summary|reply) (?:draws|relies|uses|comes|summari[sz]es)"
    rf"|{_SOURCES} (?:are|is|were|was) (?:all )?(?:from|dated|written|published in) (?:an? |the )?"
    r"(?:different|various|several|older|recent|earlier|\d{4})\b"
)
_PLEASANTRY = (
    r"(?:that's|that is|this is|what|it's|it is|such) (?:a |an )?(?:very |really |truly |"
    r"such an? |quite an? |an? )?(?:great|good|interesting|excellent|fascinating|important"
    r"|thoughtful|insightful|fantastic|wonderful|common|fair|valid|excellent"
    r"|intriguing|popular|relevant|timely) (?:question|point"
    r"|topic|query|one|thing to ask|subject|issue to raise)"
    r"|(?:a |an )?(?:great|good|excellent|interesting|fair) (?:question|point)"
    r"|(?:hi|hello|hey|greetings|good (?:morning|afternoon|evening))(?: there)?[ \t]*(?:[,!.]|$)"
    r"|(?:i'm|i am) sorry\b|i apologi[sz]e\b|apologies for|sorry for"
    r"|(?:if|should) you (?:have|need|want|would like)[^,\n]{0,60},[ \t]*(?:please )?(?:let me"
    r" know|feel free|don't hesitate|do not hesitate|just ask|ask)"
    r"|(?:good luck|best of luck|have a (?:great|good|nice|wonderful)|enjoy your|happy (?:reading"
    r"|learning|travels|travelling|traveling|cooking)|safe travels|take care|stay safe)\b"
    r"[^.!?\n]{0,40}[.!]*$"
    r"|what an? (?:\w+ ){0,3}\w+!+$"
    r"|(?:thanks|thank you|many thanks|much appreciated)\b(?! to\b)"
    r"|(?:i )?hope (?:this|that|it|these|my (?:answer|response)|the (?:above|information))"
    r"(?: information)? (?:helps|help|is helpful|was helpful|answers|clarifies|is useful"
    r"|is of help|gives)"
    r"|(?:please )?(?:let me know|feel free|don't hesitate|do not hesitate|reach out if)\b"
    r"|(?:i'm|i am|i'd be|i would be|i'll be|always) (?:happy|glad|delighted|pleased) to"
    r"|(?:happy|glad) to (?:help|assist)"
    r"|(?:i'm|i am) (?:here to help|an ai|a language model)"
    r"|(?:as an ai|as a language model)\b"
    r"|(?:sure|certainly|of course|absolutely|okay|ok|alright|no problem|you're welcome"
    r"|you are welcome|good luck|best of luck|best wishes|cheers|best regards|regards"
    r"|have a (?:great|good|nice|wonderful) (?:day|one|time)|great|indeed|got it|understood"
    r"|happy (?:reading|learning|travels))\b[ \t]*(?:[,!.]+[ \t]*)?(?:[^ \t\w]*)$"
)
_VARY = (r"(?:(?:the|your|exact|specific|actual|individual|personal|own|particular) ){0,3}"
         r"(?:results?|savings|benefits|case"
         r"|experiences?|outcomes?|situations?|circumstances?|requirements?|rules?"
         r"|regulations?|laws?|policies|prices?|costs?|details?|effects?|symptoms?|treatments?"
         r"|availability|information|things|answers?|needs|options|timelines?|(?:each|every)"
         r" (?:case|situation|person|individual|company|organi[sz]ation|state|country)"
         r"|every(?:one|body)|this|that|it)(?: (?:may|can|might|will|could|often|tend to"
         r"|are likely to|is likely to|do|does))? (?:vary|varies|differ|differs|change|changes"
         r"|depend|depends)\b"
         r"|every(?:one|body|(?: \w+)) is different"
         r"|it (?:depends|varies)\b")
_ADVICE = (r"(?:if [^,\n]{1,60},[ \t]*)?(?:you (?:should|may want to|might want to|must|need to"
           r"|can|could) |it(?: is|'s)"
           r" (?:always )?(?:best|advisable|recommended|a good idea|wise|important|essential"
           r"|crucial|necessary) to |(?:always |please |be sure to |make sure to )?)(?:also )?"
           r"(?:consult|seek|speak|talk|check|contact|ask|see|visit|refer to|reach out|double-"
           r"check|verify|confirm)\b[^\n]{0,80}?\b(?:doctor|physician|professional|expert"
           r"|specialist|advis[eo]r|lawyer|attorney|accountant|pharmacist|provider|healthcare"
           r"|dentist|therapist|veterinarian|vet|authorit|official|website|local|counsel"
           r"|pediatrician|clinician|nurse|insurer|bank|employer|hr\b|manager|team|airline"
           r"|carrier|embassy|consulate|school|landlord|gp\b|support)"
           r"|(?:always )?do your own (?:research|due diligence)"
           r"|(?:this|the above|the (?:information|answer|content) (?:provided|above|here)|this"
           r" (?:answer|information|response)) (?:is|does) not (?:constitute |intended as |meant"
           r" as |a substitute for |replace )?(?:\w+ ){0,2}advice"
           r"|(?:this|it) is not (?:medical|legal|financial|professional|tax|investment) advice"
           r"|i(?:'m| am) not (?:a |an |your )?(?:\w+ )?(?:doctor|lawyer|physician|advis[eo]r"
           r"|professional|expert|historian|scientist|specialist|accountant)"
           r"|(?:more|further|additional) (?:research|studies|study|investigation|information"
           r"|data|evidence|work) (?:is|are|may be|might be|would be|will be) (?:needed"
           r"|required|necessary|warranted)"
           r"|(?:always )?(?:use|exercise) (?:caution|your (?:own )?judg(?:e)?ment)"
           # a vacuous complexity is a caveat, not a compliment (the claim guide's disclaimer)
           r"|(?:that's|that is|this is|it's|it is|such) (?:a |an )?(?:very |really |truly |"
           r"quite an? |an? )?(?:complex|tricky|complicated|nuanced|broad|big|difficult"
           r"|multifaceted) (?:question|topic|issue|subject|one)\b")
# Anywhere in the sentence: "the details are unclear from the documents".
_UNCLEAR = re.compile(r" (?:is|are|was|were|remains?) (?:unclear|not (?:clear|specified"
                      r"|mentioned|stated|given|provided|described|discussed|explained"
                      rf"|covered)) (?:from|in|by) {_SOURCES}")
_HEDGE_OPENER = re.compile(
    rf"{_OPENER}(?:(?:it is|it's|it may be|it might be|it would be) (?:also |always )?"
    r"(?:important|worth|crucial|essential|helpful|useful|advisable|good|necessary|vital)"
    r"(?: to)? (?:note|noting|mention|mentioning|remember|point(?:ing)? out|keep in mind"
    r"|bear in mind|emphasi[sz]e|highlight|stress|recogni[sz]e|understand|acknowledge|add"
    r"|consider)(?: that)?|(?:please )?(?:note|keep in mind|bear in mind|remember|be aware)"
    r"(?: that)?|(?:one|you) should (?:note|keep in mind|bear in mind|remember) that"
    r"|as always)[ \t]*,?[ \t]*")
_PLAIN_HEDGE = re.compile(rf"{_OPENER}(?:{_VARY}|{_ADVICE})")
_OPENING = re.compile(
    rf"[*_\"“'(]*{_OPENER}(?:(?P<about>{_ABOUT})|(?P<pleasantry>{_PLEASANTRY}))")
_ANNOUNCES = re.compile(
    rf"{_OPENER}(?:here(?: is| are|'s| you go| goes)|below(?: is| are|'s)|the following(?! (?:year"
    r"|day|week|month|season|decade|morning|night|spring|summer|autumn|fall|winter|century"
    r"|election|game|match)s?\b)"
    r"|following (?:is|are)|in (?:the )?(?:following|summary below)|let me (?:explain|break"
    r"|outline|summari[sz]e|list|walk|provide|give|describe|elaborate|clarify|share)"
    r"|let's (?:look|take|explore|break|dive|go|start|review|consider|examine|discuss)"
    r"|let us (?:look|take|explore|break|consider|examine|discuss)"
    r"|i(?:'ll| will| can|'d like to| would like to) (?:now |next |briefly |first )?"
    r"(?:explain|outline|summari[sz]e|list|walk|provide|give|describe|elaborate|clarify|share|break|start|try|help)"
    r"|(?:to )?(?:summari[sz]e|sum up|in summary|in short|in brief)[ \t]*[:]"
    r"|there are (?:a few|several|some|many|multiple|various|numerous|a number of)"
    r" (?:\w+ ){0,2}(?:ways|methods|steps|factors|reasons|options|things|tips|points"
    r"|considerations|aspects)(?: to consider| to keep in mind| worth (?:noting|exploring"
    r"|considering)| to explore| involved)?[ \t]*[.:]?$)")
# Literal words first (no \b before them): the engine skips to their first letters fast.
_VAGUE = re.compile(
    r"(?:several|some|a few|various|many|multiple|numerous|a number of|a variety of"
    r"|different|these|the following|key|main|certain|a range of|a couple of|a series of"
    r"|common|important|major|primary|basic|general|possible|potential)\b(?: \w+){0,3}?"
    r" (?:ways|methods|steps|factors|reasons|options|strategies|approaches|things|tips|points"
    r"|benefits|types|kinds|examples|measures|causes|signs|symptoms|ideas|considerations"
    r"|aspects|elements|features|components|techniques|practices|actions|solutions|tools"
    r"|resources|areas|challenges|issues|advantages|disadvantages|risks|possibilities"
    r"|recommendations|suggestions|categories|stages|principles|characteristics|policies"
    r"|initiatives|programs|programmes|criteria|requirements|guidelines|changes|effects"
    r"|impacts|uses|applications|forms|variations|differences|roles|functions|sources"
    r"|alternatives|treatments|therapies|interventions|habits|skills|qualities)\b")
# The generic nouns _VAGUE ends with, as words split on white space may end: a set test
# before the search.
_NOUNS = frozenset(f"{noun}{end}" for noun in re.findall(r"[a-z]+", _VAGUE.pattern.rsplit(
    " (?:", 1)[1]) for end in ("", ".", ",", ":", ";", "!", ")"))
_EMPHASIS = re.compile(r"(\*\*|__|\*|_)[^\n]+?\1")


class Starts(NamedTuple):
    """What the patterns can open with (see _starts), and the lengths of the openings
    shorter than ``size`` characters, which few patterns have.
    """

    heads: frozenset[str]
    shorter: tuple[int, ...]


def _opening_set(*patterns: re.Pattern[str], size: int = 3) -> Starts:
    heads = _starts(*patterns, size=size)
    return Starts(heads, tuple(sorted({len(h) for h in heads if len(h) < size},
                                      reverse=True)))


def _starts(*patterns: re.Pattern[str], size: int = 3) -> frozenset[str]:
    """What a match of the patterns can open with, worked out from the parsed patterns: the
    strings of ``size`` characters, and shorter ones after which anything may follow. A
    sentence that opens with none of them matches none of the patterns (see _families).
    """
    found: set[str] = set()
    for pattern in patterns:
        closed, open_ = _heads(_parser.parse(pattern.pattern), size)
        found |= closed | open_
    return frozenset(found)


Heads = tuple[set[str], set[str]]


def _heads(items: Any, size: int) -> Heads:
    """The openings of a parsed sequence: (closed, open). Closed ones may go on with anything
    (``size`` characters reached, or a character class too wide to list); the sequence has
    ended after open ones.
    """
    closed: set[str] = set()
    open_: set[str] = {""}
    for op, value in items:
        if op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):
            continue  # zero width
        more_closed, more_open = _item_heads(op, value, size)
        grown = {(head + more)[:size] for head in open_ for more in more_open}
        closed |= {(head + more)[:size] for head in open_ for more in more_closed}
        closed |= {head for head in grown if len(head) == size}
        open_ = {head for head in grown if len(head) < size}
        if not open_:
            break
    return closed, open_


def _item_heads(op: Any, value: Any, size: int) -> Heads:
    anything: Heads = ({""}, set())
    if op is _c.LITERAL:
        return set(), {chr(value)}
    if op is _c.IN:
        chars = {chr(v) for o, v in value if o is _c.LITERAL}
        return (set(), chars) if len(chars) == len(value) else anything
    if op is _c.BRANCH:
        closed: set[str] = set()
        open_: set[str] = set()
        for branch in value[1]:
            more_closed, more_open = _heads(branch, size)
            closed |= more_closed
            open_ |= more_open
        return closed, open_
    if op is _c.SUBPATTERN:
        return _heads(value[3], size)
    if op is _c.ATOMIC_GROUP:
        return _heads(value, size)
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT):
        low, high, body = value
        once_closed, once_open = _heads(body, size)
        closed = set()
        open_ = {""} if low == 0 else set()
        current = {""}
        for count in range(1, min(high, size + 1) + 1):
            grown = {(a + b)[:size] for a in current for b in once_open}
            closed |= {(a + b)[:size] for a in current for b in once_closed}
            closed |= {head for head in grown if len(head) == size}
            current = {head for head in grown if len(head) < size}
            if count >= low:
                open_ |= current
        return closed, open_
    return anything  # any character, a category, a back reference


# Openings of three characters for the sources-and-pleasantries family (its words of
# opening run four deep: longer openings number tens of thousands, slow to work out at
# import); of five for the other two, where three letters ("ref", "per", "man") open too many
# plain sentences ("refund", "per diem", "manager") that their patterns then reject.
_OPENING_STARTS = _opening_set(_OPENING)
_ANNOUNCES_STARTS = _opening_set(_ANNOUNCES, size=5)
_HEDGE_STARTS = _opening_set(_HEDGE_OPENER, _PLAIN_HEDGE, size=5)
# The three families in one table: an opening → which of them can start with it (a bit each),
# so a sentence costs a few lookups however many families there are.
_OPENS, _ANNOUNCES_BIT, _HEDGES = 1, 2, 4
_LONG = _ANNOUNCES_BIT | _HEDGES  # the families whose openings run to five characters
_FAMILIES: dict[str, int] = {}
for _bit, _starts_of in ((_OPENS, _OPENING_STARTS), (_ANNOUNCES_BIT, _ANNOUNCES_STARTS),
                         (_HEDGES, _HEDGE_STARTS)):
    for _head in _starts_of.heads:
        _FAMILIES[_head] = _FAMILIES.get(_head, 0) | _bit
# The first three characters of every opening of three or more: a sentence is looked up
# there first, and at four and five only where a long family's opening begins so.
_PREFIXES: dict[str, int] = {}
for _head, _bits in _FAMILIES.items():
    if len(_head) >= 3:
        _PREFIXES[_head[:3]] = _PREFIXES.get(_head[:3], 0) | _bits
_SHORTER = tuple(sorted({len(head) for head in _FAMILIES if len(head) < 3}, reverse=True))
_LONGER = tuple(sorted({len(head) for head in _FAMILIES if len(head) >= 3}, reverse=True))


def _families(sentence: str) -> int:
    """Which pattern families can match at the start of ``sentence``, as bits: lookups of
    its first characters instead of a match that tries every alternative. An opening as long
    as its family's size may go on with anything; a shorter one is where a match may end.
    """
    found = _PREFIXES.get(sentence[:3], 0)
    if found & _LONG:  # a long family's opening begins so: is it one?
        exact = found & ~_LONG
        for size in _LONGER:
            exact |= _FAMILIES.get(sentence[:size], 0)
        found = exact
    for size in _SHORTER:
        found |= _FAMILIES.get(sentence[:size], 0)
    return found


_SMALL = frozenset(("a", "an", "the", "and", "or", "of", "in", "on", "to", "for", "with", "by",
                    "at", "from", "vs", "vs.", "&", "-", "–", "—"))


def policy_rule(text: str, start: int, end: int, cited_lead: bool = False) -> str | None:
    """The policy rule under which the uncited sentence ``text[start:end]`` needs no
    citation, if any (``cited_lead``: it sits in a list under a cited lead-in).
    """
    if cited_lead:
        return "listed"
    last = end
    while last > start and text[last - 1] in "*_ )\"”'’":
        last -= 1
    if last == start:
        return "question"  # nothing but closing characters: read as "" was, which is in "?？"
    final = text[last - 1]
    if final in "?？":
        return "question"
    if final == ":":
        return "announcement"
    head = text[start]
    if head in "*_" and _EMPHASIS.fullmatch(text, start, end) is not None:
        return "heading"
    if final not in ".!?;,:…。！？" and _title_line(text, start, end):
        return "heading"
    # The patterns are lower case and read the sentence lowered (three times faster than
    # case-blind matching); one that cannot start with the sentence's first word is not tried.
    sentence = text[start:end].lower()
    if "’" in sentence:
        sentence = sentence.replace("’", "'")
    families = _families(sentence)
    if families & _OPENS and (found := _OPENING.match(sentence)):
        return "about-sources" if found["about"] is not None else "pleasantry"
    if families & _ANNOUNCES_BIT and _ANNOUNCES.match(sentence) and not _runs_on(sentence):
        return "announcement"
    if families & _HEDGES and _hedge(sentence) and not states_amount(sentence):
        return "hedge"  # "Prices may vary by 10%" states an amount: a claim
    if (" not " in sentence or "unclear" in sentence) and _UNCLEAR.search(sentence):
        return "about-sources"
    if text.find("\n", end, end + 8) >= 0 and _list_next(text, end, len(text)) and \
            not _NOUNS.isdisjoint(sentence.split()) and _VAGUE.search(sentence) and \
            not states_amount(sentence):
        return "announcement"
    return None


def _runs_on(sentence: str) -> bool:
    """Whether the lead-in goes on past its colon in the same unit, as text run together by
    a scraper does ("Here's how:Friendship in Rehab: Mueller and Perry met in rehab."): the
    unit states what follows, four words or more of it.
    """
    colon = sentence.find(":")
    return colon >= 0 and len(sentence[colon + 1:].split(None, 4)) > 3


def _hedge(sentence: str) -> bool:
    if _PLAIN_HEDGE.match(sentence):
        return True
    opener = _HEDGE_OPENER.match(sentence)
    if opener is None or opener.end() == 0:
        return False
    rest = opener.end()
    end = len(sentence)
    while rest < end and not sentence[rest].isalnum():
        rest += 1
    if rest >= end:
        return True  # "It is important to note." and nothing else
    return _PLAIN_HEDGE.match(sentence, rest) is not None or \
        _OPENING.match(sentence, rest) is not None


def _title_line(text: str, start: int, end: int) -> bool:
    """A line of its own, short or in title case, followed by a blank line or a list."""
    size = len(text)
    line_start = text.rfind("\n", 0, start) + 1
    if text[line_start:start].strip(" \t*_") or text.find("\n", start, end) >= 0 or \
            _item_line(text, line_start, size):
        return False  # not at the start of its line (a list item's text, say), or wrapped
    if not _blank_or_list(text, end, size):
        return False
    words = text[start:end].strip("*_ ").split()
    if not words or len(words) > 12:
        return False
    capitals = [w[0].isupper() or not w[0].isalpha() for w in words if w.lower() not in _SMALL]
    title_case = len(capitals) > 1 and all(capitals)
    if title_case:
        return True
    return len(words) <= 5 and not states_amount(text[start:end])


# The layout the policy reads, by hand: the loops below implement these patterns (the tests
# hold them to them), character by character, so that the compiled build tests characters in C.
_BULLET = r"(?:[-*+•‣◦]|[0-9]{1,9}(?:\[[^\]\n]{0,40}\])*[.)])[ \t]"
LIST_NEXT = re.compile(rf"[ \t*_]*(?:\r?\n[ \t]*)+{_BULLET}")  # a list on the next line
ITEM_LINE = re.compile(rf"[ \t]*{_BULLET}")
BLANK_OR_LIST = re.compile(rf"[ \t*_]*\r?\n[ \t]*(?:\r?\n|{_BULLET})")


def _bullet_end(text: str, at: int, size: int) -> int:
    """Where ``_BULLET`` (a bullet, or 1 to 9 digits, bracketed markers of at most 40
    characters and ``.`` or ``)``, then a blank) matched at ``at`` ends; -1: it does not.
    """
    if at >= size:
        return -1
    if text[at] in "-*+•‣◦":
        at += 1
    else:
        digits = at
        while at < size and "0" <= text[at] <= "9":
            at += 1
        if at == digits or at - digits > 9:
            return -1
        while at < size and text[at] == "[":  # markers: "1[1]. "
            inner = at + 1
            while inner < size and inner - at - 1 <= 40 and text[inner] != "]" and \
                    text[inner] != "\n":
                inner += 1
            if inner >= size or inner - at - 1 > 40 or text[inner] != "]":
                break
            at = inner + 1
        if at >= size or text[at] not in ".)":
            return -1
        at += 1
    if at >= size or text[at] not in " \t":
        return -1
    return at + 1


def _list_next(text: str, at: int, size: int) -> bool:
    """``LIST_NEXT.match(text, at)``: blanks or emphasis marks, then line breaks (each maybe
    after a carriage return, then blanks), then a bullet.
    """
    broken = False
    while at < size and text[at] in " \t*_":
        at += 1
    while True:
        if at + 1 < size and text[at] == "\r" and text[at + 1] == "\n":
            at += 2
        elif at < size and text[at] == "\n":
            at += 1
        else:
            break
        broken = True
        while at < size and text[at] in " \t":
            at += 1
    return broken and _bullet_end(text, at, size) >= 0


def _item_line(text: str, at: int, size: int) -> bool:
    """``ITEM_LINE.match(text, at)``: blanks, then a bullet."""
    while at < size and text[at] in " \t":
        at += 1
    return _bullet_end(text, at, size) >= 0


def _blank_or_list(text: str, at: int, size: int) -> bool:
    """``BLANK_OR_LIST.match(text, at)``: the rest of the line blank (or emphasis marks), then
    a blank line or a list item.
    """
    while at < size and text[at] in " \t*_":
        at += 1
    if at < size and text[at] == "\r":
        at += 1
    if at >= size or text[at] != "\n":
        return False
    at += 1
    while at < size and text[at] in " \t":
        at += 1
    if at < size and text[at] == "\r":
        return at + 1 < size and text[at + 1] == "\n"
    if at < size and text[at] == "\n":
        return True
    return _bullet_end(text, at, size) >= 0


def list_items(text: str) -> frozenset[int]:
    """Where the lines of ``text`` that open a list item start (for ``listed``: an item
    inherits the citation of the cited lead-in right above its list).
    """
    if "\n" not in text:
        return frozenset()
    size = len(text)
    items = set()
    at = text.find("\n")
    while at >= 0:
        if _item_line(text, at + 1, size):
            items.add(at + 1)
        at = text.find("\n", at + 1)
    if items and _item_line(text, 0, size):
        items.add(0)
    return frozenset(items)


def under_cited_lead(text: str, spans: Sequence[tuple[int, int]], at: int, items: frozenset[int],
                     marks: Sequence[tuple[int, int]]) -> bool:
    """Whether sentence ``spans[at]`` is in a list right under a cited lead-in (``items``: see
    :func:`list_items`; ``marks``: where the markers and malformed markers are, in text order).

    A sentence is in a list when its line opens an item, or it is indented and the sentence
    before it is in the list (with no line between them that is no sentence: a heading or a
    rule between two items starts a new list); the lead-in is the sentence just before the
    list's first item, with a marker or a malformed marker starting in it and nothing but
    white space between it and the list. Only the sentence that opens its item completes the
    lead-in: one after it in the same item, or on an indented line under it, states its own
    claim. Worked out when an uncited sentence asks, walking back over its list, so cited
    sentences pay nothing.
    """
    start = spans[at][0]
    line = text.rfind("\n", 0, start) + 1
    if line not in items:
        return False
    size = len(text)
    while line < size and text[line] in " \t":
        line += 1
    body = _bullet_end(text, line, size)
    if body < 0 or text[body:start].strip():
        return False
    earliest = -1  # back from ``at``, the earliest sentence whose line opens an item
    back = at
    after = -1  # where the line of the sentence after ``back`` starts
    while back >= 0:
        start, stop = spans[back]
        if after >= 0 and _parts_lists(text, stop, after):
            break  # a heading or a rule between the two: a new list
        line = text.rfind("\n", 0, start) + 1
        if line in items:
            earliest = back
        elif text[line] not in " \t":
            break  # neither an item nor indented: the list, if any, starts after it
        after = line
        back -= 1
    if earliest <= 0:
        return False  # not in a list, or a list with nothing above it
    lead_start, lead_end = spans[earliest - 1]
    # (start,) sorts before every mark starting there: the marks starting inside the lead-in
    cited = bisect_left(marks, (lead_start,)) < bisect_left(marks, (lead_end,))
    start, _ = spans[earliest]
    first_line = text.rfind("\n", 0, start) + 1
    return cited and not text[lead_end:first_line].strip()


def _parts_lists(text: str, start: int, end: int) -> bool:
    """Whether a line of ``text[start:end]`` (what lies between two sentences of a list) is a
    markdown heading or a horizontal rule, indented three spaces at most: the list above it
    ends there. A code block, an emoji or an indented rule inside an item does not.
    """
    line = text.find("\n", start, end)
    while 0 <= line < end:
        at = line + 1
        indent = 0
        while at < end and text[at] == " " and indent < 4:
            at += 1
            indent += 1
        if indent < 4 and at < end:
            head = text[at]
            if head == "#":
                return True  # (a "#1 seller" line would be a sentence, not between two)
            if head in "-*_":
                count = 0
                while at < end and text[at] in " \t-*_":
                    if text[at] == head:
                        count += 1
                    at += 1
                if count >= 3 and (at >= end or text[at] in "\r\n"):
                    return True
        line = text.find("\n", line + 1, end)
    return False


def _may_be_listed(text: str, start: int) -> bool:
    """Whether the sentence starting at ``start`` may complete a cited lead-in
    (:func:`under_cited_lead`): its line opens an item. Where it does not, the list items
    need not be found.
    """
    return _item_line(text, text.rfind("\n", 0, start) + 1, len(text))


def exempt(text: str, start: int, end: int, rules: frozenset[str], listed: bool = False) -> bool:
    """Whether the uncited sentence ``text[start:end]`` needs no citation under ``rules``
    (``listed``: it is an item of a list right under a cited lead-in).
    """
    rule = policy_rule(text, start, end, listed)
    return rule is not None and rule in rules


class Exemptions:
    """The claim policy over one text's uncited spans, for the claim assembly: whether
    ``rules`` exempt each (``listing``: whether the ``listed`` rule may apply; ``marks``:
    where the markers and malformed markers are, in text order), then, for a span they leave,
    whether ``judge`` (a :class:`citeaudit.core._claims.Judge`, or None) finds that it needs
    none by what it says. The text's list items are found once, when a span that may be in a
    list first asks. Each exemption is kept in ``found``: ``(start, end, kind, score)``, the
    score None where a rule decided.
    """

    def __init__(self, text: str, rules: frozenset[str], listing: bool,
                 marks: Sequence[tuple[int, int]], judge: Any = None) -> None:
        self.text = text
        self.rules = rules
        self.listing = listing
        self.marks = marks
        self.items: frozenset[int] | None = None
        self.judge = judge
        self.found: list[tuple[int, int, str, float | None]] = []

    def exempts(self, spans: Sequence[tuple[int, int]], at: int, start: int, end: int) -> bool:
        """Whether the policy exempts the uncited span ``spans[at]`` (``start``, ``end``)."""
        if self.rules:
            text = self.text
            listed = False
            if self.listing and _may_be_listed(text, start):
                if self.items is None:
                    self.items = list_items(text)
                listed = bool(self.items) and under_cited_lead(text, spans, at, self.items,
                                                               self.marks)
            rule = policy_rule(text, start, end, listed)
            # A unit that states an amount needs its citation whatever its form (CA302),
            # unless it is an item its cited lead-in covers.
            if rule is not None and rule in self.rules and (
                    rule == "listed" or not states_amount(text[start:end])):
                self.found.append((start, end, RULE_KINDS[rule], None))
                return True
        if self.judge is None:
            return False
        decided = self.judge.exempted(spans, at)
        if decided is None:
            return False
        self.found.append((start, end, decided[0], decided[1]))
        return True
