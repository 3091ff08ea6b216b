"""Messy citation -> canonical citation, with the database's help, one document at a time.

The lenient finder (`grammars.find_citations`) already reads the drafts' spellings (`대판`,
`2024 도 4202`, missing dots and spaces) into `ParsedCitation`s with only the written fields.
A `DocumentResolver` completes them:

- a court abbreviation becomes the court's name;
- a case the database knows gets its missing court, date, 선고/자, disposition and 전원합의체;
- `같은 법`/`동법` take the act of the previous statute citation, `같은 조`/`동조` also its
  article, `같은 항`/`동항` also its paragraph; `이 법` is the document's own act, and `법` the parent
  법률 of a document that is a 시행령/시행규칙;
- a 약칭 or an informal abbreviation becomes the act's full name.

Every change is listed (`Change`). When the database disagrees with a written field, several
records fit, or nothing to resolve against is known, the `Resolution` is marked uncertain and
the disputed field is left as written: an uncertain resolution is never applied silently.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import Row

from grammars import CaseCitation, CitationFinder, FoundCitation, ParsedCitation, StatuteCitation, format_date
from grammars.find import default_finder
from verifier.database import Database
from verifier.lookups import LookupCache
from verifier.names import normalise_court

_SUBORDINATE_SUFFIXES = (" 시행령", " 시행규칙")


@dataclass(frozen=True, slots=True)
class Change:
    field: str
    before: str | None
    after: str
    why: str


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


@dataclass(frozen=True, slots=True)
class ResolvedSpan:
    found: FoundCitation
    resolution: Resolution


class DocumentResolver:
    """Resolves the citations of one document in reading order; `own_act` is the act the document
    is (for `이 법`, and `법` inside a 시행령/시행규칙), when it is one. `finder` finds the citations
    of `resolve_text` (default: grammars' built-in lexicon; pass one built on the database's).
    `lookups` keeps what the database answered across documents: pass a `Verifier`'s (cleared
    with it after an import); by default the resolver keeps its own."""

    def __init__(self, database: Database, *, own_act: str | None = None,
                 finder: CitationFinder | None = None, lookups: LookupCache | None = None) -> None:
        self.database = database
        self.lookups = lookups or LookupCache()
        self.own_act = own_act
        self.finder = finder or default_finder()
        self._last: StatuteCitation | None = None

    def resolve_text(self, text: str) -> list[ResolvedSpan]:
        """Find every citation in `text` (leniently) and resolve each in order. A citation written
        otherwise than its canonical form also lists that rewrite, named by how it was written."""
        spans = []
        for found in self.finder.find(text, True):
            resolution = self.resolve(found.citation)
            written = text[found.span[0]:found.span[1]]
            canonical = resolution.canonical
            if canonical is not None and written != canonical:
                rewrite = Change("text", written, canonical, found.form.value)
                resolution = replace(resolution, changes=(*resolution.changes, rewrite))
            spans.append(ResolvedSpan(found, resolution))
        return spans

    def resolve(self, citation: ParsedCitation) -> Resolution:
        if isinstance(citation, CaseCitation):
            return self._resolve_case(citation)
        if isinstance(citation, StatuteCitation):
            resolution = self._resolve_statute(citation)
            resolved = resolution.resolved
            if isinstance(resolved, StatuteCitation) and resolved.is_complete:
                self._last = resolved
            return resolution
        raise TypeError(f"expected a CaseCitation or StatuteCitation, got {type(citation).__name__}")

    # --- statutes ---------------------------------------------------------------------------

    def _resolve_statute(self, citation: StatuteCitation) -> Resolution:
        changes: list[Change] = []
        doubts: list[str] = []
        resolved = citation
        if citation.back_reference is not None and citation.act is None:
            resolved = self._follow_back_reference(citation, changes, doubts)
        if resolved.act is not None:
            acts, matched_by = self.lookups.acts_named(self.database.engine.connect, resolved.act)
            if len(acts) == 1 and acts[0].name != resolved.act:
                changes.append(Change("act", resolved.act, acts[0].name, f"{matched_by or 'spelling'} of the act"))
                resolved = replace(resolved, act=acts[0].name)
            elif len(acts) > 1:
                doubts.append(f"{resolved.act!r} names {len(acts)} acts: {', '.join(a.name for a in acts)}")
            elif not acts:
                doubts.append(f"no act named {resolved.act!r} in the database")
        return Resolution(citation, resolved, tuple(changes), not doubts, tuple(doubts))

    def _follow_back_reference(self, citation: StatuteCitation, changes: list[Change],
                               doubts: list[str]) -> StatuteCitation:
        reference = citation.back_reference
        if reference == "이 법":
            return self._refer_to(citation, self.own_act, "the document's own act", changes, doubts)
        if reference == "법":
            parent = next((self.own_act.removesuffix(suffix) for suffix in _SUBORDINATE_SUFFIXES
                           if self.own_act and self.own_act.endswith(suffix)), None)
            return self._refer_to(citation, parent, "the parent act of this 시행령/시행규칙", changes, doubts)
        previous = self._last
        if previous is None:
            doubts.append(f"{reference} refers to an earlier statute citation, and there is none before it")
            return citation
        resolved = self._refer_to(citation, previous.act, f"{reference}: the act cited before", changes, doubts)
        if citation.article is None:  # 같은 조 / 동조 / 같은 항 / 동항 (or 동법 without an article)
            resolved = replace(resolved, article=previous.article, article_branch=previous.article_branch)
            changes.append(Change("article", reference, previous.provision().split(" ")[0],
                                  f"{reference}: the article cited before"))
            if reference in ("같은 법", "동법"):
                doubts.append(f"{reference} without an article: assumed the article cited before")
            if reference in ("같은 항", "동항") and citation.paragraph is None:
                resolved = replace(resolved, paragraph=previous.paragraph)
                if previous.paragraph is not None:
                    changes.append(Change("paragraph", reference, f"제{previous.paragraph}항",
                                          f"{reference}: the paragraph cited before"))
        return resolved

    @staticmethod
    def _refer_to(citation: StatuteCitation, act: str | None, what: str, changes: list[Change],
                  doubts: list[str]) -> StatuteCitation:
        if act is None:
            doubts.append(f"{citation.back_reference} needs {what}, which this document does not give")
            return citation
        changes.append(Change("act", citation.back_reference, act, what))
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
    def _complete_case(cited: CaseCitation, row: Row[Any], changes: list[Change], doubts: list[str]) -> CaseCitation:
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
                doubts.append(f"the database has {name} {shown}, the text {format_date(written) if name == 'date' else written}")
        if cited.panel is None and row.panel == "전원합의체":
            filled["panel"] = row.panel
            changes.append(Change("panel", None, row.panel, "from the database"))
        return replace(cited, **filled)
