"""What one document may cost, as plain numbers: imported by `citegen recite --help` without the
pipeline (grammars, numpy) behind the rest of the package."""

DEFAULT_MAX_BYTES = 20 * 1024 * 1024
# A .docx/.hwpx may unpack to this many times the limit in all: pictures and fonts are copied into
# the output (one chunk at a time), never read as text; their text parts together must fit the limit.
ARCHIVE_EXPANSION = 4
