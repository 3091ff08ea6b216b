"""Errors of `citegen-admin sync`, under the verifier's one root.

    VerifierError
    └── SyncError                  a sync stopped; names the request that failed, the OC key redacted
        ├── ApiRefusedError            law.go.kr refused the request: a wrong or unregistered key,
        │                              a target the key is not registered for, a quota spent
        ├── ApiUnreachableError        no answer, or 5xx, after every retry
        ├── ResponseShapeError         an answer that is not what the target returns: an HTML page
        │                              instead of XML, a changed schema, a truncated body
        └── SyncTakenOverError         another sync of the same stream started and took its run over

The item being imported when one is raised is rolled back: the database is as it was before it.
"""

from __future__ import annotations

from verifier.errors import VerifierError


class SyncError(VerifierError):
    """`request` is the URL with the key redacted ("" where no request failed); the message names the
    problem, then the request."""

    def __init__(self, request: str, problem: str) -> None:
        self.request = request
        self.problem = problem
        super().__init__(f"{problem} (request: {request})" if request else problem)


class ApiRefusedError(SyncError):
    pass


class ApiUnreachableError(SyncError):
    pass


class ResponseShapeError(SyncError):
    pass


class SyncTakenOverError(SyncError):
    """This invocation's run of `stream` was taken over by a later sync of the same stream, which goes on
    from the items done; no request failed."""

    def __init__(self, stream: str) -> None:
        self.stream = stream
        super().__init__("", f"another sync of {stream} started and took this run over; it goes on from the items "
                             "done here")
