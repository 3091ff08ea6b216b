"""`citegen-admin sync`: keep the database current from the law.go.kr Open API.

    api       the Open API's address, targets and page size
    client    LawGoClient (rate limit, bounded concurrency, retries, the API's refusals as errors)
    targets   what law, prec, detc and abbreviations list, fetch and import
    state     the cursor per list and the items of a run under way, in the database
    runner    run_sync: list, fetch, import one item per transaction, resume
"""

from typing import TYPE_CHECKING

from grammars import lazy_exports
from verifier.sync.api import BASE_URL, PAGE_SIZE, TARGETS

if TYPE_CHECKING:  # loaded on first use (grammars.exports): the client loads httpx, the runner the database
    from verifier.sync.client import ClientConfig, LawGoClient, redact
    from verifier.sync.errors import (
        ApiRefusedError,
        ApiUnreachableError,
        ResponseShapeError,
        SyncError,
        SyncTakenOverError,
    )
    from verifier.sync.runner import SyncPlan, SyncReport, run_sync

_HOMES = {
    "verifier.sync.client": ("ClientConfig", "LawGoClient", "redact"),
    "verifier.sync.errors": ("ApiRefusedError", "ApiUnreachableError", "ResponseShapeError", "SyncError",
                             "SyncTakenOverError"),
    "verifier.sync.runner": ("SyncPlan", "SyncReport", "run_sync"),
}
__getattr__, __dir__ = lazy_exports(__name__, _HOMES)

__all__ = ["BASE_URL", "PAGE_SIZE", "TARGETS", "ApiRefusedError", "ApiUnreachableError", "ClientConfig",
           "LawGoClient", "ResponseShapeError", "SyncError", "SyncPlan", "SyncReport", "SyncTakenOverError", "redact",
           "run_sync"]
