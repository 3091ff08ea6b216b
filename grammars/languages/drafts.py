"""How drafts write a citation's head otherwise than canonically: the loose spacing and the quoted
act names that the lenient finder (grammars.find) reads and that `forbid_shorthand` makes unwritable
(grammars.languages.case, grammars.languages.statute), defined once for both."""

from __future__ import annotations

from grammars.expr import Literals, Regex, Seq, seq

# Spaces, tabs, no-break and ideographic spaces (HWP and PDF exports); never a line break, so two
# lines never fuse into one citation.
LOOSE_SPACE = "[ \t\u00a0\u3000]"
LOOSE_GAP = Regex(LOOSE_SPACE + "*")
# What a 「」-quoted name must end with to be an act (keeps out 「별표 1」 and titles).
QUOTED_ACT_ENDINGS = ("법", "법률", "령", "규칙", "규정")
# The body of a quoted name, unbounded here (the finder caps it at 80 characters): a count would
# give the automaton a state per character read inside the quotes.
QUOTED_ACT = seq("「", Regex("[^」\n]*"), Literals(QUOTED_ACT_ENDINGS), "」")


def loose_article_head(name: Literals | Seq) -> Seq:
    """`name 제3`, `name제3`, `name 제 3`: a name, any loose gap, 제, any loose gap and a digit."""
    return seq(name, LOOSE_GAP, "제", LOOSE_GAP, Regex("[0-9]"))
