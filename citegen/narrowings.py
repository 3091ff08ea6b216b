"""A request's narrowing of the answer language, compiled over what every narrowing shares.

`Narrowings` holds, per lexicon, the part of a narrowed answer language that does not depend on what the
narrowing keeps (the whole lexicon's heads as anchors, their free-text automaton) and makes each narrowing's
grammar and language over it; `narrowed_answer_grammar` makes one grammar for a caller that needs no more;
`constraint_library` serves the answer language and its narrowings to an engine (citegen's own, and vLLM's
front end, whose workers hold a `Narrowings` per lexicon file: citegen.integrations.options).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from citegen.constraint import AnchorFinder, CitationLanguage, ConstraintLibrary, Narrowing
from citegen.errors import RequestError
from grammars import (
    COURTS,
    COURTS_BY_NAME,
    DEFAULT_BYPASS,
    Alt,
    AnswerAnchors,
    AnswerGrammar,
    CitationParser,
    Expr,
    ExprDFA,
    Lexicon,
    ParsedCitation,
    TokenIndex,
    Vocabulary,
    answer_anchors,
    answer_grammar,
    as_lexicon,
    compile_index,
    names_then_je,
    title_then_je,
)

AnyLexicon = Lexicon | Mapping[str, Iterable[str] | None] | None  # what grammars' as_lexicon accepts


def narrowed_lexicon(lexicon: AnyLexicon, acts: tuple[str, ...] | None) -> AnyLexicon:
    """`lexicon` kept to `acts` (None: all of it), each act by the name the lexicon cites it by (`민소법`
    and `근기법` are cited as 민사소송법 and 근로기준법: `Lexicon.citable_name`) with its article labels."""
    if acts is None:
        return lexicon
    known = as_lexicon(lexicon)
    names = (known.citable_name(act) or act for act in acts)  # an unknown name: KeyError from articles_of
    return {name: known.articles_of(name) for name in dict.fromkeys(names)}


def narrowed_answer_grammar(
    lexicon: AnyLexicon,
    narrowing: Narrowing,
    *,
    bypass: Iterable[tuple[str, str]] = DEFAULT_BYPASS,
    forbid_shorthand: bool,
) -> AnswerGrammar:
    """`Narrowings(...).grammar(narrowing)`, for a caller that makes one narrowed grammar."""
    return Narrowings(lexicon, bypass=bypass, forbid_shorthand=forbid_shorthand).grammar(narrowing)


@dataclass(slots=True)
class _Shape:
    """What every narrowing of one kind (acts narrowed or not) shares: the anchors each of its citations
    carries (one object: the whole lexicon's heads), its glued and continued anchors, and, once a narrowing
    of the kind was compiled, their free-text automaton and the heads' automaton, where an anchor finder
    looks first."""

    heads: Expr
    glued: tuple[Expr, ...]
    continued: tuple[Expr, ...]
    compiled: tuple[AnswerAnchors, ExprDFA] | None = None


class Narrowings:
    """The narrowings of the answer language over one lexicon, and what they share.

    A narrowed answer keeps every head of the whole language as an anchor (one expression over the whole
    lexicon's names, whatever the narrowing), so what free text does is the same in every narrowing of a
    kind, and one `AnswerAnchors` (the whole lexicon's anchor automaton, with the steps taken along free
    text) serves them all, as does the automaton of those heads for finding where a citation begins:
    made by the first narrowing of the kind, or by `prepare` when a service starts. A narrowing then
    builds and compiles only its own citations (and the starts of its acts' citations, `형법 제`)."""

    def __init__(
        self, lexicon: AnyLexicon, *, bypass: Iterable[tuple[str, str]] = DEFAULT_BYPASS, forbid_shorthand: bool
    ) -> None:
        self.lexicon = as_lexicon(lexicon)
        self.bypass = tuple(bypass)
        self.forbid_shorthand = forbid_shorthand
        self._shapes: dict[bool, _Shape] = {}  # by whether the acts are narrowed
        self._lock = threading.Lock()

    def grammar(self, narrowing: Narrowing) -> AnswerGrammar:
        """The answer language narrowed to the courts and acts of `narrowing` (`()`: no citation of that
        kind). Every head of the whole language stays an anchor, so a citation the narrowing leaves out
        begins no citation and dies in the automaton, as a malformed head does, instead of passing as free
        text (`민법 제750조` in an answer narrowed to 형법); and with acts narrowed no title may be followed by
        제 unless a citation goes on (`title_then_je`), so no half-written head remains either. Where such a
        glued `법 제` completes inside a citation of an act kept, `names_then_je` says where it began."""
        if narrowing == Narrowing():
            return answer_grammar(lexicon=self.lexicon, bypass=self.bypass, forbid_shorthand=self.forbid_shorthand)
        self._check_names(narrowing)
        shape = self._shape(narrowing.acts is not None)
        kept: Lexicon | None = self.lexicon  # the acts cited: all, none (`()`) or those named
        starts: tuple[Expr, ...] = ()
        if narrowing.acts == ():
            kept = None
        elif narrowing.acts is not None:
            kept = as_lexicon(narrowed_lexicon(self.lexicon, narrowing.acts))
            starts = (names_then_je(kept.grammar_names),)
        narrowed = answer_grammar(  # its own anchors are the shape's, which hold them
            case=narrowing.courts != (),
            statute=kept is not None,
            lexicon=kept,
            courts=narrowing.courts or None,
            bypass=self.bypass,
        )
        citations = tuple(replace(citation, anchor=shape.heads) for citation in narrowed.citations)
        return AnswerGrammar(
            citations, narrowed.bypass, glued=shape.glued, continued=shape.continued, starts=starts
        )

    def _check_names(self, narrowing: Narrowing) -> None:
        """A `RequestError` for a narrowing that names a court or act this lexicon lacks, or leaves nothing
        to cite, before any grammar is made of it (else a bare KeyError or GrammarError)."""
        unknown_courts = [court for court in narrowing.courts or () if court not in COURTS_BY_NAME]
        unknown_acts = [act for act in narrowing.acts or () if self.lexicon.citable_name(act) is None]
        if unknown_courts or unknown_acts:
            raise RequestError(f"expected courts and acts to narrow to that the lexicon holds, got unknown "
                               f"{', '.join(unknown_courts + unknown_acts)}")
        if narrowing.courts == () and narrowing.acts == ():
            raise RequestError("expected a narrowing that leaves a court or an act to cite, got none of either")

    def language(
        self,
        narrowing: Narrowing,
        vocabulary: Vocabulary,
        parse: Callable[[str], ParsedCitation | None],
        cache_dir: str | Path | None = None,
    ) -> CitationLanguage:
        """A narrowing's language over `vocabulary` (its index as `index` makes it) with its anchor finder."""
        grammar = self.grammar(narrowing)
        index = self._index(grammar, narrowing, vocabulary, cache_dir)
        if narrowing == Narrowing():
            return CitationLanguage(index, AnchorFinder.of(grammar), parse)
        _, heads = self._compiled(grammar, narrowing.acts is not None)
        return CitationLanguage(index, AnchorFinder(heads, *(ExprDFA(start) for start in grammar.starts)), parse)

    def index(self, narrowing: Narrowing, vocabulary: Vocabulary, cache_dir: str | Path | None = None) -> TokenIndex:
        """A narrowing's token index. The whole language (`Narrowing()`) is built whole in a child process
        and stored in `cache_dir` on a miss (`grammars.child_build`: a serving process holds neither the
        build's heap nor the GIL for its minute), and loaded from there afterwards (without one, computed as
        reached): serving never pays one of its states on first visit. A narrowing is compiled in
        milliseconds over the anchors its kind shares, its states computed as generation first reaches them:
        built whole, it would take as long as the whole language (a minute over the statute book), and for
        each new narrowing."""
        return self._index(self.grammar(narrowing), narrowing, vocabulary, cache_dir)

    def _index(
        self, grammar: AnswerGrammar, narrowing: Narrowing, vocabulary: Vocabulary, cache_dir: str | Path | None
    ) -> TokenIndex:
        if narrowing == Narrowing():
            return compile_index(grammar, vocabulary, cache_dir=cache_dir, in_child=True)
        anchors, _ = self._compiled(grammar, narrowing.acts is not None)
        return compile_index(grammar, vocabulary, anchors=anchors)

    def prepare(self, vocabulary: Vocabulary) -> None:
        """What a first narrowing would pay, paid now (at a service's start): for each kind, a narrowing
        (to one court; to one act) compiled to the masks of free text between two characters, where nearly
        every answer starts and goes on."""
        for narrowing in (Narrowing(courts=(COURTS[0].name,)), Narrowing(acts=(next(iter(self.lexicon.acts)),))):
            grammar = self.grammar(narrowing)
            anchors, _ = self._compiled(grammar, narrowing.acts is not None)
            index = compile_index(grammar, vocabulary, anchors=anchors)
            for state in index.automaton.between_characters():
                index.masks(state)

    def _compiled(self, grammar: AnswerGrammar, acts_narrowed: bool) -> tuple[AnswerAnchors, ExprDFA]:
        """The free-text automaton of a kind's narrowings and its heads' automaton, made from `grammar`
        (one of them) the first time."""
        shape = self._shape(acts_narrowed)
        if shape.compiled is None:
            with self._lock:
                if shape.compiled is None:
                    shape.compiled = (AnswerAnchors(grammar), ExprDFA(shape.heads))
        return shape.compiled

    def _shape(self, acts_narrowed: bool) -> _Shape:
        found = self._shapes.get(acts_narrowed)
        if found is None:
            with self._lock:
                found = self._shapes.get(acts_narrowed)
                if found is None:
                    found = self._shapes[acts_narrowed] = self._make_shape(acts_narrowed)
        return found

    def _make_shape(self, acts_narrowed: bool) -> _Shape:
        lexicon, forbid = self.lexicon, self.forbid_shorthand
        heads = answer_anchors(lexicon, forbid_shorthand=forbid)
        whole = answer_grammar(lexicon=lexicon, statute=False, forbid_shorthand=forbid)  # its glued and continued
        glued = whole.glued
        if acts_narrowed:
            glued = (*glued, title_then_je(lexicon))
        return _Shape(Alt(heads), glued, whole.continued)


def constraint_library(
    vocabulary: Vocabulary,
    vocab_size: int,
    lexicon: AnyLexicon,
    *,
    forbid_shorthand: bool = True,
    cache_dir: Path | None = None,
) -> ConstraintLibrary:
    """The answer language and its narrowings over `lexicon` for a model's `vocabulary` (its logits
    `vocab_size` wide), each compiled when first asked for (`Narrowings.index`: the whole language built
    whole once with `cache_dir`, a narrowing in milliseconds), parsed with the lexicon's names; `prepare`
    readies what the narrowings share (under a second for the statute book)."""
    known = as_lexicon(dict(lexicon) if isinstance(lexicon, Mapping) else lexicon)  # checked once, used by all
    parser = CitationParser.for_lexicon(known)
    narrowings = Narrowings(known, forbid_shorthand=forbid_shorthand)
    language = functools.partial(narrowings.language, vocabulary=vocabulary, parse=parser.parse, cache_dir=cache_dir)
    return ConstraintLibrary(language, vocab_size, prepare=functools.partial(narrowings.prepare, vocabulary))
