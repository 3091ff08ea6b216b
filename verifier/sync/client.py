"""The law.go.kr Open API client: timeouts, a polite rate limit, bounded concurrency, retries with
backoff on network errors and 5xx, and the API's ways of failing read as typed errors.

law.go.kr answers most failures with HTTP 200 (../shared/reference/legal-citations.md §2.4 and the
fixtures' README): an unregistered key or caller IP gets a JSON envelope `{"result": "사용자 정보
검증에 실패하였습니다.", "msg": …}`, a target the key is not registered for gets an HTML page
(`미신청된 목록/본문에 대한 접근입니다.`). Those are refusals (`ApiRefusedError`), not retried.

The OC key goes into each request's query and nowhere else: every URL in a message or a log line
goes through `redact`, and nothing here stores it.
"""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from types import TracebackType
from typing import Self

import httpx

from verifier.sync.api import BASE_URL
from verifier.sync.errors import ApiRefusedError, ApiUnreachableError, ResponseShapeError, SyncError

logger = logging.getLogger(__name__)

_KEY_IN_URL = re.compile(r"(?<=[?&]OC=)[^&#]*", re.IGNORECASE)
_HTML_HEADING = re.compile(rb"<h2[^>]*>\s*(.*?)\s*</h2>|<title[^>]*>\s*(.*?)\s*</title>", re.IGNORECASE | re.DOTALL)
_RETRIED_STATUSES = frozenset({429, 500, 502, 503, 504})
_UNREGISTERED = "미신청"
_KEY_REFUSED = "검증에 실패"


def redact(url: str) -> str:
    """The URL with its OC value replaced by `***`."""
    return _KEY_IN_URL.sub("***", url)


class _RedactKeys(logging.Filter):
    """httpx logs each request's full URL at INFO (`HTTP Request: GET …?OC=…`): redact it there."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and any("OC=" in str(arg) for arg in record.args):
            record.args = tuple(redact(str(arg)) if "OC=" in str(arg) else arg for arg in record.args)
        return True


def _redact_httpx_log() -> None:
    httpx_logger = logging.getLogger("httpx")
    if not any(isinstance(existing, _RedactKeys) for existing in httpx_logger.filters):
        httpx_logger.addFilter(_RedactKeys())


@dataclass(frozen=True, slots=True)
class ClientConfig:
    """How politely and how persistently the client talks to law.go.kr."""

    oc: str
    base_url: str = BASE_URL
    timeout_s: float = 30.0
    requests_per_s: float = 2.0  # spaced evenly; law.go.kr publishes no limit, so stay well below any
    concurrency: int = 4  # body requests in flight at once
    retries: int = 4  # tries after the first, on network errors, 429 and 5xx
    backoff_s: float = 1.0  # doubled each retry; a Retry-After header wins when it says longer
    max_backoff_s: float = 60.0

    def __post_init__(self) -> None:
        if not self.oc or not self.oc.strip():
            raise ValueError("expected an OC key (--oc or CITEGEN_LAWGO_OC), got none")
        if self.requests_per_s <= 0 or self.concurrency < 1 or self.retries < 0:
            raise ValueError(f"expected a positive rate, concurrency >= 1 and retries >= 0, got "
                             f"{self.requests_per_s}, {self.concurrency}, {self.retries}")


class RateLimiter:
    """Spaces calls `1 / per_second` apart across threads; `clock` and `sleep` are injectable so
    tests run without waiting."""

    def __init__(self, per_second: float, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.interval = 1.0 / per_second
        self.clock = clock
        self.sleep = sleep
        self._next = 0.0
        self._lock = threading.Lock()

    def wait(self) -> None:
        with self._lock:
            now = self.clock()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            self.sleep(start - now)


@dataclass(frozen=True, slots=True)
class ApiRequest:
    """One GET: `endpoint` is `lawSearch.do` or `lawService.do`; `params` without OC and type."""

    endpoint: str
    params: tuple[tuple[str, str], ...]


class LawGoClient:
    """GETs law.go.kr XML. Use as a context manager; `transport` and `sleep`/`clock` are for tests."""

    def __init__(self, config: ClientConfig, *, transport: httpx.BaseTransport | None = None,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> None:
        _redact_httpx_log()
        self.config = config
        self.sleep = sleep
        self.limiter = RateLimiter(config.requests_per_s, clock, sleep)
        self.requests_sent = 0
        self._http = httpx.Client(base_url=config.base_url.rstrip("/") + "/", transport=transport,
                                  timeout=httpx.Timeout(config.timeout_s), follow_redirects=True,
                                  headers={"User-Agent": "citegen-admin sync"})
        self._pool = ThreadPoolExecutor(max_workers=config.concurrency, thread_name_prefix="lawgo")
        self._count_lock = threading.Lock()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._http.close()

    def url_of(self, request: ApiRequest) -> str:
        """The request's URL as messages show it (key redacted)."""
        return redact(f"{self.config.base_url.rstrip('/')}/{request.endpoint}?{self._params(request)}")

    def _params(self, request: ApiRequest) -> httpx.QueryParams:
        return httpx.QueryParams([("OC", self.config.oc), *request.params, ("type", "XML")])

    def get(self, request: ApiRequest) -> bytes:
        """The body of a 200 that is not one of the API's refusals; raises a `SyncError` otherwise."""
        shown = self.url_of(request)
        attempt = 0
        failure: type[SyncError]
        while True:
            self.limiter.wait()
            with self._count_lock:
                self.requests_sent += 1
            logger.debug("GET %s (try %d)", shown, attempt + 1)
            try:
                response = self._http.get(request.endpoint, params=self._params(request))
            except httpx.TransportError as error:
                problem, delay, failure = (f"expected an answer from law.go.kr, got {type(error).__name__}", None,
                                           ApiUnreachableError)
            else:
                if response.status_code == 200:
                    refuse(response.content, shown)
                    return response.content
                problem = f"expected HTTP 200, got {response.status_code} {response.reason_phrase}"
                if response.status_code not in _RETRIED_STATUSES:
                    raise ApiRefusedError(shown, problem)
                quota = response.status_code == 429
                if quota:
                    problem += " (the key's quota or rate: lower --rate, or wait)"
                delay, failure = _retry_after(response), ApiRefusedError if quota else ApiUnreachableError
            if attempt >= self.config.retries:
                raise failure(shown, f"{problem}, {attempt + 1} times")
            pause = max(delay or 0.0, min(self.config.backoff_s * 2 ** attempt, self.config.max_backoff_s))
            logger.info("%s; retrying in %.1f s: %s", problem, pause, shown)
            self.sleep(pause)
            attempt += 1

    def get_all(self, requests: Iterable[ApiRequest]) -> Iterator[bytes]:
        """The bodies of `requests`, in order, at most `concurrency` in flight; a failure surfaces
        when its turn comes (the ones before it have been yielded), and the rest are cancelled."""
        futures: list[Future[bytes]] = [self._pool.submit(self.get, request) for request in requests]
        try:
            for future in futures:
                yield future.result()
        finally:
            for future in futures:
                future.cancel()


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After", "")
    return float(value) if value.strip().isdigit() else None


def refuse(body: bytes, shown: str) -> None:
    """Raise if `body` is one of law.go.kr's refusals (see the module docstring) or an HTML page."""
    head = body.lstrip()[:4096]
    if head.startswith(b"{"):
        try:
            envelope = json.loads(body)
        except (json.JSONDecodeError, UnicodeDecodeError):
            envelope = None
        if isinstance(envelope, dict) and "result" in envelope:
            said = " ".join(str(envelope.get(key, "")).strip() for key in ("result", "msg")).strip()
            if _KEY_REFUSED in said:
                raise ApiRefusedError(shown, f"law.go.kr refused the OC key: {said!r} (check the key, and register "
                                             "this machine's IP address with it at open.law.go.kr)")
            raise ApiRefusedError(shown, f"law.go.kr refused the request: {said[:200]!r}")
        raise ResponseShapeError(shown, "expected law.go.kr XML, got JSON (the request asks for type=XML)")
    if head.lower().startswith((b"<!doctype html", b"<html")):
        headings = [(h2 or title).decode("utf-8", "replace").strip() for h2, title in _HTML_HEADING.findall(body)]
        said = next((text for text in headings if _UNREGISTERED in text), headings[0] if headings else "")
        if _UNREGISTERED in said:
            raise ApiRefusedError(shown, f"law.go.kr answered with its HTML error page {said!r}: the key is not "
                                         "registered for this target (open.law.go.kr: OPEN API 신청)")
        raise ResponseShapeError(shown, f"expected law.go.kr XML, got an HTML page {said[:100]!r}")
