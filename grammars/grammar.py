"""What a compiled language is made of: the contract between the citation languages
(`grammars.languages`) and the byte-level compiler (`grammars.compile`).

A `CitationGrammar` is one citation language (its whole strings are the citations) with the
anchors that switch it on in running text. An `AnswerGrammar` is the whole output of a model:
free text in which every anchor occurrence must begin a well-formed citation, i.e.
`(F C)* F` where `F` is any text containing no anchor and `C` any of the citations; anchors and
citations count only at a word boundary (grammars.boundary), so `군형법 제100조` is free text to
a lexicon without 군형법, unless a `glued` anchor, which counts anywhere, forbids it; text between
a bypass pair (`<think>` … `</think>`) is never constrained.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from grammars.expr import Expr


@dataclass(frozen=True, slots=True)
class CitationGrammar:
    name: str
    expr: Expr  # the language of whole citations
    anchor: Expr  # strings that, once seen in free text, must continue into a citation; each is a prefix of one
    # Citations of which every citation shares the states along a part (a statute's provision tail, ` 제1항 제1호`
    # after any act's article), each as (what leads to that part, the part): an index computes the rows along
    # the part when it is compiled (grammars.compile.warm_up), not on a first visit.
    # Not part of the value: the language is the same, and so is its index's cache key.
    warm: tuple[tuple[str, str], ...] = field(default=(), compare=False, repr=False)
    # What made it, when its builder can say so in a few bytes (`made_by`): the builder, its arguments and
    # its lexicon's digest. The index cache keys on it instead of hashing 400,000 words. init=False, so
    # `dataclasses.replace` does not copy it: a grammar changed after it was made is hashed whole.
    recipe: str = field(default="", init=False, compare=False, repr=False)


def made_by(grammar: CitationGrammar, recipe: str) -> CitationGrammar:
    """`grammar`, marked as made by `recipe`: a string that determines it, given the grammars package's
    source (which the cache key holds too, grammars.patterns.compiler_digest)."""
    object.__setattr__(grammar, "recipe", recipe)  # frozen: set once, right after it was made
    return grammar


@dataclass(frozen=True, slots=True)
class AnswerGrammar:
    citations: tuple[CitationGrammar, ...]
    bypass: tuple[tuple[str, str], ...] = (("<think>", "</think>"),)
    # Anchors that count wherever they begin, inside a word too (`…는형법제257조`); like any anchor,
    # one that completes must be part of a citation begun at a word boundary.
    glued: tuple[Expr, ...] = ()
    # Anchors that count right after a citation closed (`의3` after `민법 제81조`).
    continued: tuple[Expr, ...] = ()
    # Where a citation begins, for finding its start in written text only: each completes where an anchor
    # or a glued anchor completes too, so the automaton does not read them (`형법 제`, whose glued `법 제`
    # says only that a citation goes on, not that it began at 형).
    starts: tuple[Expr, ...] = ()
