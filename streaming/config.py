"""The streaming service's settings section. The composition root nests it in the one settings
object (`CITEGEN_STREAMING__MAX_ACTIVE=…`); `create_app()` receives it and reads nothing else."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

from streaming.protocols import Policy


class StreamingSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    model_name: str = "ko-legal-tiny"  # what /v1/chat/completions reports as `model`
    max_active: int = Field(default=32, ge=1)  # answers generated at once
    max_queued: int = Field(default=64, ge=0)  # answers waiting for a slot before 429
    retry_after_s: int = Field(default=2, ge=1)
    max_body_bytes: int = Field(default=64 * 1024, ge=256)
    max_prompt_chars: int = Field(default=8_000, ge=1)
    max_messages: int = Field(default=64, ge=1)
    max_tokens_limit: int = Field(default=2_048, ge=1)
    default_max_tokens: int = Field(default=256, ge=1)
    default_policy: Policy = "strict"
    verify_timeout_s: float = Field(default=2.0, gt=0)
    inbox_size: int = Field(default=64, ge=1)  # source events buffered per answer (backpressure)
    strict_marker: str = "[확인되지 않은 인용 생략]"
    max_narrowings_per_client: int = Field(default=2, ge=1)  # new narrowings compiling per client
    body_timeout_s: float = Field(default=10.0, gt=0)  # the whole request body, from its first byte
    shutdown_grace_s: int = Field(default=10, ge=0)  # answers in flight may finish on a stop, then end
    admin_api_key: SecretStr | None = None  # None: the admin endpoints answer 404; never empty

    @field_validator("admin_api_key")
    @classmethod
    def _not_empty(cls, key: SecretStr | None) -> SecretStr | None:
        if key is not None and not key.get_secret_value().strip():
            raise ValueError(
                "expected an admin API key of at least one non-blank character, got an empty one "
                "(unset CITEGEN_STREAMING__ADMIN_API_KEY to turn the admin endpoints off)"
            )
        return key
