"""Request bodies, validated before any stream starts. The models are built per app from its
settings, so the OpenAPI schema states the real limits (and schemathesis tests exactly those)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Annotated, Literal, Protocol

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    StringConstraints,
    model_validator,
)

from streaming.config import StreamingSettings
from streaming.protocols import CitableNames, Policy, Role

MAX_SEED = 2**63 - 1
MAX_NARROWING_NAMES = 128  # grammars knows 116 courts; more acts than this are better left unnarrowed
MAX_NAME_CHARS = 100  # the longest act names run to about 60 characters
MAX_CONTENT_PARTS = 64  # text parts of one chat message (the prompt's length is bounded on its own)

COURTS_DESCRIPTION = "Cite only cases of these courts (full names, e.g. 대법원); [] no cases; absent: any court."
ACTS_DESCRIPTION = (
    "Cite only statutes of these acts (names as the database knows them, or their 약칭 or informal "
    "abbreviations, e.g. 민법, 근기법); [] no statutes; absent: any act."
)


def _no_lone_surrogates(text: str) -> str:
    # JSON may spell a lone surrogate (\ud800); it has no UTF-8 form, so nothing could echo it back.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(f"expected text encodable as UTF-8, got a lone surrogate at {error.start}") from None
    return text


Text = Annotated[str, AfterValidator(_no_lone_surrogates)]
StopString = Annotated[str, StringConstraints(min_length=1, max_length=64), AfterValidator(_no_lone_surrogates)]


def _listed(value: object) -> object:
    return [value] if isinstance(value, str) else value
# Strict: `true` or `"10"` is not a number of tokens; a whole float is not an integer either.
Integer = Annotated[int, Strict()]
Flag = Annotated[bool, Strict()]
Seed = Annotated[Integer, Field(ge=0, le=MAX_SEED)]

# What can be sampled, refused at the edge (as vLLM's SamplingParams does) rather than failing a
# whole batch inside the engine: below MIN_TEMPERATURE the logits overflow to non-finite values
# (`1e-300`), so a temperature is 0 (greedy) or at least that; a top_p below MIN_TOP_P keeps less
# than a token's probability mass in float32.
MIN_TEMPERATURE, MAX_TEMPERATURE = 0.01, 2.0
MIN_TOP_P = 1e-3


def _samplable_temperature(value: float) -> float:
    if value != 0.0 and not MIN_TEMPERATURE <= value <= MAX_TEMPERATURE:
        raise ValueError(f"expected 0 (greedy) or {MIN_TEMPERATURE} to {MAX_TEMPERATURE}, got {value!r}")
    return value


Temperature = Annotated[
    float, Strict(), Field(ge=0.0, le=MAX_TEMPERATURE, allow_inf_nan=False), AfterValidator(_samplable_temperature)
]
TopP = Annotated[float, Strict(), Field(ge=MIN_TOP_P, le=1.0, allow_inf_nan=False)]
Penalty = Annotated[float, Strict(), Field(ge=-2.0, le=2.0, allow_inf_nan=False)]
Name = Annotated[Text, Field(min_length=1, max_length=MAX_NAME_CHARS)]
Names = Annotated[tuple[Name, ...], Field(max_length=MAX_NARROWING_NAMES)]


def _citable(kind: str, known: Callable[[], Mapping[str, str]]) -> AfterValidator:
    """What makes `Names` a request field of `kind`: refused unless `known()` (asked on each request)
    holds them, then as the source cites them, sorted and each once (one narrowing, one compiled
    language, whatever the order or spelling)."""

    def cited(names: tuple[str, ...]) -> tuple[str, ...]:
        current = known()
        unknown = [name for name in dict.fromkeys(names) if name not in current]
        if unknown:
            raise ValueError(f"expected {kind} names this service knows, got unknown {unknown}")
        return tuple(sorted({current[name] for name in names}))

    return AfterValidator(cited)


def _leave_a_kind(courts_field: str, courts: object, acts_field: str, acts: object) -> None:
    if courts == () and acts == ():
        raise ValueError(f"expected {courts_field} or {acts_field} to leave a citation kind, got both empty")


class AnswerFields(Protocol):
    """What `POST /v1/answers` reads of its body. The model is built per app (`request_models`), so
    no annotation can name it; the route reads its body through this view."""

    question: str
    policy: Policy
    max_tokens: int
    temperature: float
    top_p: float
    seed: int | None
    courts: tuple[str, ...] | None
    acts: tuple[str, ...] | None


class ChatMessageFields(Protocol):
    role: Role
    content: str


class StreamOptionsFields(Protocol):
    include_usage: bool


class ChatFields(Protocol):
    """What `POST /v1/chat/completions` reads of its body (as `AnswerFields`)."""

    messages: Sequence[ChatMessageFields]
    stream: bool
    stream_options: StreamOptionsFields | None
    max_tokens: int | None
    max_completion_tokens: int | None
    temperature: float
    top_p: float
    seed: int | None
    stop: list[str] | None
    citation_policy: Policy
    citegen_courts: tuple[str, ...] | None
    citegen_acts: tuple[str, ...] | None


def request_models(
    config: StreamingSettings, citable: Callable[[], CitableNames]
) -> tuple[type[BaseModel], type[BaseModel]]:
    """(AnswerRequest, ChatCompletionRequest) bounded by `config`, narrowable to the names
    `citable()` gives when a request arrives."""
    TokenCount = Annotated[Integer, Field(ge=1, le=config.max_tokens_limit)]
    PromptText = Annotated[Text, Field(max_length=config.max_prompt_chars)]
    court_names, act_names = _citable("court", lambda: citable().courts), _citable("act", lambda: citable().acts)

    class AnswerRequest(BaseModel):
        model_config = ConfigDict(extra="forbid")

        question: Annotated[Text, Field(min_length=1, max_length=config.max_prompt_chars)]
        policy: Policy = config.default_policy
        max_tokens: TokenCount = config.default_max_tokens
        temperature: Temperature = 0.0
        top_p: TopP = 1.0
        seed: Seed | None = None
        courts: Annotated[Names, court_names] | None = Field(default=None, description=COURTS_DESCRIPTION)
        acts: Annotated[Names, act_names] | None = Field(default=None, description=ACTS_DESCRIPTION)

        @model_validator(mode="after")
        def _narrowing_leaves_a_kind(self) -> AnswerRequest:
            _leave_a_kind("courts", self.courts, "acts", self.acts)
            return self

    class TextPart(BaseModel):
        model_config = ConfigDict(extra="forbid")

        type: Literal["text"]
        text: PromptText

    class ChatMessage(BaseModel):
        """A message as OpenAI's clients send it: content a string or a list of text parts (joined by
        newlines, as vLLM joins them); `developer` is OpenAI's newer name for `system`."""

        model_config = ConfigDict(extra="forbid")

        role: Literal["system", "developer", "user", "assistant"]
        content: PromptText | Annotated[list[TextPart], Field(min_length=1, max_length=MAX_CONTENT_PARTS)]
        name: Annotated[str, Field(max_length=64)] | None = None

        @model_validator(mode="after")
        def _as_the_source_reads_it(self) -> ChatMessage:
            if isinstance(self.content, list):
                self.content = "\n".join(part.text for part in self.content)
            if self.role == "developer":
                self.role = "system"
            return self

    class StreamOptions(BaseModel):
        model_config = ConfigDict(extra="forbid")

        include_usage: Flag = False

    class ChatCompletionRequest(BaseModel):
        """OpenAI's chat completion request, the fields this service honours or safely ignores,
        plus the extensions `citation_policy`, `citegen_courts` and `citegen_acts` (named as
        citegen's vLLM options name them)."""

        model_config = ConfigDict(extra="forbid")

        model: Annotated[str, Field(min_length=1, max_length=200)]
        messages: Annotated[list[ChatMessage], Field(min_length=1, max_length=config.max_messages)]
        # null, which OpenAI's API takes for "the default" (and some clients send), is the default
        stream: Flag | None = False
        stream_options: StreamOptions | None = None
        max_tokens: TokenCount | None = None
        max_completion_tokens: TokenCount | None = None
        temperature: Temperature | None = 0.0
        top_p: TopP | None = 1.0
        seed: Seed | None = None
        # one stop string or a list of them, read as a list: a bad one is named by its place and its length
        # in characters (a union reported both of its halves, the string's limits as a list's items)
        stop: Annotated[
            list[StopString], Field(max_length=4),
            BeforeValidator(_listed, json_schema_input_type=StopString | list[StopString]),
        ] | None = None
        n: Literal[1] | None = 1
        user: Annotated[str, Field(max_length=256)] | None = None
        frequency_penalty: Penalty | None = 0.0
        presence_penalty: Penalty | None = 0.0
        citation_policy: Policy = config.default_policy
        citegen_courts: Annotated[Names, court_names] | None = Field(default=None, description=COURTS_DESCRIPTION)
        citegen_acts: Annotated[Names, act_names] | None = Field(default=None, description=ACTS_DESCRIPTION)

        @model_validator(mode="after")
        def _null_is_the_default(self) -> ChatCompletionRequest:
            for name in ("stream", "temperature", "top_p", "n", "frequency_penalty", "presence_penalty"):
                if getattr(self, name) is None:
                    setattr(self, name, type(self).model_fields[name].default)
            return self

        @model_validator(mode="after")
        def _prompt_fits(self) -> ChatCompletionRequest:
            total = sum(len(message.content) for message in self.messages)
            if total > config.max_prompt_chars:
                raise ValueError(
                    f"expected at most {config.max_prompt_chars} characters of messages, got {total}"
                )
            return self

        @model_validator(mode="after")
        def _narrowing_leaves_a_kind(self) -> ChatCompletionRequest:
            _leave_a_kind("citegen_courts", self.citegen_courts, "citegen_acts", self.citegen_acts)
            return self

    return AnswerRequest, ChatCompletionRequest
