"""Request bodies, validated before any stream starts. The models are built per app from its
settings, so the OpenAPI schema states the real limits (and schemathesis tests exactly those)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from streaming.config import StreamingSettings
from streaming.protocols import Policy

MAX_SEED = 2**63 - 1


def _no_lone_surrogates(text: str) -> str:
    # JSON may spell a lone surrogate (\ud800); it has no UTF-8 form, so nothing could echo it back.
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ValueError(f"expected text encodable as UTF-8, got a lone surrogate at {error.start}") from None
    return text


Text = Annotated[str, AfterValidator(_no_lone_surrogates)]


def request_models(config: StreamingSettings) -> tuple[type[BaseModel], type[BaseModel]]:
    """(AnswerRequest, ChatCompletionRequest) bounded by `config`."""
    TokenCount = Annotated[int, Field(ge=1, le=config.max_tokens_limit)]
    PromptText = Annotated[Text, Field(max_length=config.max_prompt_chars)]

    class AnswerRequest(BaseModel):
        model_config = ConfigDict(extra="forbid")

        question: Annotated[Text, Field(min_length=1, max_length=config.max_prompt_chars)]
        policy: Policy = config.default_policy
        max_tokens: TokenCount = config.default_max_tokens
        temperature: float = Field(default=0.0, ge=0.0, le=2.0)
        top_p: float = Field(default=1.0, gt=0.0, le=1.0)
        seed: int | None = Field(default=None, ge=0, le=MAX_SEED)

    class ChatMessage(BaseModel):
        model_config = ConfigDict(extra="forbid")

        role: Literal["system", "user", "assistant"]
        content: PromptText
        name: Annotated[str, Field(max_length=64)] | None = None

    class StreamOptions(BaseModel):
        model_config = ConfigDict(extra="forbid")

        include_usage: bool = False

    class ChatCompletionRequest(BaseModel):
        """OpenAI's chat completion request, the fields this service honours or safely ignores,
        plus the `citation_policy` extension."""

        model_config = ConfigDict(extra="forbid")

        model: Annotated[str, Field(min_length=1, max_length=200)]
        messages: Annotated[list[ChatMessage], Field(min_length=1, max_length=config.max_messages)]
        stream: bool = False
        stream_options: StreamOptions | None = None
        max_tokens: TokenCount | None = None
        max_completion_tokens: TokenCount | None = None
        temperature: float = Field(default=0.0, ge=0.0, le=2.0)
        top_p: float = Field(default=1.0, gt=0.0, le=1.0)
        seed: int | None = Field(default=None, ge=0, le=MAX_SEED)
        stop: (
            Annotated[Text, Field(min_length=1, max_length=64)]
            | Annotated[list[Annotated[Text, Field(min_length=1, max_length=64)]], Field(max_length=4)]
            | None
        ) = None
        n: Literal[1] = 1
        user: Annotated[str, Field(max_length=256)] | None = None
        frequency_penalty: float = Field(default=0.0, ge=-2.0, le=2.0)
        presence_penalty: float = Field(default=0.0, ge=-2.0, le=2.0)
        citation_policy: Policy = config.default_policy

        @model_validator(mode="after")
        def _prompt_fits(self) -> ChatCompletionRequest:
            total = sum(len(message.content) for message in self.messages)
            if total > config.max_prompt_chars:
                raise ValueError(
                    f"expected at most {config.max_prompt_chars} characters of messages, got {total}"
                )
            return self

    return AnswerRequest, ChatCompletionRequest
