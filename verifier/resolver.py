"""Messy citation -> canonical citation, with the database's help, one document at a time.

The lenient finder (`grammars.find_citations`) already reads the drafts' spellings (`대판`,
`2024 도 4202`, missing dots and spaces) into `ParsedCitation`s with only the written fields.
A `DocumentResolver` completes them:

- a court abbreviation becomes the court's name;
- a case the database knows gets its missing court, date, 선고/자, disposition and 전원합의체;
- `위 제46조` takes the act of the previous statute citation (uncertain once the document has cited
  another act), `같은 제24호`/`같은 제3항`/`같은 제38조의3` the provision cited before down to the level
  above the one written first (as statutes write them);
- a 부칙 whose act the text leaves out (`부칙 제3조`, `법률 제7428호 부칙 제2조`) is the document's own
  act's, or, uncertain, that of the act cited before;
- `같은 조`/`동조` take the act (with its version: `구`, the note) and article of the previous statute
  citation, `같은 항`/`동항` also its paragraph; `같은 법`/`동법` name a 법률: the act cited before, or its
  parent 법률 when that is a 시행령/시행규칙 (`소득세법 시행령 제98조, 같은 법 제41조` cites 소득세법), and
  `같은 법 시행령`/`동법
  시행규칙` the 시행령/시행규칙 of that 법률; no 법률 to name (after `민사소송규칙`) is no answer, never the
  decree itself. `이 법` is the document's own act, and `법` the parent 법률 of a document that is a
  시행령/시행규칙; `법 시행규칙` the 시행규칙 of the act declared `법`, else of that parent;
- `같은 영`/`같은 시행령`/`동령`/`동 시행령` are the 시행령 cited last and `같은 시행규칙` the 시행규칙 cited
  last, whatever was cited since; `같은 규칙` the rule cited last, a guess (prose calls internal rules
  `규칙`: `취업규칙 제3조, 같은 규칙 제5조`);
- a short name the document declared (`소득세법 시행령(이하 '영'이라 한다) 제154조`) stands for its
  act from then on: `법`, `영`, `규칙`;
- an undeclared `영`/`규칙` is the 시행령/시행규칙 of the act cited last. Certain only for `영`, and only
  when that very 시행령 was cited before and no other was; a guess otherwise (uncertain), and no
  answer at all when another 시행령/시행규칙 was cited before or no statute was (prose calls internal
  rules `규칙` too, hence never certain undeclared);
- a 약칭 or an informal abbreviation becomes the act's full name.

Every change is listed (`Change`); those taken from earlier citations or declarations, rather than
from the citation itself or the database, say so (`from_context`). When the database disagrees with
a written field, several records fit, or nothing to resolve against is known, the `Resolution` is
marked uncertain and the disputed field is left as written: an uncertain resolution is never applied
silently, and a back-reference to an uncertain citation is uncertain too.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from grammars import (
    DECREE_KIND_OF_SHORT_NAME,
    SAME_DECREE_KIND,
    CaseCitation,
    CitationFinder,
    CitationForm,
    FoundCitation,
    ParsedCitation,
    StatuteCitation,
    declared_names,
    default_finder,
    format_date,
)
from verifier.database import Database
from verifier.declarations import SUBORDINATE_SUFFIXES, Declarations, parent_act
from verifier.lookups import FORMER_MATCHES, LookupCache
from verifier.models import AnyRow
from verifier.names import normalise_court

_KINDS_CITED_AGAIN = frozenset(SAME_DECREE_KIND.values())  # 시행령, 시행규칙, 규칙: of `같은 영` and the like
# An article written without its act (`제58조제5항`), or a paragraph without its article (`제1항제4호`, in
# an act: of the article it is written in): the finder reports neither, but a `같은 조`/`같은 항` after it
# refers to it, not to the citation before.
_BARE_ARTICLE = re.compile(r"제 ?([1-9][0-9]*) ?조(?: ?의 ?([1-9][0-9]?))?(?! ?의 ?[1-9])(?: ?제 ?([1-9][0-9]*) ?항)?"
                           r"|제 ?([1-9][0-9]?) ?항")
_SAME_ARTICLE = ("같은 조", "동조", "같은 항", "동항")
_SAME_ACT = ("같은 법", "동법")
# An act named without a provision (`「지방공기업법」에 따른 지방공사가 같은 법 시행령 제47조의2`): the act a
# `같은 법` after it names, as statutes write them.
_NAMED_ACT = re.compile(r"「([^」\n]{1,80})」")
_LAW_ENDINGS = ("법", "법률", "령", "규칙", "규정")  # how a name in 「」 that is an act's ends (not 「별표 1」)
# `이 법`, `이 영`, `이 규칙`: the document's own act.
_OWN_ACT = ("이 법", "이 영", "이 규칙")
Cited = TypeVar("Cited", CaseCitation, StatuteCitation)
_MOST_ANSWERS = 50_000  # answers a resolver keeps for citations that resolve alike wherever they stand


# How a 대통령령 that no 법률 names is titled (`외무공무원임용령`, `경찰공무원 승진임용 규정`): its 시행규칙's `영`.
_DECREE_ENDINGS = ("령", "규정")


def _is_statute_name(act: str) -> bool:
    """A 법률's name ends so (`민법`, `…에 관한 법률`), unlike 시행령/시행규칙 and freely named 규칙/규정."""
    return act.endswith(("법", "법률"))


@dataclass(frozen=True, slots=True)
class Change:
    field: str
    before: str | None
    after: str
    why: str
    from_context: bool = False  # taken from an earlier citation or declaration of the document


@dataclass(frozen=True, slots=True)
class Resolution:
    original: ParsedCitation
    resolved: ParsedCitation
    changes: tuple[Change, ...] = ()
    certain: bool = True
    doubts: tuple[str, ...] = ()  # why it is uncertain

    @property
    def canonical(self) -> str | None:
        return self.resolved.canonical() if self.resolved.is_complete else None

    @property
    def context(self) -> tuple[Change, ...]:
        """The changes that relied on the rest of the document."""
        return tuple(change for change in self.changes if change.from_context)


@dataclass(frozen=True, slots=True)
class ResolvedSpan:
    found: FoundCitation
    resolution: Resolution


class DocumentResolver:
    """Resolves the citations of one document in reading order; `own_act` is the act the document
    is (for `이 법`, and `법` inside a 시행령/시행규칙), when it is one. `finder` finds the citations
    of `resolve_text` (default: grammars' built-in lexicon; pass one built on the database's).
    `lookups` keeps what the database answered across documents: pass a `Verifier`'s (cleared
    with it after an import); by default the resolver keeps its own. `declared` holds short names
    declared outside the text (`declared_names` of the act's other articles and of its 법률)."""

    def __init__(self, database: Database, *, own_act: str | None = None, own_article: tuple[int, int] | None = None,
                 finder: CitationFinder | None = None, lookups: LookupCache | None = None,
                 declared: Mapping[str, str] | None = None) -> None:
        self.database = database
        self.lookups = lookups or LookupCache()
        self.own_act = own_act
        self.own_article = own_article  # (number, branch or 0): the document is that article of own_act
        self._named: str | None = None  # an act named without a provision since the citation before
        # depth in parentheses -> the statute cited last at that depth, with its doubts
        self._by_depth: dict[int, tuple[StatuteCitation, tuple[str, ...]]] = {}
        self._text: str | None = None  # the text `resolve_found` reads, where its last citation ended, the depth there
        self._end = self._depth = 0
        self._unnamed_article: str | None = None  # `제1항` written since, of an article the document does not name
        self.finder = finder or default_finder()
        self._last: StatuteCitation | None = None
        self._last_doubts: tuple[str, ...] = ()
        self._cited: dict[str, None] = {}  # acts cited with certainty, in order (an ordered set)
        # 시행령, 시행규칙, 규칙 -> the act of that kind cited last, and why that citation was uncertain
        self._last_of_kind: dict[str, tuple[str, tuple[str, ...]]] = {}
        self._declarations = Declarations()  # short names, from `(이하 '영'이라 한다)`
        # A case, or a statute naming its act, resolves the same wherever the document cites it (only the
        # database answers; a name declared in the document is looked up there, never kept), and drafts
        # cite the same ones again and again.
        self._answers: dict[ParsedCitation, Resolution] = {}
        for short_name, act in (declared or {}).items():
            self._declarations.declare(short_name, act)

    def resolve_text(self, text: str) -> list[ResolvedSpan]:
        """Find every citation in `text` (leniently) and resolve each in order. A citation written
        otherwise than its canonical form also lists that rewrite, named by how it was written."""
        spans = []
        self._text = None  # read from its start, even if it was read before
        for found in self.finder.find(text, True, within=self.own_act):
            span = self.resolve_found(text, found)
            written, canonical = text[found.span[0]:found.span[1]], span.resolution.canonical
            if canonical is not None and written != canonical:
                rewrite = Change("text", written, canonical, found.form.value)
                span = replace(span, resolution=replace(span.resolution, changes=(*span.resolution.changes, rewrite)))
            spans.append(span)
        return spans

    def resolve_found(self, text: str, found: FoundCitation) -> ResolvedSpan:
        """Resolve `found`, the next citation of `text` in text order (a text other than the last one's is
        read from its start), with what the text since the citation before says: short names it declares,
        asides in parentheses it opens and closes, an article or act it writes without a provision."""
        # one object per text (a batch hands the same one for its citations), read from its start again where a
        # citation comes before the last one read
        if text is not self._text or found.span[0] < self._end:
            # another text (a .docx's next part): its asides are its own, the last citation before it outside them
            self._text, self._end, self._depth = text, 0, 0
            self._by_depth = {} if self._last is None else {0: (self._last, self._last_doubts)}
        citation, end = found.citation, self._end
        for short_name, act in declared_names(text[end:found.span[0]]).items():
            self._declarations.declare(short_name, act)
        self._named = self._unnamed_article = None
        depth = self._depth = max(0, self._depth + text.count("(", end, found.span[0])
                                  - text.count(")", end, found.span[0]))
        if isinstance(citation, StatuteCitation) and citation.act is None and citation.back_reference:
            self._step_out_of_asides(depth)
        if isinstance(citation, StatuteCitation) and citation.act is None \
                and citation.back_reference in _SAME_ARTICLE:
            self._follow_bare_article(text[end:found.span[0]])
        elif isinstance(citation, StatuteCitation) and citation.act is None \
                and (citation.back_reference or "").startswith(_SAME_ACT):
            self._named = self._named_act(text[end:found.span[0]])
        before = self._last
        resolution = self.resolve(citation, declares=found.declares, written=text[found.span[0]:found.span[1]])
        if self._last is not before and self._last is not None:
            self._by_depth = {level: cited for level, cited in self._by_depth.items() if level < depth}
            self._by_depth[depth] = (self._last, self._last_doubts)
        if found.form is CitationForm.IMPOSSIBLE_DATE:  # completed from the database, not corrected
            resolution = replace(resolution, certain=False, doubts=(
                *resolution.doubts, "the date written is not in the calendar; the database's is no correction"))
        self._end = found.span[1]
        return ResolvedSpan(found, resolution)

    def _step_out_of_asides(self, depth: int) -> None:
        """`「부가가치세법」 제60조제1항(같은 법 제68조제2항에서 준용되는 경우를 포함한다), 같은 조 제2항`: a
        back-reference outside an aside in parentheses refers past the citations inside it, to the one
        cited last at its own depth or above."""
        deeper = [level for level in self._by_depth if level > depth]
        outer = [level for level in self._by_depth if level <= depth]
        if deeper and outer and self._last is self._by_depth[max(deeper)][0]:
            self._last, self._last_doubts = self._by_depth[max(outer)]

    def _follow_bare_article(self, between: str) -> None:
        """`제58조제5항에 따라 … 같은 조 제6항`: the last article written without an act between the
        citation before and a `같은 조` is what it refers to — in an act, the act's own article;
        elsewhere an article of the act cited before, a guess. `제1항제4호의 위원 … 같은 항 제6호`: a
        paragraph written without its article is one of the article the document is (`own_article`);
        elsewhere the article is unknown, and the citation before a guess."""
        written = list(_BARE_ARTICLE.finditer(between))
        bare = written[-1] if written else None
        act = self.own_act or (self._last.act if self._last is not None else None)
        if bare is None or act is None:
            return
        if bare[4] is not None:  # a paragraph alone (the finder reads one after its article's title with it)
            if self.own_act is None or self.own_article is None:
                self._unnamed_article = bare[0]
                return
            number, own_branch = self.own_article
            self._last = StatuteCitation(self.own_act, number, article_branch=own_branch or None,
                                         paragraph=int(bare[4]))
            self._last_doubts = ()
            return
        branch, paragraph = bare[2], bare[3]
        self._last = StatuteCitation(act, int(bare[1]), article_branch=int(branch) if branch else None,
                                     paragraph=int(paragraph) if paragraph else None)
        self._last_doubts = () if self.own_act else (f"{bare[0]} names no act: {act}, cited before, is a guess",)

    def _named_act(self, between: str) -> str | None:
        """The last act named in 「」 without a provision between the citation before and a `같은 법`: by the
        database's name for it, or as written where the database knows none."""
        names = [name for name in _NAMED_ACT.findall(between) if name.endswith(_LAW_ENDINGS)]
        if not names:
            return None
        acts, matched_by = self.lookups.acts_named(self.database.engine.connect, names[-1])
        one_name = len({act.name for act in acts}) == 1  # one act, or several sharing a name
        return str(acts[0].name) if one_name and matched_by not in FORMER_MATCHES else names[-1]

    def resolve(self, citation: ParsedCitation, *, declares: str | None = None, written: str = "") -> Resolution:
        """Resolve the document's next citation, `written` so in the text; `declares` is the short name (`법`,
        `영`, `규칙`) the text declares for its act right there (`FoundCitation.declares`)."""
        if isinstance(citation, CaseCitation):
            return self._answer(citation, self._resolve_case)
        if isinstance(citation, StatuteCitation):
            if citation.act is None or citation.act in self._declarations.acts:  # it depends on the text before it
                resolution = self._resolve_statute(citation)
            else:
                resolution = self._answer(citation, self._resolve_statute)
            resolution = self._in_declared_version(citation, resolution, written)
            resolved = resolution.resolved
            if isinstance(resolved, StatuteCitation) and resolved.is_complete:
                assert resolved.act is not None  # narrowed by is_complete
                self._last, self._last_doubts = resolved, resolution.doubts
                if resolution.certain:
                    self._cited.setdefault(resolved.act)
                for kind in _KINDS_CITED_AGAIN:
                    if resolved.act.endswith(kind):
                        self._last_of_kind[kind] = (resolved.act, resolution.doubts)
                if declares is not None:
                    self._declarations.declare(declares, resolved.act, resolved)
            return resolution
        raise TypeError(f"expected a CaseCitation or StatuteCitation, got {type(citation).__name__}")

    def _answer(self, citation: Cited, resolve: Callable[[Cited], Resolution]) -> Resolution:
        """`resolve(citation)`, for a `resolve` that reads nothing of the document: kept for the next time."""
        answer = self._answers.get(citation)
        if answer is None:
            if len(self._answers) >= _MOST_ANSWERS:
                self._answers.clear()
            answer = self._answers[citation] = resolve(citation)
        return answer

    def _in_declared_version(self, citation: StatuteCitation, resolution: Resolution, written: str) -> Resolution:
        """A citation written with a short name the document declared with a version (구, a note), and no note
        of its own, cites that version (`Declarations.version_of`)."""
        resolved = resolution.resolved
        if not isinstance(resolved, StatuteCitation) or resolved.act is None:
            return resolution
        declared = self._declarations.version_of(citation, resolved.act, written)
        if declared is None:
            return resolution
        short_name, declaring = declared
        resolved = replace(resolved, former=resolved.former or declaring.former, amendment=declaring.amendment)
        change = Change("version", short_name, declaring.act_reference(), f"{short_name}: the version it was declared "
                        "with", from_context=True)
        return replace(resolution, resolved=resolved, changes=(*resolution.changes, change))

    # --- statutes ---------------------------------------------------------------------------

    def _resolve_statute(self, citation: StatuteCitation) -> Resolution:
        changes: list[Change] = []
        doubts: list[str] = []
        resolved = citation
        if citation.back_reference is not None and citation.act is None:
            resolved = self._follow_back_reference(citation, changes, doubts)
        elif citation.act is None and citation.supplement is not None:
            resolved = self._supplement_of(citation, changes, doubts)
        elif citation.act in self._declarations.acts:  # `고용산재보험료징수법 제5조` after (이하 "…징수법")
            act = self._declarations.acts[citation.act]
            changes.append(Change("act", citation.act, act, f"{citation.act}: declared for {act}", from_context=True))
            resolved = replace(citation, act=act)
        if resolved.act is not None:
            acts, matched_by = self.lookups.acts_named(self.database.engine.connect, resolved.act)
            # Acts sharing one name (근로기준법 of 1953, repealed, and of 1997) are written alike whichever
            # the verifier picks by date: no doubt for the text. A former name stays: `구 조세감면규제법
            # 제56조` is no citation of 조세특례제한법's 제56조.
            names = {act.name for act in acts}
            if len(names) == 1 and acts[0].name != resolved.act and matched_by not in FORMER_MATCHES:
                changes.append(Change("act", resolved.act, acts[0].name, f"{matched_by or 'spelling'} of the act"))
                resolved = replace(resolved, act=acts[0].name)
            elif len(names) > 1:
                doubts.append(f"{resolved.act!r} names {len(acts)} acts: {', '.join(a.name for a in acts)}")
            elif not acts:
                doubts.append(f"no act named {resolved.act!r} in the database")
        return Resolution(citation, resolved, tuple(changes), not doubts, tuple(doubts))

    def _follow_back_reference(self, citation: StatuteCitation, changes: list[Change],
                               doubts: list[str]) -> StatuteCitation:
        reference = citation.back_reference
        assert reference is not None  # narrowed by the caller
        if reference in self._declarations.acts:
            act = self._declarations.acts[reference]
            why = f"{reference}: declared for {act} (이하 '{reference}')"
            return self._refer_to(citation, act, why, changes, doubts)
        if reference in _OWN_ACT:
            return self._refer_to(citation, self.own_act, "the document's own act", changes, doubts)
        if reference == "법":
            parent = parent_act(self.own_act) if self.own_act else None
            return self._refer_to(citation, None if parent == self.own_act else parent,
                                  "the parent act of this 시행령/시행규칙", changes, doubts)
        if reference.startswith("법 ") and reference.endswith(SUBORDINATE_SUFFIXES):  # `법 시행규칙`
            return self._decree_of_short_name(citation, reference, changes, doubts)
        if reference in DECREE_KIND_OF_SHORT_NAME:
            return self._follow_short_name(citation, reference, changes, doubts)
        if reference in SAME_DECREE_KIND:
            return self._follow_same_decree(citation, reference, changes, doubts)
        if self._named is not None and reference.startswith(_SAME_ACT):  # 「지방공기업법」에 따른 … 같은 법 시행령
            return self._follow_named_act(citation, self._named, changes, doubts)
        previous = self._last
        if previous is None:
            doubts.append(f"{reference} refers to an earlier statute citation, and there is none before it")
            return citation
        assert previous.act is not None  # _last is complete
        if self._last_doubts:
            doubts.append(f"{reference} refers to {previous.canonical()}, itself uncertain")
        if self._unnamed_article is not None:
            doubts.append(f"{reference} may refer to {self._unnamed_article}, written since, of an article the text "
                          f"does not name: {previous.canonical()} is a guess")
        if reference in ("위", "같은"):
            return self._follow_same_level(citation, previous, changes, doubts)
        if reference.startswith(_SAME_ACT):
            statute = parent_act(previous.act)
            decree = self._decree_of(citation, previous.act, "cited", changes, doubts)
            if decree is not None:
                return decree
            if statute != previous.act:
                if previous.former or previous.amendment:
                    doubts.append(f"{reference} names {statute}, whose version the text does not state: the "
                                  f"version note cited before is {previous.act}'s")
                if citation.article is None and citation.supplement is None:  # 동법 제3항: the decree's article
                    doubts.append(f"{reference} without an article names {statute}, and the article cited "
                                  f"before belongs to {previous.act}")
                    return citation
                why = f"{reference}: {statute}, the 법률 of {previous.act} cited before ({reference} names a 법률)"
                return self._refer_to(citation, statute, why, changes, doubts)
        resolved = self._refer_to(citation, previous.act, f"{reference}: the act cited before", changes, doubts)
        if previous.former or previous.amendment:  # `구 민사소송법(…) 제263조, 같은 법 제264조`: the same version
            resolved = replace(resolved, former=previous.former, amendment=previous.amendment)
            changes.append(Change("version", reference, previous.act_reference(),
                                  f"{reference}: the version cited before", from_context=True))
        # 같은 조 / 동조 / 같은 항 / 동항 (or 동법 without an article; `같은 법 부칙 제2항` numbers paragraphs only)
        if citation.article is None and citation.supplement is None:
            resolved = replace(resolved, article=previous.article, article_branch=previous.article_branch)
            changes.append(Change("article", reference, previous.provision().split(" ")[0],
                                  f"{reference}: the article cited before", from_context=True))
            if reference in ("같은 법", "동법"):
                doubts.append(f"{reference} without an article: assumed the article cited before")
            if reference in ("같은 항", "동항") and citation.paragraph is None:
                resolved = replace(resolved, paragraph=previous.paragraph)
                if previous.paragraph is not None:
                    changes.append(Change("paragraph", reference, f"제{previous.paragraph}항",
                                          f"{reference}: the paragraph cited before", from_context=True))
        return resolved

    def _decree_of_short_name(self, citation: StatuteCitation, reference: str, changes: list[Change],
                              doubts: list[str]) -> StatuteCitation:
        """`법 시행규칙 제26조`: the 시행령/시행규칙 of the act declared `법` (`(이하 ‘법’이라 한다)`), or, in a
        시행령/시행규칙's own text, of its 법률."""
        act, how = self._declarations.acts.get("법"), "declared 법"
        if act is None:
            act, how = (parent_act(self.own_act) if self.own_act else None), "taken for 법 (this decree's 법률)"
        if act is None:
            doubts.append(f"{reference} names the 시행령/시행규칙 of the act called 법, and the text declares none")
            return citation
        return self._decree_of(citation, act, how, changes, doubts) or citation  # the suffix makes it one

    def _decree_of(self, citation: StatuteCitation, act: str, how: str, changes: list[Change],
                   doubts: list[str]) -> StatuteCitation | None:
        """`같은 법` names a 법률, never a 시행령/시행규칙 (`소득세법 시행령 제98조, 같은 법 제41조` cites 소득세법
        제41조), and `같은 법 시행령` that 법률's 시행령, after `act` (`how`: cited or named before it). The
        resolution where it ends there (no 법률 to name, or `같은 법 시행령`); None where the 법률 is meant."""
        reference = citation.back_reference
        assert reference is not None  # narrowed by the callers
        statute = parent_act(act)
        if not _is_statute_name(statute):
            doubts.append(f"{reference} names a 법률, and {act}, {how} before it, is neither one "
                          f"nor the 시행령/시행규칙 of one")
            return citation
        if reference.endswith(SUBORDINATE_SUFFIXES):  # 같은 법 시행령, 동법 시행규칙
            kind = reference.rsplit(" ", 1)[1]
            why = f"{reference}: the {kind} of {statute}, {how} before"
            return self._refer_to(citation, f"{statute} {kind}", why, changes, doubts)
        return None

    def _follow_named_act(self, citation: StatuteCitation, named: str, changes: list[Change],
                          doubts: list[str]) -> StatuteCitation:
        """`같은 법`, `같은 법 시행령` after an act named in 「」 without a provision: that act's 법률, or its
        시행령/시행규칙."""
        reference = citation.back_reference
        assert reference is not None  # narrowed by the caller
        statute = parent_act(named)
        decree = self._decree_of(citation, named, "named", changes, doubts)
        if decree is not None:
            return decree
        if citation.article is None and citation.supplement is None:  # 같은 법 제3항: no article to take
            doubts.append(f"{reference} without an article names {statute}, named before it without one")
            return citation
        return self._refer_to(citation, statute, f"{reference}: {statute}, named before it", changes, doubts)

    def _supplement_of(self, citation: StatuteCitation, changes: list[Change], doubts: list[str]) -> StatuteCitation:
        """`부칙 제3조`, `법률 제7428호 부칙 제2조`: a 부칙 whose act the text does not name. In a document
        that is an act, its own; otherwise the act cited before is a guess (a judgment cites the 부칙 of an
        amendment to another act as readily), so the resolution is uncertain. A 시행령/시행규칙's `법률 제8483호
        부칙` is its 법률's: a 법률 number amends no decree."""
        written = f"{citation.supplement} {citation.provision()}"
        if self.own_act is not None:
            statute = parent_act(self.own_act)
            of_a_statute = citation.supplement is not None and citation.supplement.law_kind == "법률"
            if of_a_statute and statute != self.own_act and _is_statute_name(statute):
                changes.append(Change("act", None, statute, "부칙 of a 법률 amendment: the 법률 of the document's "
                                                            "own act", from_context=True))
                return replace(citation, act=statute)
            changes.append(Change("act", None, self.own_act, "부칙: the document's own act", from_context=True))
            return replace(citation, act=self.own_act)
        previous = self._last
        if previous is None or previous.act is None:
            doubts.append(f"{written} names no act, and no statute is cited before it")
            return citation
        doubts.append(f"{written} names no act: {previous.act}, cited before it, is a guess")
        changes.append(Change("act", None, previous.act, "부칙: the act cited before", from_context=True))
        return replace(citation, act=previous.act)

    def _follow_same_level(self, citation: StatuteCitation, previous: StatuteCitation, changes: list[Change],
                           doubts: list[str]) -> StatuteCitation:
        """`위 제46조`: the act cited before, certain only while the document has cited no other act.
        `같은 제24호`: the provision cited before, down to the level above the one written first
        (`같은 제3항` its article, `같은 제24호` its article and paragraph), with its version."""
        reference = citation.back_reference
        others = [act for act in self._cited if act != previous.act]
        if reference == "위" and others:
            doubts.append(f"위 may refer to {previous.act} (cited last) or {', '.join(others)} (cited before)")
        resolved = self._refer_to(citation, previous.act, f"{reference}: the act cited before", changes, doubts)
        resolved = replace(resolved, former=previous.former, amendment=previous.amendment)
        if previous.former or previous.amendment:
            changes.append(Change("version", reference, previous.act_reference(),
                                  f"{reference}: the version cited before", from_context=True))
        if citation.article is not None:
            return resolved
        resolved = replace(resolved, article=previous.article, article_branch=previous.article_branch)
        changes.append(Change("article", reference, previous.provision().split(" ")[0],
                              f"{reference}: the article cited before", from_context=True))
        if citation.paragraph is None and previous.paragraph is not None:
            resolved = replace(resolved, paragraph=previous.paragraph)
            changes.append(Change("paragraph", reference, f"제{previous.paragraph}항",
                                  f"{reference}: the paragraph cited before", from_context=True))
        return resolved

    def _follow_short_name(self, citation: StatuteCitation, name: str, changes: list[Change],
                           doubts: list[str]) -> StatuteCitation:
        """An undeclared `영`/`규칙`: the 시행령/시행규칙 of the act cited last (see the module's rules)."""
        kind = DECREE_KIND_OF_SHORT_NAME[name]
        if name == "영" and self.own_act and self.own_act.endswith(" 시행규칙"):
            parent = parent_act(self.own_act)
            if parent.endswith(_DECREE_ENDINGS):  # `경찰공무원 승진임용 규정 시행규칙`'s 영 is that 규정
                return self._refer_to(citation, parent, "the 대통령령 this 시행규칙 carries out", changes, doubts)
            return self._refer_to(citation, f"{parent} 시행령", "the 시행령 of this 시행규칙", changes, doubts)
        previous = self._last
        if previous is None:
            doubts.append(f"{name} stands for a {kind} named before it, and no statute is cited before it")
            return citation
        assert previous.act is not None  # _last is complete
        parent = parent_act(previous.act)
        meant = f"{parent} {kind}"
        cited = [act for act in self._cited if act.endswith(f" {kind}")]
        others = [act for act in cited if act != meant]
        if not _is_statute_name(parent):
            doubts.append(f"{name} stands for a {kind}, and {previous.act}, cited before it, has none")
            return citation
        if others:
            doubts.append(f"{name} is not declared (이하 '{name}'이라 한다) and may stand for {', '.join(others)} "
                          f"(cited before) or {meant} (of {previous.act}, cited last)")
            return citation
        if not cited:
            doubts.append(f"{name} is not declared (이하 '{name}'이라 한다) and no {kind} is cited before it: "
                          f"{meant} is a guess from {previous.act}, the act cited before")
        elif name == "규칙":
            doubts.append(f"규칙 is not declared (이하 '규칙'이라 한다): a rule other than {meant} may be meant")
        elif self._last_doubts:
            doubts.append(f"{name} follows {previous.canonical()}, itself uncertain")
        why = f"{name}: the {kind} of {parent}, cited before"
        return self._refer_to(citation, meant, why, changes, doubts)

    def _follow_same_decree(self, citation: StatuteCitation, reference: str, changes: list[Change],
                            doubts: list[str]) -> StatuteCitation:
        """`같은 영`, `동령`, `같은 시행규칙`, `같은 규칙`: the 시행령/시행규칙/rule cited last."""
        kind = SAME_DECREE_KIND[reference]
        if kind not in self._last_of_kind:
            doubts.append(f"{reference} refers to a {kind} cited before it, and there is none")
            return citation
        act, cited_doubts = self._last_of_kind[kind]
        if cited_doubts:
            doubts.append(f"{reference} refers to {act}, whose citation is itself uncertain")
        if kind == "규칙":
            doubts.append(f"{reference} may mean a rule cited under a name the resolver does not know "
                          f"(취업규칙, 사내 규칙), not {act}")
        return self._refer_to(citation, act, f"{reference}: {act}, the {kind} cited last", changes, doubts)

    @staticmethod
    def _refer_to(citation: StatuteCitation, act: str | None, what: str, changes: list[Change],
                  doubts: list[str]) -> StatuteCitation:
        if act is None:
            doubts.append(f"{citation.back_reference} needs {what}, which this document does not give")
            return citation
        changes.append(Change("act", citation.back_reference, act, what, from_context=True))
        return replace(citation, act=act, back_reference=None)

    # --- cases ------------------------------------------------------------------------------

    def _resolve_case(self, citation: CaseCitation) -> Resolution:
        changes: list[Change] = []
        doubts: list[str] = []
        resolved = citation
        if citation.court is not None:
            court = normalise_court(citation.court)
            if court != citation.court:
                changes.append(Change("court", citation.court, court, "court abbreviation"))
                resolved = replace(resolved, court=court)
        rows = self.lookups.cases_numbered(self.database.engine.connect, citation.case_number)
        fitting = [row for row in rows if resolved.court is None or row.court == resolved.court]
        if resolved.date is not None and len(fitting) > 1:
            fitting = [row for row in fitting if row.decided_on == resolved.date] or fitting
        if len(fitting) == 1:
            resolved = self._complete_case(resolved, fitting[0], changes, doubts)
        elif fitting:
            doubts.append(f"{len(fitting)} decisions carry the number {citation.case_number}: "
                          + ", ".join(f"{row.court} {format_date(row.decided_on)}" for row in fitting))
        elif rows:
            doubts.append(f"{citation.case_number} is in the database, but at "
                          + ", ".join(sorted({row.court for row in rows})) + f", not {resolved.court}")
        else:
            doubts.append(f"no decision {citation.case_number} in the database to complete the citation from")
        return Resolution(citation, resolved, tuple(changes), not doubts, tuple(doubts))

    @staticmethod
    def _complete_case(cited: CaseCitation, row: AnyRow, changes: list[Change], doubts: list[str]) -> CaseCitation:
        database_values = {"court": row.court, "date": row.decided_on, "delivery": row.delivery,
                           "disposition": row.disposition}
        filled: dict[str, Any] = {}
        for name, value in database_values.items():
            written = getattr(cited, name)
            shown = format_date(value) if name == "date" else str(value)
            if written is None:
                filled[name] = value
                changes.append(Change(name, None, shown, "from the database"))
            elif written != value:
                in_text = format_date(written) if name == "date" else written
                doubts.append(f"the database has {name} {shown}, the text {in_text}")
        if cited.panel is None and row.panel == "전원합의체":
            filled["panel"] = row.panel
            changes.append(Change("panel", None, row.panel, "from the database"))
        return replace(cited, **filled)
