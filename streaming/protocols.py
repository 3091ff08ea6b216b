"""The two small protocols the service is built on, and the values that cross them.

A *generation source* turns a `GenerationRequest` into an async stream of `SourceEvent`s:

    (ProseDelta | CitationStart CitationDelta* CitationEnd)* Finished

A citation's text is everything from `CitationStart.prefix` through its deltas; `CitationEnd.text`
repeats the whole exact text. A source that fails raises (`streaming.errors.GenerationError` for
an expected failure such as an exhausted model, anything else is reported as an internal error).
Cancelling the iteration (closing the async iterator) must cancel the generation.

A *verifier* looks one `ParsedCitation` up and answers a `Verdict` value; an exception or a
timeout means "could not verify", which the segment machine treats like any unverified citation.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from grammars import ParsedCitation

Policy = Literal["strict", "annotate", "drop"]
VerdictStatus = Literal["verified", "mismatch", "not_found", "ambiguous", "not_covered", "outdated"]
Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True, slots=True)
class Message:
    role: Role
    content: str


@dataclass(frozen=True, slots=True)
class GenerationRequest:
    """What the source is asked to generate; validated at the HTTP edge before it gets here.
    `courts` and `acts` narrow the citations the answer may hold to these names (None: any the
    source knows; (): none of that kind), as `CitableNames` maps them: sorted, each once."""

    request_id: str
    messages: tuple[Message, ...]
    max_tokens: int
    temperature: float = 0.0
    top_p: float = 1.0
    seed: int | None = None
    stop: tuple[str, ...] = ()
    courts: tuple[str, ...] | None = None
    acts: tuple[str, ...] | None = None
    # what the source's `prepare` made for it (a narrowing's compiled language), opaque here: generation uses
    # that, whatever the source holds by then (a reload's new library, a cache that evicted it)
    prepared: object = field(default=None, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class CitableNames:
    """The names a request may narrow its citations to, each mapped to the name the source cites it
    by (an act's 약칭 or informal abbreviation to its full name). A request naming anything else is
    refused at the edge (422), before its stream starts; none by default."""

    courts: Mapping[str, str] = field(default_factory=dict)
    acts: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int
    completion_tokens: int

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


# ---- source events ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProseDelta:
    """Free text. `tentative`: the source cannot tell yet whether it begins a citation, so the
    machine holds it until a later delta (not tentative) or a `CitationStart` decides."""

    text: str
    tentative: bool = False


@dataclass(frozen=True, slots=True)
class CitationStart:
    """A citation begins. `prefix` is the end of the text already sent as prose (the anchor,
    e.g. `대법원 2`) that belongs to the citation; the machine must still be holding it."""

    prefix: str = ""


@dataclass(frozen=True, slots=True)
class CitationDelta:
    text: str


@dataclass(frozen=True, slots=True)
class CitationEnd:
    """The citation closed: its exact text, and its parse (None when it did not parse)."""

    text: str
    citation: ParsedCitation | None


@dataclass(frozen=True, slots=True)
class Finished:
    usage: Usage
    finish_reason: Literal["stop", "length"] = "stop"


SourceEvent = ProseDelta | CitationStart | CitationDelta | CitationEnd | Finished


@runtime_checkable
class GenerationSource(Protocol):
    def generate(self, request: GenerationRequest) -> AsyncIterator[SourceEvent]: ...


@runtime_checkable
class PreparingSource(Protocol):
    """A source that can check a request and make ready what it needs (a narrowing's compiled
    language) before the request takes a generation slot; the service calls `prepare` first,
    and a `RequestRejectedError` it raises is the response (422), before any stream starts."""

    def is_prepared(self, request: GenerationRequest) -> bool:
        """Whether what `prepare` makes for the request is made already (its narrowing compiled and
        cached): only the others count against a client's limit of narrowings compiling at once."""
        ...

    async def prepare(self, request: GenerationRequest) -> GenerationRequest:
        """The request to generate, carrying what was made for it (`GenerationRequest.prepared`)."""
        ...


# ---- verification -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Provision:
    """The cited provision as the version checked has it, for the reader to open: the article's
    title and text (None where the database keeps that version's structure only), the version
    (`법률 제17299호, 2020. 5. 19. 공포, 2020. 5. 19. 시행`) and its law.go.kr address."""

    act: str
    article: str
    title: str | None
    text: str | None
    version: str
    address: str


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the verifier found. `canonical` is the form to show when verified; `source` names the
    record (법령ID + 조문, 판례일련번호, …); `detail` says why when not verified; `provision` is the
    cited provision's text in the version checked, when the verifier has it."""

    status: VerdictStatus
    canonical: str | None = None
    source: str | None = None
    detail: str | None = None
    provision: Provision | None = None


@runtime_checkable
class Verifier(Protocol):
    async def verify(self, citation: ParsedCitation) -> Verdict: ...


# ---- administration -----------------------------------------------------------------------


@runtime_checkable
class AdminSource(Protocol):
    """Audit log and statistics for the admin endpoints, as plain JSON-ready data; `reload` makes
    the verifier see what was imported since it started (`citegen-admin import`, `sync`) and says
    what it did."""

    async def audit(self, limit: int, status: VerdictStatus | None) -> Sequence[Mapping[str, Any]]: ...

    async def stats(self) -> Mapping[str, Any]: ...

    async def reload(self) -> Mapping[str, Any]: ...


@runtime_checkable
class ReadinessProbe(Protocol):
    """A named probe for `/readyz` (the database answers, the model is loaded, …)."""

    name: str

    async def ready(self) -> bool: ...
