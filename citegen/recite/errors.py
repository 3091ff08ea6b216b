"""Errors of the re-citation batch (`citegen.recite`), under citegen's root `CitegenError`.

    ReciteError                 root: a batch that cannot run, or a document that cannot be processed
    ├── UsageError              bad command-line use: no inputs, a missing path, --out inside an input
    ├── RegenerationError       a slot the model could not re-generate (its prompt refused, its decoding
    │                           failed): that citation goes to review with the reason; the document goes on
    └── DocumentError           one document the batch reports and skips; the batch goes on
        ├── UnsupportedError    a file type the batch does not read
        ├── UnreadableError     the file cannot be opened or read
        ├── OutsideInputError   a link in an input folder that leads out of it: never read
        ├── EncodingError       text that is neither UTF-8 nor CP949/EUC-KR, or not writable back in it
        ├── CorruptError        a .docx/.hwpx that is not a well-formed zip of XML parts
        ├── TooLargeError       larger than the configured limit (file or unpacked part)
        └── EmptyError          no text at all

Expected outcomes of the citations themselves (unresolvable, not verified, uncertain) are values
in the report (`CitationOutcome.action`), not exceptions.
"""

from __future__ import annotations

from citegen.errors import CitegenError


class ReciteError(CitegenError):
    """Root of citegen.recite's errors; the message says what was expected and what came."""


class UsageError(ReciteError):
    pass


class RegenerationError(ReciteError):
    pass


class DocumentError(ReciteError):
    """A document-level failure; `kind` is the short word written to the reports."""

    kind = "error"


class UnsupportedError(DocumentError):
    kind = "unsupported"


class UnreadableError(DocumentError):
    kind = "unreadable"


class OutsideInputError(DocumentError):
    kind = "outside_input"


class EncodingError(DocumentError):
    kind = "encoding"


class CorruptError(DocumentError):
    kind = "corrupt"


class TooLargeError(DocumentError):
    kind = "too_large"


class EmptyError(DocumentError):
    kind = "empty"
