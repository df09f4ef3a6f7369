"""Which uncited units need a citation, read from what they say.

A unit (a sentence, a list item, a title line) that carries no marker gets a *citability*:
the probability that a careful reader would ask "says who?" of it (the claim guide,
``CLAIMS.md``, says which units are citable). It is a logistic model over features of the
unit's content, trained on labelled units of real answers (this folder) and kept as data
(``citable.json`` beside this module; ``benchmarks/claims/train.py`` writes it). The engine
asks it through :class:`Judge`, under the ``balanced`` and ``lenient`` presets:

- its words and its opening words (what it talks about, and how it starts: "I would", "Here
  are", "This report");
- specificity: amounts, capitalised names inside the sentence, numbers, technical words
  (long or mixed-case tokens), quotations;
- person and mood: first and second person, modal verbs, imperatives, questions;
- shape: length, final punctuation, emphasis, title case, a line of its own, a URL, the shape
  of a bibliography entry (``Lee, K.``, ``(2017).``, ``et al.``, ``doi``, ``Available:``);
- place: the first, last or only unit of the answer, the unit before ending in a colon;
- the answer as the subject ("This report ...") and the writer's own plan ("We will ...");
- where it stands in the answer (``Unit.layout``, named by :mod:`citeaudit.core._layout`
  from the engine's reading: heading, table, list item and its lead-in, section, reference block);
- overlap with the retrieved passages: a unit that restates a passage needs its marker.

A unit that states an amount is always citable (CA302), whatever the model says, unless it
lies in a reference block or is a line that is mostly its link. Then the layout rules of
the guide (``LAYOUT_RULES``: a title line, a label line, a group's title, a run-in title
are headings; a line under a references heading is a bibliography entry) exempt a unit
before the model is asked. An exempted unit gets the kind the second model of the file
finds likeliest (``pleasantry``, ``meta``, ``question``, ``disclaimer``, ``platitude``,
``announcement``, ``heading``, ``fragment``, ``reference``, ``advice``). After the layout
rules, the guide's short-answer shapes (``GUIDE_RULES``: the writer's own view, a platitude,
a pleasantry, a sentence about the sources, an announcement, a disclaimer, a piece of a
bibliography) are read from the unit's words and settle it with their kind. What it cannot
see: whether a claim is true, whether it is common knowledge to the reader, what the
question asked.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

from citeaudit.core._amounts import states_amount

__all__ = ["ASIDE", "GUIDE_RULES", "KINDS", "LAYOUT_RULES", "PLAN", "SELF", "Citability",
           "Model", "Unit", "about_itself", "bag_of_words", "citability", "content_of",
           "entry_shaped",
           "exempt_by_layout", "features", "finite", "guide_features", "lead_features",
           "load_model", "names_nothing", "overlap", "passage_words", "reference_piece",
           "source_line", "states_figure", "title_line", "unit_at", "words_of"]

KINDS = ("pleasantry", "meta", "question", "disclaimer", "platitude", "announcement", "heading",
         "fragment", "reference", "advice")

_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")
_TOKEN = re.compile(r"\S+")
_DIGIT = re.compile(r"\d")
# Patterns matched against the lower-cased text are written in lower case and compiled
# without IGNORECASE: the same matches at half the cost.
_URL = re.compile(r"https?://|www\.|\b[a-z0-9-]+\.(?:com|org|net|gov|edu|io)\b")
# The shapes of a bibliography entry, split so that cheap checks skip most of them: an
# initialled author ("Lee, K."), a year in parentheses, the words of an entry, a numbered
# entry at the start.
_REFERENCE_AUTHOR = re.compile(r"\b[A-Z][a-z]+, (?:[A-Z]\.\s?){1,3}")
# What every match of _REFERENCE_AUTHOR holds, searched first: it opens with a literal, which
# the regex engine skips to (the author's pattern is tried at every position).
_AUTHOR_INITIAL = re.compile(r", [A-Z]\.")
_REFERENCE_YEAR = re.compile(r"\(\d{4}[a-z]?\)")
_REFERENCE_WORDS = re.compile(
    r"\bet al\b|\bdoi\b|\bISBN\b|\bpp?\. ?\d|\bVol\. ?\d|\bNo\. ?\d"
    r"|\b(?:Available|Retrieved|Accessed)(?: from| at| on)?:?\s")
_REFERENCE_ENTRY = re.compile(r"\s*\[?\d{1,3}[\].]\s+[A-Z][^.]{0,80}\.\s")
_QUOTE = re.compile(r"[\"“”«»]")
_BULLET = re.compile(r"^\s*(?:[-*+•‣◦]|\d{1,3}[.)])\s+")
_EMPHASIS = re.compile(r"^\s*(?:\*\*|__)")
_FIRST = frozenset(("i", "i'm", "i’m", "i've", "i'd", "i'll", "me", "my", "mine", "we", "we're",
                    "we've", "our", "us", "let's"))
_SECOND = frozenset(("you", "your", "you're", "you'll", "you've", "yours", "yourself"))
_MODAL = frozenset(("may", "might", "could", "would", "should", "can", "must", "perhaps",
                    "possibly", "likely", "probably"))
_SMALL = frozenset(("a", "an", "the", "of", "and", "or", "in", "on", "for", "to", "with", "at",
                    "by", "from", "vs", "as", "is", "are"))
# Finite verbs that make a line a sentence rather than a title or a cell: copulas,
# auxiliaries and the verbs answers most use to state findings.
_VERBS = frozenset((
    "is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "does", "do", "did",
    "can", "will", "would", "may", "might", "could", "should", "must", "shall", "isn't", "aren't",
    "wasn't", "weren't", "doesn't", "don't", "didn't", "can't", "won't", "includes", "included",
    "include", "shows", "showed", "shown", "found", "finds", "reported", "reports", "suggests",
    "suggested", "indicates", "indicated", "leads", "led", "causes", "caused", "provides",
    "provided", "allows", "allowed", "uses", "used", "requires", "required", "remains",
    "remained", "became", "becomes", "makes", "made", "occurs", "occurred", "increases",
    "increased", "reduces", "reduced", "means", "meant", "involves", "involved", "affects",
    "affected", "contains", "contained", "helps", "helped", "began", "begins", "won", "took",
    "takes", "stated", "states", "said", "says", "announced", "released", "introduced",
    "established", "founded", "built", "created", "developed", "designed", "published",
    "received", "marked", "features", "featured", "offers", "offered", "depends", "varies",
    "consists", "refers", "describes", "described", "known", "called", "based", "linked",
    "associated", "improves", "improved", "enables", "enabled", "supports", "supported"))
# A finite verb follows these subjects; "-s" and "-ed" verbs are followed by these words.
_SUBJECTS = frozenset(("he", "she", "it", "they", "we", "i", "you", "who", "which"))
_OBJECT_OPENERS = frozenset((
    "the", "a", "an", "his", "her", "its", "their", "this", "these", "that", "those", "to", "as",
    "by", "with", "out", "up", "into", "our", "your", "him", "them", "it", "on", "from", "over",
    "through", "against", "across", "around", "itself", "themselves", "both", "several",
    "many", "more", "most", "some", "no", "each", "every", "all", "two", "three"))
_NOT_VERB_S = ("ss", "us", "is", "ics", "ous", "ies")
# Verbs a line opens with when it tells the reader (or a plan) what to do.
_IMPERATIVE = frozenset((
    "use", "avoid", "consider", "ensure", "start", "stand", "prioritize", "prioritise",
    "evaluate", "develop", "design", "implement", "build", "create", "adopt", "extend", "pilot",
    "run", "test", "track", "define", "map", "obtain", "integrate", "publish", "freeze",
    "establish", "collect", "add", "keep", "treat", "measure", "validate", "pursue", "invest",
    "apply", "check", "review", "document", "limit", "combine", "compare", "choose", "select",
    "focus", "make", "take", "set", "try", "let", "ask", "talk", "watch", "get", "see", "read",
    "visit", "contact", "consult", "plan", "prepare", "identify", "assess", "monitor", "verify",
    "confirm", "encourage", "maintain", "schedule", "seek", "follow", "expand", "explore",
    "don't", "do", "never", "always", "remember", "note", "begin", "look", "pick", "write",
    "report", "require", "align", "tie", "link", "replace", "stop", "wash", "drink", "eat"))
_META = re.compile(
    r"\b(?:this|the|our|my|these) (?:report|answer|analysis|section|synthesis|summary|review|"
    r"overview|guide|note|notes|table|list|response|framework|items?|sources?|passages?|"
    r"search results|documents?|evidence base|findings below)\b|\bin (?:the )?items\b|"
    r"\b(?:below|above|as follows|in this (?:report|answer|section))\b|\bi (?:found|searched|"
    r"could not|couldn't|did not find|was unable|will|'ll|have|'ve)\b|"
    r"\b(?:provided|available|retrieved|given) (?:items|sources|passages|documents|context)\b|"
    r"\baccording to (?:the )?(?:items|sources|passages|search results|context)\b")
_HEDGE = re.compile(r"\b(?:appears? to|seems? to|suggests?|likely|unclear|may vary|depends on|"
                    r"it is (?:important|essential|crucial|worth) to|more research)\b")
# What every match of _AUTHOR_YEAR holds, searched first (see _AUTHOR_INITIAL).
_SPACED_YEAR = re.compile(r" \(?(?:19|20)\d\d")
_AUTHOR_YEAR = re.compile(r"\b[A-Z][a-z]+(?: (?:et al\.?|and|&) [A-Z]?[a-z]*)?,? \(?(?:19|20)\d\d"
                          r"[a-z]?\)?")
_MD_LINK = re.compile(r"\[[^\]]+\]\([^)]+\)")
_URL_TOKEN = re.compile(r"(?:https?://|www\.)\S+")
_LABEL = re.compile(r"^\W{0,3}([^:.!?]{1,60}?)\W{0,3}:\W{0,3}(?=\S)")
_TIMELINE = re.compile(r"^\W{0,3}\(?\d+\s*[–-]\s*\d+\s*(?:y|yr|years?|days?|months?)\)")
# The answer speaking of itself as the subject: "This report ...", "The items above ...",
# "The following analysis ...", "Our approach ...", "Below is ...".
SELF = re.compile(
    r"^\W{0,3}(?:(?:this|the|our|my|these|the following|the present) (?:\w+ ){0,2}?"
    r"(?:report|answer|analysis|section|synthesis|summary|review|overview|guide|table|list|"
    r"response|framework|approach|design|blueprint|plan|proposal|study|document|memo|brief|"
    r"items?|sources?|passages?|results|search results|evidence|findings|figure|diagram|"
    r"chart|sections?|recommendations|discussion)\b|below\b|here\b|in (?:this|the following)"
    r" (?:report|section|answer|analysis)\b|(?:as )?(?:shown|noted|discussed|described|"
    r"outlined) (?:above|below|earlier)\b)", re.IGNORECASE)
# The writer's own plan, future or proposal: "We will first compare ...", "Next, I'll ...",
# "The next step is to ...", "We propose ...", "Our goal is ...".
_PLAN = re.compile(
    r"\b(?:we|i)(?: will|'ll|’ll| shall| plan| propose| aim| intend| recommend| suggest| would"
    r"| can| need| must| should| first| then| next)\b|\b(?:we|i) (?:\w+ly )?(?:will|shall)\b"
    r"|\bnext,? (?:i|we)\b|\bthe (?:next|first|final) step\b|\blet['’]s\b|\bour "
    r"(?:goal|aim|plan|approach|design|proposal|strategy|recommendation|objective|focus)\b"
    r"|\b(?:should|will|must) be (?:used|measured|reported|validated|documented|tested|"
    r"included|specified|defined|computed|estimated|implemented|treated|collected|designed)\b"
    r"|\b(?:is|are) (?:to be|recommended|proposed)\b")
_NUMBERED_ENTRY = re.compile(r"^\s*\[\d{1,3}\]\s*\S|^\s*\d{1,3}\.\s+[A-Z][^.]{0,80}\.\s")
_ENTRY_LENGTH = 400  # characters: a longer line is prose or a run of entries, not one entry
PLAN = re.compile(_PLAN.pattern, re.IGNORECASE)
# Every match of _PLAN and _HEDGE holds one of these words: a set lookup skips the search.
_PLAN_WORDS = frozenset(("we", "i", "i'll", "i’ll", "we'll", "we’ll", "next", "first", "final",
                         "step", "let's", "let’s", "our", "be", "recommended", "proposed"))
_HEDGE_WORDS = frozenset(("appear", "appears", "seem", "seems", "suggest", "suggests", "likely",
                          "unclear", "may", "depends", "it", "more"))
_ACRONYM = re.compile(r"\b[A-Z]{2,6}s?\b")
# The writer's own report, plan and search, by their words (each a test or two):
# - a form field of the report itself ("Report Date: 2025-09-16", "Rating (1-4): 3",
#   "Insured Or Prospect: ..."): its date or the assessor's rating on the report's own scale
#   states nothing a source could back (``form:own``), the other fields name its subject;
_FORM_OWN = re.compile(
    r"^(?:(?:report|survey|assessment|inspection|review|visit|audit) date|date of (?:the )?"
    r"(?:report|survey|assessment|inspection|visit|audit)|(?:[\w/&-]+ ){0,3}(?:rating|score) "
    r"\(\s*\d\s*[-–]\s*\d\s*\)?)$")
_FORM_FIELD = re.compile(
    r"^(?:insured(?: or prospect)?|prospect|client|prepared (?:by|for)|(?:key )?contacts?|"
    r"line of business|policy (?:number|period)|surveyor|assessor|scope)$")
# - the assessor's rating given as a field's whole content ("Cyber / Tech E&O: 2/4 – Needs
#   Improvement", "Reputational Harm: 2 – Basic", "Products / PCO Liability: Medium (3/4)",
#   "Regulatory / Compliance Risk: High"): a level, a score on the report's scale, or both,
#   and at most a word or two naming the level; a rating followed by its reasons
#   ("3 – Adequate controls but material gaps in ...") states them;
_LEVEL = (r"(?:(?:very|medium|low|high|moderate)[- ])?(?:low|medium|moderate|high|elevated|"
          r"severe|critical|minimal|basic|adequate|good|poor|strong|weak|deficient|fair|"
          r"needs improvement|(?:below|above) average)")
_RATED = re.compile(
    rf"^(?:{_LEVEL}(?: risk)?(?:\s*[–—-]\s*(?:composite )?score)?\s*\(?\d(?:\.\d)?\s*/\s*"
    rf"\d{{1,2}}\)?|{_LEVEL}(?: risk)?|\d(?:\.\d)?\s*(?:/\s*\d{{1,2}})?\s*(?:[–—-]\s*{_LEVEL}|"
    rf"\(\s*{_LEVEL}\s*\))|\d(?:\.\d)?\s*/\s*\d{{1,2}})\W*$")
# - a field the report leaves to its client ("Unknown — client to provide key contacts");
_UNKNOWN = re.compile(r"^\W{0,3}unknown\s*[—–:-]")
# - a phase of the writer's plan titled by its time span alone ("90 Days", "Immediate
#   (0-30 days)", "6-12 Months"): a heading, though it names an amount;
_SPAN_TITLE = re.compile(
    r"^\W{0,3}(?:(?:immediate|short|medium|mid|long|near)(?:[- ]term)?|phase \d+|within|next|"
    r"first)?\W{0,3}\(?\d+(?:\s*[–-]\s*\d+)?\+?\s*(?:days?|weeks?|months?|years?)\)?\W{0,3}$")
# - the writer narrating its own search ("I'll search for ...", "Let me gather ...", "I found
#   this information on ...") or pointing to more reading ("For more information, visit ..."):
#   about the answer. Not "Based on the research I've gathered, ...": what follows is a claim
#   with a prose attribution, citable by the guide. An amount named in what the writer is
#   about to search for asserts nothing (``narration:plan``); one in what it found or where
#   to read more still asks for a citation (the amounts rule wins);
_PLANNED = re.compile(r"^\W{0,3}(?:(?:now|next|first|then),? )?(?:i['’]ll|i will|i need to|"
                      r"i['’]m going to|let me|let['’]s) ")
_NARRATION = re.compile(
    r"^\W{0,3}(?:(?:now|next|first|then),? )?(?:i['’]ll|i will|i need to|i['’]m going to|"
    r"let me|let['’]s)(?: \w+){0,2}? (?:search|look|find|gather|research|begin|start|check|"
    r"explore|investigate|compile|dig|focus|try|examine|review|verify|present|provide|"
    r"create|summari[sz]e|analy[sz]e|organi[sz]e|put)\b|^\W{0,3}(?:i|we) (?:found|"
    r"gathered|located|used) (?:this|some|the following|several|a few|more|useful|relevant)"
    r"(?: \w+)? (?:information|resources|sources|results|articles?|references|details|news|"
    r"stor(?:y|ies))\b|"
    r"^\W{0,3}(?:for (?:more|further|the latest|additional)(?: \w+)? (?:information|details|"
    r"reading|announcements|updates)|to learn more|you can (?:learn|read|find) more)\b"
    r"(?:[^.]{0,80}) (?:visit|see|check|consult|refer to|on (?:the|their|its) (?:official )?"
    r"(?:website|site|page))\b")
# - obligation and recommendation: "should", "must", "need to", "we recommend";
_OBLIGE = re.compile(r"\b(?:should|must|ought to|needs? to|have to|has to|recommend(?:s|ed)?|"
                     r"advis(?:e|able|ed)|it is (?:essential|important|crucial|critical|vital)"
                     r" to)\b")
_OBLIGE_WORDS = frozenset(("should", "must", "ought", "need", "needs", "have", "has", "recommend",
                           "recommends", "recommended", "advise", "advisable", "advised", "it"))
# - a label naming the writer's plan or counsel ("**Recommended Approach**:", "Next steps:",
#   "Action:", "Service Planning:");
_PLAN_LABEL = re.compile(r"\b(?:recommend\w*|next steps?|action\w*|plan\w*|approach|steps?|"
                         r"implementation|roadmap|strategy|priorit\w+|proposal|proposed|"
                         r"suggest\w*|mitigation|improvements?|to[- ]do|deliverables?)\b")
# - the answer or a study as the subject doing what reports do ("This report examines ...",
#   "The present study tested ...", "The analysis draws on ...").
_SELF_VERB = re.compile(r"\b(?:examin|explor|provid|present|summari[sz]|focus|aim|outlin|"
                        r"discuss|draw|describ|test|cover|review|assess|investigat|analy[sz]|"
                        r"propos|offer|seek|highlight)\w*\b")
_MATH = re.compile(r"[=∈∑∫≤≥±√∂λμσ^_]")
# A line naming where what precedes it came from: "Source:", "Sources:", "References:".
# An aside in brackets: "Outcomes (reported by X):", "Ministry of Labour (latest data)".
ASIDE = re.compile(r"\([^)]*\)")
_SOURCE_LABEL = re.compile(r"\W{0,3}(?:sources?|references?)\s*:\s*(?=\S)", re.IGNORECASE)
_SOURCE_LENGTH = 1000  # characters: a longer unit is no line of sources
_SOURCE_OPENERS = frozenset("SsRr")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_YEAR = re.compile(r"(?:1[5-9]|20)\d\d")
# The answer itself as the subject doing what reports do, with nothing of the world said:
# "This report examines ...", "This research report draws from ...", "Our analysis
# compares ...". (A study's or a source's doing is left to the model: "This study found".)
_REPORT_DOES = re.compile(
    r"\W{0,3}(?:this|the present|our) (?:(?:comprehensive|detailed|research|final|present|"
    r"short|brief) ){0,2}"
    r"(?:report|answer|analysis|review|overview|guide|document|synthesis|brief|memo) "
    r"(?:\w+ly )?(?:examin|explor|provid|present|summari[sz]|synthesi[sz]|survey|outlin|"
    r"discuss|describ|cover|review|assess|investigat|analy[sz]|compar|focus|aim|draw|"
    r"address|evaluat|consolidat)\w*\b"
    # ... and says nothing of what it finds: "… draws on data showing that …", "… describes
    # how the Fed raised rates eleven times", "… examines why the levee failed: …" are claims
    r"(?![^:]*(?::|\b(?:that|showing|shows?|finds?|found|how|why|whether)\b))")
_REPORT_WORDS = frozenset(("report", "answer", "analysis", "review", "overview", "guide",
                           "document", "synthesis", "brief", "memo"))


# The guide's short-answer shapes (CLAIMS.md, "not citable, by kind"), read from a unit's
# content: the writer's own view, a vacuous framing, a pleasantry, a statement about the
# sources, an announcement ending in a full stop, a disclaimer, a piece of a bibliography.
# Each names its kind (``GUIDE_RULES``). The shapes that a claim can take too (an
# evaluative sentence, "there are several ...", "may vary with ...") count only where the
# unit names nothing: no number, and no capitalised word after its first but "I" ("The
# Hoover Dam is essential to Nevada's power supply." is a claim). A unit stating an amount
# is settled before any of them. Each pattern is searched only where a word every match
# holds is among the unit's words.
_OPENER = (r"^\W{0,3}(?:(?:so|overall|in short|in summary|in conclusion|ultimately|finally|"
           r"however|that said|in general|generally|honestly|personally|also|still|then|"
           r"otherwise|again|of course|in the end|all in all),? )?")
_I_FORMS = frozenset(("I", "I'm", "I’m", "I'd", "I’d", "I'll", "I’ll", "I've", "I’ve"))
# - the writer's own view or counsel: "I would first ...", "In my opinion ...", "I'd
#   suggest ...", "You might simply ...", "... could be insightful", "It may be worth ...";
_OWN_VIEW = re.compile(
    _OPENER + r"(?:i|we)(?:['’]d| would| might| could| think| believe| feel| recommend| suggest|"
    r" advise| prefer| personally| myself| tend| lean)\b|\bin my (?:view|opinion|experience|"
    r"estimation|judg(?:e)?ment)\b|\bmy (?:advice|suggestion|recommendation|take|sense|guess|"
    r"preference|personal view)\b|\bif i were you\b|\bi['’]m (?:inclined|tempted)\b|"
    + _OPENER + r"you (?:might|could|may) (?:also |simply |just |then |first |still )?(?:want|"
    r"wish|like|consider|try|ask|check|pick|choose|prefer|start|talk|contact|reach|look into|"
    r"explore|think about)\b|\b(?:could|might|may|would) (?:also )?be (?:insightful|helpful|"
    r"useful|worthwhile|beneficial|interesting|wise|prudent|advisable|a good idea|worth "
    r"\w+ing|illuminating|fruitful|enlightening)\W*$|^\W{0,3}(?:it|this)(?:['’]s| is| may be|"
    r" might be| could be| would be) (?:also )?(?:worth (?:considering|exploring|checking|"
    r"asking|trying|looking|talking|consulting|speaking|reaching|discussing)|a good idea)\b")
_OWN_VIEW_WORDS = frozenset(("i", "we", "i'd", "i’d", "we'd", "we’d", "my", "you", "i'm", "i’m",
                             "insightful", "helpful", "useful", "worthwhile", "beneficial",
                             "interesting", "wise", "prudent", "advisable", "idea", "worth",
                             "illuminating", "fruitful", "enlightening"))
# - a pleasantry: glad, happy, hope, thanks, "help me give ...";
_PLEASANTRY = re.compile(
    r"\b(?:i|we)(?:['’]m|['’]re| am| are) (?:so |very |really |always )?(?:glad|happy|"
    r"delighted|pleased|thrilled|excited|sorry)\b|\b(?:i|we) hope\b|\bhope (?:this|that|it|"
    r"these)\b|\bhelp (?:me|us) (?:give|provide|offer|tailor|understand|find|answer|suggest)"
    r"|\bfeel free\b|\bdon['’]t hesitate\b|\bgood luck\b|\bthanks?\b|\bthank you\b|"
    r"\b(?:great|good|excellent|interesting|fascinating) (?:question|topic)\b|\bbest of luck\b|"
    r"\bhappy to help\b|\benjoy (?:your|the)\b|"
    r"\b(?:best wishes|all the best|wishing you|congratulations|congrats)\b")
# A compliment or an offer in other words: "It's smart that you asked early.", "Glad to say
# more.", "Best wishes with the exams.", "Sounds like a fun plan!", "Just ask." The shapes
# that open a unit are matched at its start (searched, each is tried at every position).
_PLEASANTRY_START = re.compile(
    r"\W{0,3}(?:it['’]?s (?:so |really |very )?(?:great|good|wonderful|nice|smart|wise|sensible|"
    r"lovely|admirable|thoughtful|brilliant|excellent) (?:that you|to see you|to hear|you['’]re|"
    r"of you)\b|(?:(?:always|more than|very|really|so|just) )?(?:happy|glad|delighted|"
    r"pleased) to\b|sounds like (?:a|an|quite a) (?:\w+ ){0,2}?(?:project|plan|idea|trip|"
    r"adventure|goal|journey|undertaking|challenge)\b|(?:great|good|nice|wonderful) to (?:see|"
    r"hear)\b|(?:just|simply) (?:ask|reach out|let me know)\b)")
_PLEASANTRY_WORDS = frozenset(("glad", "happy", "delighted", "pleased", "thrilled", "excited",
                               "sorry", "hope", "help", "feel", "hesitate", "luck", "thanks",
                               "thank", "question", "topic", "enjoy", "it's", "it’s", "its",
                               "best", "wishes", "wishing", "congratulations", "congrats",
                               "sounds", "great", "good", "nice", "wonderful", "just",
                               "simply"))
# - the sources or the answer as subject or object: "these passages", "the sources I found",
#   "More resources would be needed to say.";
_ABOUT_SOURCES = re.compile(
    r"\b(?:these|the|those|provided|available|given|my|your|retrieved|cited|above|following)"
    r" (?:passages?|sources?|search results|snippets|excerpts|references|links|articles i found|"
    r"provided (?:documents|context))\b|\bmore (?:resources|sources|information|details|data|"
    r"context|specifics) (?:would|will|might|may|could|is|are) (?:be )?(?:needed|required|"
    r"necessary|helpful)\b|\b(?:can|could) (?:be )?found in (?:the|these|those)\b|"
    # what the answer would need, or what the writer has to hand: "A fuller answer would need
    # other sources.", "Confirming this would take more data.", "The information I have is thin."
    r"\b(?:would|will|might|could) (?:need|require|take|call for) (?:more|additional|"
    r"further|other|newer|better|specific|more specific|more recent|dedicated) (?:\w+ )?"
    r"(?:sources|data|information|details|research|context|references|documents|material)\W*$|"
    r"\bthe (?:information|material|data|content|documentation|evidence) (?:available to me|"
    r"i have|i was given|at hand|to hand|i found|i can see|i can access|i could find)\b")
# ... by another name, said to lack what was asked: "None of the retrieved documents address
# this.", "The given context does not say." (what they say is a claim with a prose
# attribution: "The retrieved documents show that ..."); and the writer failing to reach
# them: "I'm having trouble connecting right now.", "I couldn't access the article."
# (a pattern of its own, tried where its rarer words are: the one above is tried often)
_SOURCES_ELSEWISE = re.compile(
    r"\b(?:none|neither|nothing|little) (?:of|in) the (?:retrieved|provided|given) (?:documents?|"
    r"materials?|texts?|context)\b|\bthe (?:retrieved|provided|given) (?:documents?|materials?|"
    r"texts?|context) (?:do(?:es)? not|don['’]t|doesn['’]t|say(?:s)? (?:little|nothing)|lacks?|"
    r"(?:is|are) silent|make(?:s)? no mention|contains? no|(?:do(?:es)?n['’]t|do(?:es)? not) "
    r"(?:say|mention|cover|address))\b|"
    r"\b(?:i|we)(?:['’]m|['’]re| am| are) having (?:some |a few )?(?:problems?|trouble|"
    r"difficult(?:y|ies)|issues?) (?:connecting|accessing|finding|reaching|retrieving|loading|"
    r"getting|searching)\b|\b(?:i|we) (?:can(?:no|['’])t|am unable to|was unable to|"
    r"couldn['’]t) (?:access|connect to|reach|retrieve|load|open|browse)\b")
_SOURCES_ELSEWISE_WORDS = frozenset(("retrieved", "provided", "given", "having", "unable",
                                     "cannot", "can't", "can’t", "couldn't", "couldn’t"))
_ABOUT_SOURCES_START = re.compile(
    r"\W{0,3}(?:a |an )?(?:fuller|complete|full|definitive|precise|more (?:complete|detailed|"
    r"precise|specific|definitive)|(?:answering|confirming|addressing|settling|verifying) "
    r"(?:this|that|it)(?: \w+)?) (?:answer )?(?:would|will|might|could) (?:need|require|take|call "
    r"for)\b")
_ABOUT_SOURCES_WORDS = frozenset(("passage", "passages", "source", "sources", "results",
                                  "snippets", "excerpts", "references", "links", "articles",
                                  "documents", "context", "more", "found", "need",
                                  "require", "take", "call", "i", "me", "hand"))
# - an announcement ending in a full stop: a set said to exist ("There are several factors
#   one can adjust.", "The reform also faced several criticisms."), its members unnamed;
_SOME = (r"(?:several|many|various|numerous|a few|a number of|some|multiple|a variety of|"
         r"different|a range of|countless|a lot of|lots of|plenty of|a host of)")
_SET_NOUN = (r"(?:ways?|factors?|options?|things|steps|reasons|approaches|methods|strategies|"
             r"considerations|aspects|points|possibilities|tips|ideas|choices|alternatives|"
             r"routes|issues|challenges|benefits|advantages|disadvantages|drawbacks|criticisms?|"
             r"concerns|questions|elements|limitations|risks|obstacles|hurdles|controversies|"
             r"objections|implications|consequences|variables|nuances|caveats|perspectives|"
             r"viewpoints|angles|avenues|resources|opportunities|trade-?offs|pitfalls|theories|"
             r"explanations|solutions|proposals|models|frameworks|techniques|definitions|"
             r"interpretations|hypotheses|suggestions|effects|impacts|changes|outcomes)")
_ANNOUNCE = re.compile(
    _OPENER + r"there (?:are|is|were|exist|remain|can be|may be|might be) " + _SOME
    + r" (?:\w+ ){0,2}?" + _SET_NOUN + r"\b|\b(?:also |has |have |had )?(?:faced|faces|face|"
    r"drew|draws|attracted|attracts|received|receives|raised|raises|presents?|presented|"
    r"involves?|involved|offers?|offered|brings?|brought|comes? with|came with|has|have|had)"
    r" " + _SOME + r" (?:\w+ ){0,2}?" + _SET_NOUN + r"(?: as well| too)?\W*$|"
    # the set said to have been put forward: "Various remedies have been suggested."
    + _OPENER + r"(?:a |an )?" + _SOME + r" (?:\w+ ){0,2}?" + _SET_NOUN + r" (?:have|has|had)"
    r" (?:also )?been (?:proposed|suggested|developed|put forward|offered|advanced|identified|"
    r"explored|tried|tested|studied|discussed|considered|made|described|raised|used|noted|"
    r"reported|floated|debated)(?: over (?:the years|time)| in the literature| so far| to date|"
    r" as well| too)?\W*$")
_ANNOUNCE_WORDS = frozenset(("several", "many", "various", "numerous", "few", "number", "some",
                             "multiple", "variety", "different", "range", "countless", "lot",
                             "lots", "plenty", "host"))
# - a disclaimer: a modal dependence ("This may vary with location.", "The remedy may depend on
#   the contract."; "Prices vary by region." states one as fact and stays a claim), a note
#   that the answer is simplified or general, a vacuous complexity;
_DISCLAIM = re.compile(
    _OPENER + r"(?:this|that|it|these|those|things|much|everything|details|specifics|results|"
    r"outcomes|experiences|(?:the|your|each|every|any) (?:\w+ )?(?:answer|outcome|results?|"
    r"remedy|situation|approach|choice|option|decision|details|specifics|process|experience|"
    r"case|circumstances|needs|goals|plan|solution)) (?:may|might|can|could|will|would|often|"
    r"usually|typically|generally) (?:also |well |greatly |significantly |largely |really |"
    r"ultimately )?(?:vary|differ|depend|change|hinge|rest|turn on|come down|boil down)\b|"
    r"\bno (?:single|simple|easy|clear|straightforward|definitive|universal|one|right) (?:\w+ )?"
    r"(?:answer|solution)\b|^\W{0,3}(?:please )?"
    r"(?:note|keep in mind|bear in mind|remember) that\b|\b(?:is|are) (?:a |an )?(?:simplified|"
    r"simplification|oversimplification|general|rough|approximate|not exhaustive|incomplete|"
    r"overview|general guide|not (?:legal|medical|financial|professional|an exhaustive))\b|"
    r"\bthere is no (?:single|simple|easy|one-size-fits-all|one|universal|right) (?:\w+ )?"
    r"(?:answer|solution|way|approach|rule|formula|recipe|path|fix)\b|\b(?:depends|depending)"
    r" (?:on|upon) (?:many|several|various|a (?:number|range|variety) of|your|"
    r"individual|personal)\b")
# The same dependence stated of a vague whole: "It all depends on timing.", "A great deal
# hinges on the wording.", "The right choice comes down to what you value." (matched at the
# unit's start)
_DISCLAIM_START = re.compile(
    _OPENER + r"(?:it all|it|this|that|much|so much|a lot|a great deal|everything|(?:the|your)"
    r" (?:right |best |final )?(?:answer|choice|decision|outcome|option|approach|solution|call))"
    r" (?:really |ultimately |largely |mostly |often |usually |all |simply )?(?:depends|hinges|"
    r"rests|turns|comes down|boils down) (?:on|upon|to)\b")
_DISCLAIM_WORDS = frozenset(("may", "might", "can", "could", "will", "would", "often", "usually",
                             "typically", "generally", "note", "keep", "bear", "remember",
                             "simplified", "simplification", "oversimplification", "general",
                             "rough", "approximate", "exhaustive", "incomplete", "overview",
                             "not", "no", "depends", "depending", "hinges", "rests", "turns",
                             "comes", "boils"))
# - a platitude: an evaluative predicate over a generic subject with nothing after it but
#   a vacuous tail ("A proper protocol is essential.", "Doing this well is a complex task that
#   needs careful planning."), or a promise of success to the reader ("By applying these
#   principles you will improve your results.");
_EVALUATIVE = (r"(?:essential|crucial|critical|key|vital|important|paramount|fundamental|"
               r"necessary|invaluable|indispensable|complex|challenging|difficult|tricky|"
               r"daunting|rewarding|demanding|nuanced|multifaceted|complicated|worthwhile)")
_PLATITUDE = re.compile(
    r"\b(?:is|are|remains|remain|can be|will be|becomes|become)(?: often| always| truly| "
    r"really| also)? (?:(?:a|an|the) )?(?:very |highly |extremely |truly |incredibly |most |"
    r"quite |often |always )?" + _EVALUATIVE + r"(?: (?:task|process|endeavou?r|undertaking|"
    r"question|issue|topic|matter|challenge|skill|job|step|part|consideration|factor|area|"
    r"decision|journey|balance))?(?:\W*$| (?:that|which) (?:needs|requires|takes|demands|"
    r"involves|calls for)\b| with no\b| for (?:success|any|every|all|a successful|the success|"
    r"good results|best results)\b| to get right\b| in (?:this|any|every|such) \w+\W*$)|"
    r"\b(?:by|through|with|when|if|once) (?:\w+ing |you \w+ )?(?:these|this|the|such|those|"
    r"your|our) (?:\w+ ){0,2}?(?:steps|tips|principles|strategies|guidelines|practices|"
    r"recommendations|ideas|suggestions|approach|approaches|advice|methods|techniques|"
    r"insights)\b.*\byou(?:['’]ll| will| can| should be able to| are sure to)\b|"
    # a maxim or a promise in other words, with nothing after it: "Comfort must come first.",
    # "Patience will pay dividends.", "A good plan goes a long way.", "Regular reviews will help
    # you reach better results.", "Rest should be your top priority."
    r"\b(?:should|must|will|has to|needs to|ought to) (?:always |still )?come first\W*$|"
    r"\b(?:should|must) (?:always )?be (?:your|the|a) (?:top |first |main |number one |highest )?"
    r"priority\W*$|\b(?:should|must|can) never be (?:sacrificed|compromised|overlooked|"
    r"underestimated|neglected|ignored)(?: for \w+)?\W*$|\b(?:pays?|paid|pay) (?:off|dividends)"
    r"(?: in the (?:long run|long term|end)| over time| later| eventually| every time)?\W*$|"
    r"\b(?:goes?|went|go) a long way\W*$|\bmakes? (?:all the|a (?:big|huge|real|great|world of))"
    r" difference\W*$|\bwill serve you well\W*$|\b(?:will|can|should|would) (?:help you |"
    r"lead (?:you )?to |ensure |result in )(?:make |get |achieve |see |reach |enjoy )?(?:better|"
    r"lasting|good|great|the best|positive|steady|real|smoother|more successful|successful) "
    r"(?:outcomes|results|decisions|progress|success|experiences?|changes?|improvements?)"
    r"(?: over time| in the long run| in the end)?\W*$|\bsave you (?:a lot of |plenty of |much |"
    r"some )?(?:time|stress|trouble|money|headaches|hassle|effort)(?: later| down the line| in "
    r"the long run)?\W*$|\b(?:is|are) (?:the )?key to (?:success|a successful \w+|good "
    r"results)\W*$")
_PLATITUDE_WORDS = frozenset(("essential", "crucial", "critical", "key", "vital", "important",
                              "paramount", "fundamental", "necessary", "invaluable",
                              "indispensable", "complex", "challenging", "difficult", "tricky",
                              "daunting", "rewarding", "demanding", "nuanced", "multifaceted",
                              "complicated", "worthwhile", "you", "you'll", "you’ll",
                              "first", "priority", "never", "off", "dividends", "way",
                              "difference", "outcomes", "results", "decisions", "progress",
                              "success", "experience", "experiences", "change", "changes",
                              "improvement", "improvements"))
# Two shapes vacuous whatever they name: knowing a thing said to matter, for a purpose at
# most ("Understanding the roles of metal ions is crucial for developing new therapies.", a
# platitude; not with a reason: "... is critical, since treatment within hours ...") and
# limits said to exist, none named, in the present ("The Sharpe ratio has its shortcomings.",
# an announcement; not "The vaccine has major flaws.", a judgement).
_KNOWING_MATTERS = re.compile(
    r"\W{0,3}(?:(?:however|thus|therefore|ultimately|overall|so),? )?(?:understanding|knowing|"
    r"recogni[sz]ing|being aware of|appreciating|grasping) [^.;:!?]{0,120}?\b(?:is|are|remains) "
    r"(?:(?:thus|therefore|also|especially|particularly|absolutely|truly|very|highly) )?"
    r"(?:essential|crucial|critical|key|vital|important|paramount|fundamental|necessary|"
    r"invaluable|indispensable)(?:(?: for| to| in| when)\b(?![^.]*\b(?:because|since|as it|"
    r"as they|according|which|who|so that|given that)\b)[^.;:!?]{0,150})?\W*$")
_KNOWING_WORDS = frozenset(("understanding", "knowing", "recognizing", "recognising", "aware",
                            "appreciating", "grasping"))
_LIMITS_EXIST = re.compile(
    r"\b(?:has|have) (?:(?:its|their)(?: own)?|some(?: inherent)?|certain|inherent) (?:"
    r"limitations|shortcomings|drawbacks|weaknesses|downsides|flaws)\W*$|\b(?:it|they|this|"
    r"these) (?:has|have) (?:challenges and |challenges or )?(?:limitations|shortcomings|"
    r"drawbacks|weaknesses|downsides)\W*$")
_LIMITS_WORDS = frozenset(("limitations", "shortcomings", "drawbacks", "weaknesses", "downsides",
                           "flaws"))
# - a piece of a bibliography run into the answer: an author ("Lee, K.", "Lee, K., & Park,
#   J."), a year alone ("(2017)."), where it is found ("Available: https://...", "Retrieved
#   from ..."), a title between such pieces.
_AUTHORS = re.compile(r"(?:[A-Z][\w'’-]+, (?:[A-Z]\.\s?){1,3},?\s?(?:(?:&|and)\s)?)+(?:et al\.)?"
                      r"(?:\s?\((?:1[5-9]|20)\d\d[a-z]?\)\.?)?")
_YEAR_ALONE = re.compile(r"\((?:1[5-9]|20)\d\d[a-z]?\)[.,]?")
_WHERE_FOUND = re.compile(r"(?:available|retrieved|accessed|online)(?: from| at| on)?:?\s+<?(?:https?://|www\.|\[)")
# - where in its journal an entry is ("Journal of Soil Science, 12(3), 45-67.", "pp. 12-19.",
#   "Vol. 3, No. 2.", "doi:10.1000/xyz"): its numbers state nothing. A journal's title is
#   capitalised words (and "of", "and", "the", "&"), and a volume alone needs its issue or
#   its pages after it: "Oslo, 2019." stays a claim's piece.
_PAGES = r"(?:pp?\. ?)?[A-Za-z]?\d{1,6}(?:\s?[-–]\s?[A-Za-z]?\d{1,6})?"
_WHERE_IN = re.compile(
    r"(?:[A-Z][\w'’&-]*(?: (?:of|and|the|for|in|on|&|[A-Z][\w'’&-]*)){0,8}, )?"
    r"(?:\d{1,4}\(\d{1,4}(?:[-–]\d{1,4})?\)(?:, " + _PAGES + r")?|\d{1,4}, " + _PAGES + r")\.?"
    r"|pp?\. ?\d{1,6}(?:\s?[-–]\s?\d{1,6})?\.?"
    r"|(?:[Vv]ol\.|[Vv]olume) ?\d{1,4}(?:, ?(?:[Nn]o\.|[Ii]ssue) ?\d{1,4})?(?:, ?pp?\. ?\d{1,6}"
    r"(?:\s?[-–]\s?\d{1,6})?)?\.?"
    # a journal's title is matched as capitalised words: no IGNORECASE, which would let it
    # run over any words and back (a unit's whole length, on every unit that names a number)
    r"|(?i:doi: ?|https?://(?:dx\.)?doi\.org/)10\.\d{4,9}/\S+")
GUIDE_RULES = (("guide:reference", "reference"), ("guide:pleasantry", "pleasantry"),
               ("guide:advice", "advice"), ("guide:meta", "meta"),
               ("guide:announcement", "announcement"), ("guide:disclaimer", "disclaimer"),
               ("guide:platitude", "platitude"), ("guide:heading", "heading"))


def reference_piece(text: str) -> bool:
    """Whether ``text`` (a unit's content) is wholly a piece of a bibliography entry: its
    authors, its year alone, where it is found (``Available: <URL>``) or where in its
    journal (volume, issue, pages, DOI); or a line naming where what precedes it came from
    (``source_line``).
    """
    if source_line(text):
        return True
    if len(text) > 120:
        return False
    if ", " in text and text[:1].isupper() and _AUTHORS.fullmatch(text.rstrip()) is not None:
        return True
    if len(text) <= 9 and _YEAR_ALONE.fullmatch(text) is not None:
        return True
    if text[:1] in "AaRrOo" and _WHERE_FOUND.match(text.lower()) is not None:
        return True
    # every match of _WHERE_IN is a few words holding a digit, and opens with its pages, its
    # volume, its DOI or a volume's digits, or holds a comma after its journal's title
    return text.count(" ") <= 12 and (text[:1] in "pVvdDhH0123456789" or ", " in text) and \
        _DIGIT.search(text) is not None and _WHERE_IN.fullmatch(text.rstrip()) is not None


def source_line(text: str) -> bool:
    """Whether ``text`` (a unit's content) names where what precedes it came from: a
    "Source:" or "References:" label, then titles and links with no sentence among them
    ("*Source: [Investopedia—Value Investing](https://…)*", "Source: National Survey of
    Family Income 2014, Ministry of Internal Affairs"): what is left of it without its links
    is names, capitalised but the small words, with no number but a year, and asides in
    brackets with no verb and no number but a year. A link's text is a title, whatever its
    words.
    """
    if len(text) > _SOURCE_LENGTH or text.lstrip("*_[( ")[:1] not in _SOURCE_OPENERS:
        return False  # (one look at the first letter: most units are no such line)
    label = _SOURCE_LABEL.match(text)
    if label is None:
        return False
    rest = _URL_TOKEN.sub(" ", _MD_LINK.sub(" ", text[label.end():]))
    for aside in ASIDE.findall(rest):  # "(2020)", "(latest microdata available)": no claim
        if finite(words_of(aside)) or not all(_YEAR.fullmatch(n) for n in _NUMBER.findall(aside)):
            return False
    rest = ASIDE.sub(" ", rest)
    named = _WORD.findall(rest)
    return all(w[:1].isupper() or w.lower() in _SMALL for w in named) and \
        not finite([w.lower() for w in named]) and \
        all(_YEAR.fullmatch(run) for run in _NUMBER.findall(rest))


def names_nothing(text: str, tokens: Sequence[str]) -> bool:
    """Whether a unit names nothing a source could back: no digit, and no capitalised word
    after its first but "I" (and after an opening "So," or "Overall,").
    """
    if _DIGIT.search(text):
        return False
    start = 2 if len(tokens) > 1 and tokens[0].endswith(",") else 1
    return not any(t[:1].isupper() and t.rstrip(".,;:!?") not in _I_FORMS for t in tokens[start:])


def guide_features(text: str, lowered: str, tokens: Sequence[str], have: set[str]) -> list[str]:
    """The guide's not-citable shape a unit's content has (``GUIDE_RULES``), as a feature:
    at most one, the first that fits.
    """
    if reference_piece(text) if len(tokens) <= 8 else source_line(text):
        return ["guide:reference"]
    if not have.isdisjoint(_REPORT_WORDS) and _REPORT_DOES.match(lowered):
        return ["guide:meta"]
    if _DIGIT.search(text) is None:  # (an amount is settled before: no digit, no amount)
        if not have.isdisjoint(_KNOWING_WORDS) and _KNOWING_MATTERS.match(lowered):
            return ["guide:platitude"]
        if len(tokens) <= 16 and not have.isdisjoint(_LIMITS_WORDS) and \
                _LIMITS_EXIST.search(lowered):
            return ["guide:announcement"]
    if len(tokens) > 20 or not names_nothing(text, tokens):
        return []
    for words, pattern, start, name in (
            (_PLEASANTRY_WORDS, _PLEASANTRY, _PLEASANTRY_START, "guide:pleasantry"),
            (_OWN_VIEW_WORDS, _OWN_VIEW, None, "guide:advice"),
            (_ABOUT_SOURCES_WORDS, _ABOUT_SOURCES, _ABOUT_SOURCES_START, "guide:meta"),
            (_SOURCES_ELSEWISE_WORDS, _SOURCES_ELSEWISE, None, "guide:meta"),
            (_ANNOUNCE_WORDS, _ANNOUNCE, None, "guide:announcement"),
            (_DISCLAIM_WORDS, _DISCLAIM, _DISCLAIM_START, "guide:disclaimer"),
            (_PLATITUDE_WORDS, _PLATITUDE, None, "guide:platitude")):
        # a platitude is said in a few words: a longer sentence states more than it
        if name == "guide:platitude" and len(tokens) > 14:
            break
        if not have.isdisjoint(words) and (pattern.search(lowered) or (
                start is not None and start.match(lowered))):
            return [name]
    return []


def title_line(text: str, tokens: Sequence[str], unit: Unit, before: str) -> bool:
    """Whether a unit is a title on a line of its own that the layout rules leave (a short
    verbless line with no blank line before it, or nothing under it): two to eight words,
    each capitalised but the small ones ("Risks of the Plan", "RESULTS AND DISCUSSION"),
    not a cell of a table, not a list item, not the completion of a lead-in's colon and not
    a source's name in capitals under the sentence it backs.
    """
    if not 2 <= len(tokens) <= 8 or "line:short" not in unit.layout or \
            "cell" in unit.layout or "lines:spans" in unit.layout or before.endswith(":"):
        return False
    for token in tokens:
        if not token[:1].isupper() and token.lower() not in _SMALL:
            return False
    # A line in capitals right under a sentence is the name of the source that backs it
    # ("... a new sales record.\nELITE DAILY"): a piece of a bibliography, which the model
    # reads so.
    if text == text.upper() and before.endswith((".", "!", "?")):
        return False
    return not text.endswith(tuple(".!?;:,")) and not reference_shaped(text)


class Unit(NamedTuple):
    """One uncited unit with what surrounds it."""

    text: str
    before: str = ""  # the unit before it ("" at the start)
    after: str = ""  # the unit after it ("" at the end)
    alone: bool = False  # the unit is a whole line of the answer
    blank_after: bool = False  # a blank line (or the end) follows its line
    layout: tuple[str, ...] = ()  # where it stands in the answer (named by core._layout)


def unit_at(answer: str, start: int, end: int, before: str = "", after: str = "") -> Unit:
    """The unit ``answer[start:end]`` with where it stands on its lines."""
    line_start = answer.rfind("\n", 0, start) + 1
    line_end = answer.find("\n", end)
    line_end = len(answer) if line_end < 0 else line_end
    alone = not answer[line_start:start].strip(" \t>-*+#0123456789.)") and \
        not answer[end:line_end].strip()
    rest = answer[line_end + 1:]
    blank_after = line_end >= len(answer) or not rest.split("\n", 1)[0].strip()
    return Unit(answer[start:end], before, after, alone, blank_after)


class Citability(NamedTuple):
    """The decision on one unit: its score, whether it needs a citation, and why."""

    score: float  # the probability that a reader would want it sourced
    citable: bool
    kind: str  # why: "figure", "entity", "passage N", "claim" when citable; else a KINDS kind


def _bucket(value: int, bounds: Sequence[int]) -> int:
    for index, bound in enumerate(bounds):
        if value <= bound:
            return index
    return len(bounds)


def features(  # noqa: C901 -- one flat list of named features, each a test or two
        unit: Unit, passage_words: Sequence[frozenset[str]] = (), *,
             bag: bool = True) -> list[str]:
    """The names of the features of ``unit`` that are on (its words and shapes; see the
    module's docstring). ``passage_words``: the content words of each retrieved passage;
    ``bag``: with its words (``w:``, ``o2:``), which only the kind model reads.
    """
    raw = unit.text
    text = content_of(raw)
    found: list[str] = ["bias"]
    if _BULLET.match(raw):
        found.append("bullet")
    if _EMPHASIS.match(raw) or (text.endswith(("**", "__")) and len(text) < 120):
        found.append("emphasis")
    tokens = _TOKEN.findall(text)
    words = [w.lower() for w in _WORD.findall(text)]
    found.append(f"len:{_bucket(len(tokens), (1, 2, 4, 7, 12, 20, 35))}")
    if bag:
        found.extend(bag_of_words(words))
    if words:
        found.append(f"o1:{words[0]}")
    last = text.rstrip("*_ )\"'”’")[-1:] if text else ""
    found.append("end:" + {".": "stop", ":": "colon", "?": "question", "!": "bang",
                           ";": "semi", ",": "comma"}.get(last, "none"))
    if "\n" in raw.strip():
        found.append("lines")
    if unit.alone:
        found.append("alone" + (":blank" if unit.blank_after else ""))
    if states_amount(text):
        found.append("amount")
    elif _DIGIT.search(text):
        found.append("digit")
    names = sum(1 for t in tokens[1:] if t[:1].isupper() and t.lower().strip(".,;:()") not in
                _SMALL)
    found.append(f"names:{_bucket(names, (0, 1, 3))}")
    capitalised = sum(1 for t in tokens if t[:1].isupper())
    if len(tokens) >= 2 and capitalised >= 0.6 * len(tokens) and last not in ".!?":
        found.append("title")
    if any(len(t) >= 4 and t[1:] != t[1:].lower() for t in tokens):  # upper after the first
        found.append("mixedcase")
    if sum(len(w) >= 11 for w in words) >= 2:
        found.append("longwords")
    pronouns = set(words)
    if pronouns & _FIRST:
        found.append("person:first")
    if pronouns & _SECOND:
        found.append("person:second")
    if pronouns & _MODAL:
        found.append("modal")
    lowered = text.lower()
    if _URL.search(lowered):
        found.append("url")
    if reference_shaped(text):
        found.append("reference")
    if _QUOTE.search(text):
        found.append("quote")
    if "|" in text:
        found.append("table")
    before = unit.before.rstrip("*_ ")
    if not unit.before and not unit.after:
        found.append("place:only")  # a one-unit answer is neither an opening nor a closing
    elif not unit.before:
        found.append("place:first")
    elif not unit.after:
        found.append("place:last")
    if before.endswith(":"):
        found.append("after:colon")
    found.extend(_shape_features(raw, text, tokens, words, last))
    found.extend(guide_features(text, lowered, tokens, pronouns))
    if not found[-1].startswith("guide:") and "verb:none" in found and len(tokens) <= 12 and (
            reference_piece(content_of(unit.before)) or reference_piece(content_of(unit.after))):
        found.append("guide:reference")  # a title between the pieces of an entry
    elif not found[-1].startswith("guide:") and title_line(text, tokens, unit, before):
        found.append("guide:heading")
    found.extend(unit.layout)
    if passage_words:
        found.extend(overlap(words, passage_words))
    return found


def overlap(words: Sequence[str], passage_words: Sequence[frozenset[str]]) -> list[str]:
    """The overlap feature of a unit's lower-cased ``words``: how much of its content the
    retrieved passage closest to it holds, in buckets.
    """
    content = {w for w in words if len(w) > 3}
    if not content or not passage_words:
        return []
    best = max(len(content & p) for p in passage_words) / len(content)
    return [f"overlap:{_bucket(int(best * 10), (1, 3, 5, 7))}"]


def bag_of_words(words: Sequence[str]) -> list[str]:
    """The word features of a unit's lower-cased ``words``: each word once, in the order of
    its first use (a set's order changes between processes, and with it the sum of the
    weights in its last bits: a unit on the threshold would be decided differently), and
    the opening pair.
    """
    found = [f"w:{w}" for w in dict.fromkeys(words)]
    if len(words) > 1:
        found.append(f"o2:{words[0]}_{words[1]}")
    return found


def words_of(text: str) -> list[str]:
    """The words of ``text``, lower-cased."""
    return [w.lower() for w in _WORD.findall(text)]


def content_of(raw: str) -> str:
    """A unit's text as its features read it: without a list bullet and opening emphasis."""
    return _EMPHASIS.sub("", _BULLET.sub("", raw)).strip()


def passage_words(text: str) -> frozenset[str]:
    """The content words of a retrieved passage, as the overlap feature reads them."""
    return frozenset(w for w in text.lower().split() if len(w) > 3)


def finite(words: Sequence[str]) -> bool:
    """Whether lower-cased ``words`` hold a finite verb (a sentence, not a title or a cell):
    one of the common verbs, a pronoun subject followed by a word ("it stands", "they
    caucus"), or a word after the first ending in "-s" or "-ed" followed by an object's or a
    complement's opening ("holds the record", "collaborated with", "acts as"). A title's
    participle or plural is followed by a noun ("Frequently Asked Questions", "Steps
    Forward"), and its first word is never read so ("Advanced Methods").
    """
    if not _VERBS.isdisjoint(words):
        return True
    for at in range(1, len(words)):
        word, previous = words[at], words[at - 1]
        if previous in _SUBJECTS:
            return True
        if at + 1 < len(words) and words[at + 1] in _OBJECT_OPENERS and len(word) > 3 and \
                (word.endswith("ed") or (word.endswith("s") and not word.endswith(_NOT_VERB_S))):
            return True
    return False


def reference_shaped(text: str) -> bool:
    """Whether ``text`` holds a piece of a bibliography entry ("Lee, K.", "(2017)", "et al",
    "doi", "pp. 4", "Retrieved from", a numbered entry).
    """
    return bool((_AUTHOR_INITIAL.search(text) and _REFERENCE_AUTHOR.search(text)) or
                ("(" in text and _REFERENCE_YEAR.search(text)) or
                (may_name_reference(text) and _REFERENCE_WORDS.search(text)) or
                _REFERENCE_ENTRY.match(text))


def entry_shaped(text: str) -> bool:
    """Whether a line has the shape of a bibliography entry: authors and years, a numbered
    ``[n]`` entry, or one link with a title of a few words.
    """
    if not text or len(text) > _ENTRY_LENGTH or "|" in text:
        return False
    links = urls_of(text) + markdown_links_of(text)
    if links:
        # A sentence that ends in a bare URL is an inline citation, not an entry.
        prose = _WORD.findall(_MD_LINK.sub(" ", _URL_TOKEN.sub(" ", text)))
        return len(links) == 1 and (len(links[0]) > 0.5 * len(text) or len(prose) < 8)
    return bool(reference_shaped(text) or author_year(text) or _NUMBERED_ENTRY.match(text))


# What every match of a pattern holds: where none of it is in a text, the search is skipped
# (most units hold no reference, link or year). tests/test_citable.py holds each to its pattern.
# What every match of _REFERENCE_WORDS holds: one of these words, or a page ("p. 4", "pp.12").
_IN_REFERENCE_WORDS = ("et al", "doi", "ISBN", "Vol.", "No.", "Available", "Retrieved",
                       "Accessed")
_PAGE = re.compile(r"p\. ?\d")


def may_name_reference(text: str) -> bool:
    """Whether ``text`` holds what every match of ``_REFERENCE_WORDS`` holds (substring tests,
    and a pattern that opens with a literal where a "p." is there).
    """
    return any(word in text for word in _IN_REFERENCE_WORDS) or (
        "p." in text and _PAGE.search(text) is not None)


def urls_of(text: str) -> list[str]:
    """The bare URLs of ``text`` (``_URL_TOKEN``)."""
    return _URL_TOKEN.findall(text) if "http" in text or "www." in text else []


def markdown_links_of(text: str) -> list[str]:
    """The markdown links of ``text`` (``_MD_LINK``)."""
    return _MD_LINK.findall(text) if "](" in text else []


def label_of(text: str) -> re.Match[str] | None:
    """``text``'s label, the words before its colon ("Report date: ..."): ``_LABEL``'s match,
    looked for only where a colon comes soon enough (every match holds one among the first
    67 characters).
    """
    return _LABEL.match(text) if text.find(":", 0, 67) >= 0 else None


def author_year(text: str) -> bool:
    """Whether ``text`` cites by author and year ("Lee, 2017", "Lee et al. (2019)")."""
    return ("19" in text or "20" in text) and _SPACED_YEAR.search(text) is not None and \
        _AUTHOR_YEAR.search(text) is not None


def lead_features(text: str) -> list[str]:
    """What a list item's lead-in says, named ``lead:<feature>``: an item is read as the
    completion of its lead-in ("Common symptoms include:" makes its items claims; "We will
    first:" makes them a plan).
    """
    names = set(features(Unit(text)))
    if names & {"plan", "imperative", "person:first", "person:second"}:
        return ["lead:says:plan"]
    if names & {"self:subject", "meta:lex"}:
        return ["lead:says:self"]
    if "verb" in names:
        return ["lead:says:claim"]
    return ["lead:says:title"]


def _shape_features(raw: str, text: str, tokens: Sequence[str], words: Sequence[str],
                    last: str) -> list[str]:
    """What a unit's form says beyond its words: a sentence or a title, a plan or a finding,
    a pointer to the sources, a bibliography entry, an inline link.
    """
    found = []
    lowered = text.lower()
    has_verb = finite(words)
    found.append("verb" if has_verb else "verb:none")
    if words and words[0] in _IMPERATIVE and not (len(words) > 1 and words[1] in _VERBS):
        found.append("imperative")
    if _META.search(lowered):
        found.append("meta:lex")
    if SELF.match(text):
        found.append("self:subject")
    have = set(words)
    if not have.isdisjoint(_PLAN_WORDS) and _PLAN.search(lowered):
        found.append("plan")
    if not have.isdisjoint(_HEDGE_WORDS) and _HEDGE.search(lowered):
        found.append("hedge")
    if author_year(text):
        found.append("author-year")
    links = markdown_links_of(text)
    if links:
        found.append("md-link")
    url_chars = sum(len(u) for u in urls_of(text)) + sum(len(k) for k in links)
    if url_chars:
        share = url_chars / max(len(text), 1)
        prose = len(words) - sum(1 for w in words if w in ("https", "http", "www", "com", "org"))
        found.append("url:mostly" if share > 0.5 or prose < 5 else "url:inline")
    # Every letter upper case: no lower-case letter, and at least three letters.
    uncased = text == text.upper()
    if uncased and sum(map(len, _WORD.findall(text))) >= 3:
        found.append("caps:all")
    if not uncased and _ACRONYM.search(text):
        found.append("acronym")
    if len(_MATH.findall(text)) >= 2:
        found.append("math")
    if _TIMELINE.match(text):
        found.append("timeline")
    stripped = raw.strip()
    if stripped.startswith(("**", "__")) and stripped.rstrip(".:").endswith(("**", "__")) and \
            stripped.count("**") == 2:
        found.append("bold:whole")
    label = label_of(text)
    if label and len(label.group(1).split()) <= 6:
        found.append("label:content" if has_verb or len(tokens) > 8 else "label:short")
        found.extend(_label_features(text, label))
    found.extend(_writer_features(lowered, tokens, have, "self:subject" in found))
    if last not in ".!?" and not has_verb and len(tokens) <= 10:
        found.append("titleish")
    if len(tokens) <= 3 and last not in ".!?:":
        found.append("stub")
    return found


def about_itself(text: str) -> bool:
    """Whether a unit's content (``content_of``) is a form field of the report itself (its
    date, a rating on its own scale) or a phase of its plan titled by its time span: the
    amounts it names ask for no citation (``form:own``, ``span:title``), or the writer saying
    what it is about to search for (``narration:plan``).
    """
    lowered = text.lower()
    if (len(lowered) < 40 and _SPAN_TITLE.match(lowered)) or (
            _NARRATION.match(lowered) and _PLANNED.match(lowered)):
        return True
    label = label_of(text)
    return bool(label and len(label.group(1).split()) <= 6 and (
        _FORM_OWN.match(label.group(1).strip(" *_").lower()) or
        _RATED.match(lowered[label.end():].strip(" *_"))))


def _writer_features(lowered: str, tokens: Sequence[str], have: set[str],
                     self_subject: bool) -> list[str]:
    """The writer's own search, plan and counsel: narrating its search, a plan's phase titled
    by its time span, obligation or recommendation, the answer as the subject doing what
    reports do ("This report examines ...").
    """
    found = []
    if _NARRATION.match(lowered):
        found.append("narration")
        if _PLANNED.match(lowered):
            found.append("narration:plan")
    if len(tokens) <= 5 and _SPAN_TITLE.match(lowered):
        found.append("span:title")
    if not have.isdisjoint(_OBLIGE_WORDS) and _OBLIGE.search(lowered):
        found.append("oblige")
    if self_subject and _SELF_VERB.search(lowered):
        found.append("self:does")
    if _UNKNOWN.match(lowered):
        found.append("form:unknown")
    return found


def _label_features(text: str, label: re.Match[str]) -> list[str]:
    """What the label of a "Label: content" line says: a form field of the report itself
    (``form:own``: its date, a rating on its own scale; ``form:field``: its client, scope),
    the writer's plan ("Recommended Approach:"), content opening with an imperative.
    """
    found = []
    name = label.group(1).strip(" *_").lower()
    if _FORM_OWN.match(name):
        # the assessor's rating is the writer's own judgement (advice), the date a field
        found.append("form:rating" if name.endswith(("rating", "score")) or ")" in name or
                     name[-1:].isdigit() else "form:own")
    elif _RATED.match(text[label.end():].strip(" *_").lower()):
        found.append("form:rating")
    elif _FORM_FIELD.match(name):
        found.append("form:field")
    if _PLAN_LABEL.search(name):
        found.append("label:plan")
    rest = _WORD.findall(text[label.end():label.end() + 40])
    if rest and rest[0].lower() in _IMPERATIVE:
        found.append("label:imperative")
    return found


# The overlap ranges worked out, by the weights they were worked out from.
_RANGES: dict[int, tuple[dict[str, float], tuple[float, float]]] = {}


class Model(NamedTuple):
    """The shipped weights: one logistic model for citability, one softmax over KINDS."""

    weights: dict[str, float]
    kinds: dict[str, tuple[float, ...]]
    threshold: float  # the balanced preset's

    def score(self, names: Iterable[str], more: float = 0.0) -> float:
        """The probability that a unit with these features is citable (``more``: added to
        the sum of their weights).
        """
        weights = self.weights
        total = more + sum(weights.get(name, 0.0) for name in names)
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, total))))

    @property
    def overlap_range(self) -> tuple[float, float]:
        """The least and the most the overlap feature adds to a unit's sum (0: none)."""
        weights = self.weights
        known = _RANGES.get(id(weights))
        if known is None or known[0] is not weights:
            added = [w for name, w in weights.items() if name.startswith("overlap:")]
            known = _RANGES[id(weights)] = (weights, (min(0.0, *added), max(0.0, *added)))
        return known[1]

    def kind(self, names: Iterable[str]) -> str:
        """The not-citable kind likeliest for a unit with these features."""
        sums = [0.0] * len(KINDS)
        kinds = self.kinds
        for name in names:
            row = kinds.get(name)
            if row is not None:
                for index, weight in enumerate(row):
                    sums[index] += weight
        return KINDS[max(range(len(KINDS)), key=sums.__getitem__)]


@functools.cache
def load_model() -> Model:
    """The model shipped with the package."""
    data = json.loads((Path(__file__).with_name("citable.json")).read_text(encoding="utf-8"))
    return Model(dict(data["weights"]), {k: tuple(v) for k, v in data["kinds"].items()},
                 float(data["threshold"]))


def citability(unit: Unit,
               passage_words: Sequence[frozenset[str]] | Callable[[], Sequence[frozenset[str]]]
               = (), threshold: float | None = None, model: Model | None = None) -> Citability:
    """Whether ``unit`` needs a citation (score at least ``threshold``, default the model's
    balanced one), and why. A unit stating an amount always does.

    ``passage_words`` may be given as a function that makes them: it is called only where
    the overlap with the passages could change the decision (reading every passage's words
    costs more than the rest of the decision).
    """
    model = model or load_model()
    cut = model.threshold if threshold is None else threshold
    names = features(unit, (), bag=False)
    if states_figure(names):
        return Citability(model.score(names), True, "figure")
    laid_out = exempt_by_layout(names)
    if laid_out is not None:
        return Citability(model.score(names), False, laid_out)
    if passage_words:
        if model.score(names, model.overlap_range[0]) >= cut:  # citable whatever the overlap
            return Citability(model.score(names), True, _reason(names))
        made = passage_words() if callable(passage_words) else passage_words
        names.extend(overlap(words_of(unit.text), made))
    score = model.score(names)
    if score >= cut:
        return Citability(score, True, _reason(names))
    bag = bag_of_words(words_of(content_of(unit.text)))
    return Citability(score, False, model.kind([*names, *bag]))


# Layout that settles a unit by the guide, whatever its words: a line that is a title is a
# heading, a line of a few verbless words ending in a colon is a label, a verbless list item
# with items nested under it is the title of its group, a line under a "References" heading
# is a bibliography entry. On dev none of the whole-line titles, label lines and group titles
# is labelled citable (``train.py`` prints the counts); dev has no run-in titles and one
# unit under a references heading, so those two rules rest on the guide alone.
LAYOUT_RULES = (("is:heading", "heading"), ("is:label", "heading"), ("is:group", "heading"),
                ("runin", "heading"),
                ("section:references", "reference"),
                # The writer narrating its search ("I'll search for ...", "Let me gather ...")
                # and a form field of the report itself ("Report Date: ...", "Rating (1-4): 3")
                # are about the answer, a phase titled by its time span ("90 Days") a heading:
                # on dev all 170 such units are labelled not citable.
                ("narration", "meta"), ("form:own", "meta"), ("form:rating", "advice"),
                ("form:field", "meta"), ("form:unknown", "meta"),
                ("span:title", "heading"))


def exempt_by_layout(names: Sequence[str]) -> str | None:
    """The kind a unit's layout alone makes it (a heading, a bibliography entry), or else
    the guide's short-answer shape its words have (``GUIDE_RULES``), or None.
    Checked after the amounts rule: a title stating an amount is still flagged.
    """
    for name, kind in LAYOUT_RULES:
        if name in names:
            return kind
    for name, kind in GUIDE_RULES:
        if name in names:
            return kind
    return None


def states_figure(names: Sequence[str]) -> bool:
    """Whether a unit with these features states an amount outside a reference block or a
    line that is mostly its link (an entry's year and URL state nothing): such a unit is
    always citable. A sentence that ends in a bare URL (an inline citation the grammar does
    not read) still states its amounts.
    """
    return "amount" in names and not ({"refblock", "url:mostly", "form:own", "form:rating",
                                       "narration:plan", "span:title", "guide:reference"}
                                      & set(names))


def _reason(names: Sequence[str]) -> str:
    overlap = [n for n in names if n.startswith("overlap:")]
    if overlap and overlap[0] >= "overlap:3":
        return "passage"
    if any(n.startswith("names:") and n != "names:0" for n in names):
        return "entity"
    return "claim"
