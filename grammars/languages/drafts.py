"""How drafts space a citation's head: the loose spacing that the lenient finder (grammars.find)
reads and that `forbid_shorthand` makes unwritable (grammars.languages.case, grammars.languages.statute),
defined once for both."""

from __future__ import annotations

from grammars.expr import Expr, Regex, Seq, seq

# Spaces, tabs, no-break and ideographic spaces (HWP and PDF exports); never a line break, so two
# lines never fuse into one citation.
LOOSE_SPACE = "[ \t\u00a0\u3000]"
LOOSE_GAP = Regex(LOOSE_SPACE + "*")


def loose_article_head(name: Expr) -> Seq:
    """`name 제3`, `name제3`, `name 제 3`: a name, any loose gap, 제, any loose gap and a digit."""
    return seq(name, LOOSE_GAP, "제", LOOSE_GAP, Regex("[0-9]"))
