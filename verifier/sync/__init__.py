"""`citegen-admin sync`: keep the database current from the law.go.kr Open API.

    client    LawGoClient (rate limit, bounded concurrency, retries, the API's refusals as errors)
    targets   what law, prec, detc and abbreviations list, fetch and import
    state     the cursor per list and the items of a run under way, in the database
    runner    run_sync: list, fetch, import one item per transaction, resume
"""

from verifier.sync.client import BASE_URL, ClientConfig, LawGoClient, redact
from verifier.sync.errors import ApiRefusedError, ApiUnreachableError, ResponseShapeError, SyncError
from verifier.sync.runner import PAGE_SIZE, TARGETS, SyncPlan, SyncReport, run_sync

__all__ = ["BASE_URL", "PAGE_SIZE", "TARGETS", "ApiRefusedError", "ApiUnreachableError", "ClientConfig",
           "LawGoClient", "ResponseShapeError", "SyncError", "SyncPlan", "SyncReport", "redact", "run_sync"]
