"""Re-citation at scale and under attack: `python bench/recite_scale_bench.py [--sizes 1 10 50]`.

Two tables, each row one batch (`run_batch`, one worker) in a fresh process, so its peak RSS is
that input's alone:

- **Scale**: drafts of 1, 10 and 50 MB (and a tiny one, the baseline of imports and database, run
  twice: first on an empty start-up cache, as the first run on a database is, then as every later
  run is), generated here by concatenating the .txt/.md drafts of data/drafts until the size is
  reached (named `drafts-<N>MB.txt`, and `.docx` with one paragraph per line for the sizes given to
  --docx-sizes); end-to-end seconds (reading, finding, resolving, verifying, writing the output
  and both reports), the whole process's CPU seconds (from the interpreter's start: imports
  included) and the batch's, MB per CPU second of each, and peak RSS. Time per MB and memory per MB
  that stay flat across sizes are what linear means here; the data/drafts text holds a citation
  every ~77 bytes, so the per-citation cost of the finder and resolver decides MB/s.
- **Hostile inputs**: bombs (many big text parts, a picture that unpacks to 1 GiB, 200,000
  entries, billion laughs), a DOCTYPE after the first 4 KB, `>` inside attribute values, links out of the input
  folder (to a file and to a folder), CP949 whose bytes are valid UTF-8, a truncated .docx; each
  with its outcome, time, peak RSS and the SHA-256 of the whole input folder (links as links)
  before and after the batch, which must be equal.

The verifier database is built from data/law and data/cases into a temporary SQLite file (or
--database-url: one already built, as `python -m bench` lends it). The project's packages are
byte-compiled into their `__pycache__` first, as pip compiles an installed citegen: a child then
pays what an installed `citegen recite` pays, not compiling every source it imports (0.07 s CPU
where PYTHONDONTWRITEBYTECODE is set). Writes markdown to bench/results/recite_scale_bench.md.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import io
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

from bench.memory import peak_rss

ROOT = Path(__file__).resolve().parent.parent
DRAFTS = ROOT / "data" / "drafts"
MB = 1_000_000
_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


# --- one batch, in its own process ------------------------------------------------------------

def run_one(folder: Path, out: Path, url: str, max_bytes: int, cache_dir: Path) -> dict:
    """Recite `folder` into `out` with one worker, as `citegen recite` does (its start-up cache in
    `cache_dir`); what came of it, its time and this process's peak RSS."""
    from citegen.commands.recite_wiring import build_pipeline
    from citegen.recite import BatchOptions, collect_inputs, run_batch

    started, cpu = time.perf_counter(), time.process_time()
    files = collect_inputs([folder], out)
    summary = run_batch(files, BatchOptions(out, jobs=1, max_bytes=max_bytes),
                        functools.partial(build_pipeline, url, None, cache_dir=cache_dir))
    return {"seconds": time.perf_counter() - started, "cpu": time.process_time() - cpu,
            "process_cpu": time.process_time(),  # since the interpreter started: imports included
            # VmHWM of this process (getrusage's ru_maxrss carries the parent's size across fork and exec,
            # which would count the drafts the parent generated)
            "peak_rss_mib": peak_rss(),
            "statuses": dict(summary.statuses), "citations": summary.citations,
            "review": summary.documents_needing_review,
            "records": [json.loads(line) for line in (out / "report.jsonl").read_text("utf-8").splitlines()
                        if '"record": "document"' in line]}


def _in_child(folder: Path, out: Path, url: str, max_bytes: int) -> dict:
    command = [sys.executable, __file__, "--one", str(folder), "--out", str(out), "--database-url", url,
               "--max-bytes", str(max_bytes), "--cache-dir", str(Path(url.removeprefix("sqlite:///")).parent / "cache")]
    result = subprocess.run(command, capture_output=True, text=True, check=False,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    if result.returncode != 0:
        raise RuntimeError(f"expected the batch on {folder} to finish, got exit {result.returncode}:\n{result.stderr}")
    return json.loads(result.stdout.splitlines()[-1])


def compile_sources() -> None:
    """Byte-compile the project's packages into their `__pycache__` (which Python reads even where
    PYTHONDONTWRITEBYTECODE stops it writing there), as pip does when it installs citegen."""
    import compileall

    for package in ("grammars", "verifier", "streaming", "citegen"):
        if not compileall.compile_dir(ROOT / package, quiet=1):
            raise RuntimeError(f"expected {ROOT / package} to byte-compile, got errors (above)")


# --- inputs -----------------------------------------------------------------------------------

def _draft_text(size: int) -> str:
    from citegen.recite.encodings import decode_text

    texts = [decode_text(p.read_bytes(), p.name).text for p in sorted(DRAFTS.iterdir()) if p.suffix in (".txt", ".md")]
    chunks, total, index = [], 0, 0
    while total < size:
        text = texts[index % len(texts)]
        chunks.append(text)
        total += len(text.encode("utf-8")) + 1
        index += 1
    return "\n".join(chunks)


def _docx(paragraphs: list[str], extra: dict[str, bytes] | None = None) -> bytes:
    body = "".join(f'<w:p><w:r><w:t xml:space="preserve">{_xml_text(line)}</w:t></w:r></w:p>' for line in paragraphs)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/document.xml", f'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="{_W}">'
                                              f"<w:body>{body}</w:body></w:document>")
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return out.getvalue()


def _xml_text(text: str) -> str:
    """`&`, `<` and `>` escaped, as xml.sax.saxutils.escape writes them (importing it cost every child 0.02 s:
    urllib.request, http.client, email)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _streamed_docx(path: Path, parts: dict[str, tuple[bytes, int]]) -> None:
    """A .docx whose parts are `chunk` repeated to `size` bytes, written without holding them."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("word/document.xml", _docx_body("민법 제750조에 따른다."))
        for name, (chunk, size) in parts.items():
            with archive.open(name, "w", force_zip64=True) as entry:
                for _ in range(size // len(chunk)):
                    entry.write(chunk)


def _docx_body(text: str) -> str:
    return (f'<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="{_W}"><w:body><w:p><w:r>'
            f"<w:t>{_xml_text(text)}</w:t></w:r></w:p></w:body></w:document>")


def _header_bomb(folder: Path) -> str:
    header = b"<w:hdr>" + b" " * (1 << 20)  # never closed: nothing may ever parse it
    _streamed_docx(folder / "headers.docx", {f"word/header{i}.xml": (header, 19 << 20) for i in range(1, 41)})
    return "40 header parts of 19 MiB each (the issue's 1.72 GB case)"


def _picture_bomb(folder: Path) -> str:
    _streamed_docx(folder / "picture.docx", {"word/media/image1.png": (b"\0" * (1 << 20), 1 << 30)})
    return "a picture entry that unpacks to 1 GiB"


def _many_entries(folder: Path) -> str:
    with zipfile.ZipFile(folder / "many.docx", "w") as archive:
        archive.writestr("word/document.xml", _docx_body("민법 제750조에 따른다."))
        for index in range(200_000):
            archive.writestr(f"word/media/{index}", b"")
    return "200,000 empty entries (18 MB)"


def _write(name: str, data: bytes, what: str) -> Callable[[Path], str]:
    def make(folder: Path) -> str:
        (folder / name).write_bytes(data)
        return what
    return make


def _links(folder: Path) -> str:
    (folder / "passwd.txt").symlink_to("/etc/passwd")
    (folder / "etc").symlink_to("/etc")
    (folder / "inside.txt").write_text("민소법 제1조", encoding="utf-8")
    (folder / "alias.txt").symlink_to(folder / "inside.txt")
    return "links to /etc/passwd and /etc, and a link to a draft beside it"


_LAUGHS = (b'<?xml version="1.0"?><!DOCTYPE w:document [<!ENTITY a "aaaaaaaaaa">'
           + b"".join(f'<!ENTITY {chr(98 + i)} "{("&" + chr(97 + i) + ";") * 10}">'.encode() for i in range(8))
           + f']><w:document xmlns:w="{_W}"><w:body><w:p><w:r><w:t>&i;</w:t></w:r></w:p></w:body></w:document>'
           .encode())
_LATE_DOCTYPE = (b'<?xml version="1.0"?><!--' + b"x" * 5000 + b"--><!DOCTYPE w:document [<!ENTITY a \"aaaa\">]>"
                 + f'<w:document xmlns:w="{_W}"><w:body><w:p><w:r><w:t>&a;</w:t></w:r></w:p></w:body></w:document>'
                 .encode())
_ATTRIBUTE = (f'<?xml version="1.0"?><w:document xmlns:w="{_W}"><w:body><w:p><w:r><w:rPr>'
              '<w:rFonts w:ascii="a>b" w:hAnsi="<c>"/></w:rPr><w:t>민소법 제1조</w:t></w:r></w:p>'
              "</w:body></w:document>").replace('"<c>"', '"&lt;c>"').encode()


def _zip_of(name: str, xml: bytes) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, xml)
    return out.getvalue()


HOSTILE: list[tuple[str, Callable[[Path], str]]] = [
    ("header-bomb.docx", _header_bomb),
    ("picture-bomb.docx", _picture_bomb),
    ("many-entries.docx", _many_entries),
    ("billion-laughs.docx",
     _write("laughs.docx", _zip_of("word/document.xml", _LAUGHS), "billion laughs in document.xml")),
    ("late-doctype.docx",
     _write("late.docx", _zip_of("word/document.xml", _LATE_DOCTYPE), "a DOCTYPE after 5 KB of comment")),
    ("attribute-gt.docx",
     _write("attributes.docx", _zip_of("word/document.xml", _ATTRIBUTE),
            "`>` and `<` escaped as `&lt;` in attribute values")),
    ("truncated.docx", _write("cut.docx", _docx(["민법 제750조"] * 200)[:-40], "a .docx cut short")),
    ("links", _links),
    ("cp949-valid-utf8.txt", _write("both.txt", "청화 회화 환호 천체 치킨 활황 청탁 창호 카타 키".encode("cp949"),
                                    "CP949 whose bytes are valid UTF-8")),
    ("cp949-valid-utf8-short.txt", _write("short.txt", "청화".encode("cp949"), "2 syllables of it")),
]


def _folder_digest(folder: Path) -> str:
    """SHA-256 over every path under `folder`, a link by where it points, a file by its bytes."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        digest.update(path.relative_to(folder).as_posix().encode() + b"\0")
        if path.is_symlink():
            digest.update(b"link:" + os.readlink(path).encode())
        elif path.is_file():
            with path.open("rb") as stream:
                for chunk in iter(lambda: stream.read(1 << 20), b""):
                    digest.update(chunk)
    return digest.hexdigest()


# --- tables -----------------------------------------------------------------------------------

def scale_rows(scratch: Path, url: str, sizes: list[float], docx_sizes: list[float]) -> list[str]:
    rows = []
    # The first process on a database reads its names and compiles the finder (the start-up cache
    # is empty); every later one loads both from the cache, as `citegen recite` does after its first run.
    runs = [("tiny, first run on this database", "txt", 0.0011), ("tiny (baseline)", "txt", 0.001)]
    runs += [(f"{s:g} MB", "txt", s) for s in sizes]
    runs += [(f"{s:g} MB", "docx", s) for s in docx_sizes]
    baseline_cpu = 0.0  # the tiny draft's: imports, database, lexicon and automata, paid once per process
    for label, kind, size in runs:
        folder = scratch / f"scale-{kind}-{size:g}"
        folder.mkdir()
        text = _draft_text(int(size * MB))
        name = f"drafts-{size:g}MB.{kind}"
        data = text.encode("utf-8") if kind == "txt" else _docx(text.split("\n"))
        (folder / name).write_bytes(data)
        megabytes = len(text.encode("utf-8")) / MB  # of text, also for a .docx
        del text
        result = _in_child(folder, scratch / f"out-{kind}-{size:g}", url, max(64 * MB, 8 * len(data)))
        if size < 0.01:
            baseline_cpu, rates = result["cpu"], "| — | — | — | — "
        else:
            rates = (f"| {megabytes / result['process_cpu']:.2f} | {megabytes / result['cpu']:.2f} "
                     f"| {result['cpu'] / megabytes:.2f} | {megabytes / max(result['cpu'] - baseline_cpu, 1e-9):.2f} ")
        rows.append(f"| {name} ({label}) | {megabytes:,.2f} | {len(data) / MB:,.2f} | {result['citations']:,} "
                    f"| {result['seconds']:.1f} | {result['process_cpu']:.1f} | {result['cpu']:.1f} {rates}"
                    f"| {result['peak_rss_mib']:,.0f} "
                    f"| {', '.join(result['statuses'])} |")
        print(rows[-1], flush=True)
    return rows


def hostile_rows(scratch: Path, url: str) -> list[str]:
    rows = []
    for label, make in HOSTILE:
        folder = scratch / "hostile" / label
        folder.mkdir(parents=True)
        what = make(folder)
        before = _folder_digest(folder)
        result = _in_child(folder, scratch / "hostile-out" / label, url, 20 * (1 << 20))
        after = _folder_digest(folder)
        outcome = "; ".join(f"{r['file'].split('/', 1)[1]}: {r['verdict']}" for r in result["records"]) or \
            ", ".join(f"{k} {v}" for k, v in result["statuses"].items())
        rows.append(f"| {label} | {what} | {outcome} | {result['citations']} | {result['review']} "
                    f"| {result['seconds']:.2f} | {result['peak_rss_mib']:,.0f} | {before[:12]} | {after[:12]} "
                    f"| {'yes' if before == after else '**NO**'} |")
        print(rows[-1], flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=float, nargs="*", default=[1, 10, 50], help="Plain-text draft sizes, MB.")
    parser.add_argument("--docx-sizes", type=float, nargs="*", default=[1, 10], help=".docx draft sizes, MB of text.")
    parser.add_argument("--no-hostile", action="store_true")
    parser.add_argument("--results", type=Path, default=ROOT / "bench" / "results" / "recite_scale_bench.md")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)  # a child: one batch
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--database-url", help="a database of data/law and data/cases (default: import them)")
    parser.add_argument("--max-bytes", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--cache-dir", type=Path, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.one:
        print(json.dumps(run_one(arguments.one, arguments.out, arguments.database_url, arguments.max_bytes,
                                 arguments.cache_dir), ensure_ascii=False))
        return

    from verifier.database import Database
    from verifier.importers import import_paths

    compile_sources()
    with tempfile.TemporaryDirectory(prefix="recite-scale-") as scratch_name:
        scratch = Path(scratch_name)
        url = arguments.database_url or f"sqlite:///{scratch / 'sample.sqlite3'}"
        if not arguments.database_url:
            database = Database.open(url)
            import_paths(database, [ROOT / "data" / "law", ROOT / "data" / "cases"])
            database.close()
        scale = scale_rows(scratch, url, arguments.sizes, arguments.docx_sizes)
        hostile = [] if arguments.no_hostile else hostile_rows(scratch, url)

    sizes = " ".join(f"{s:g}" for s in arguments.sizes)
    docx_sizes = " ".join(f"{s:g}" for s in arguments.docx_sizes)
    machine = (f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs visible, load average "
               f"{os.getloadavg()[0]:.1f} at the end (the machine is shared: wall seconds vary with it, CPU "
               f"seconds much less); one worker; `python bench/recite_scale_bench.py --sizes {sizes} "
               f"--docx-sizes {docx_sizes}`\n")
    about_scale = ("Each draft is the .txt/.md drafts of data/drafts concatenated until the size is reached (a "
                   "citation every ~77 bytes); a .docx holds the same text, one paragraph per line. Seconds are "
                   "end to end: reading, finding, resolving, verifying, writing the output and both reports. "
                   "Process CPU s is the whole process's, from the interpreter's start (imports included, their "
                   "sources byte-compiled beforehand, as an installed citegen's are); CPU s "
                   "and the rates after it count from the batch's start (the pipeline's build included). "
                   "Peak RSS is the whole process (Python, SQLAlchemy, the finder's automata: see the baseline). "
                   "MB per CPU s past the baseline leaves out the tiny draft's CPU seconds (imports, reading "
                   "the statute book's names, compiling the finder), which every process pays once.\n")
    scale_header = ("| draft | MB of text | MB of file | citations | seconds | process CPU s | CPU s "
                    "| MB per process CPU s | MB per CPU s | CPU s per MB | MB per CPU s past the baseline "
                    "| peak RSS MiB | status |")
    lines = ["# citegen recite at scale and under attack\n", machine,
             "## Scale: drafts generated from data/drafts text\n", about_scale, scale_header,
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|", *scale]
    if hostile:
        about_hostile = ("Each input alone in its input folder, recited with the default limit (20 MiB). Hashes "
                         "cover the whole input folder (names, bytes, link targets) before and after the batch.\n")
        hostile_header = ("| input | what | outcome (document records) | citations | need review | seconds "
                          "| peak RSS MiB | input before | input after | unchanged |")
        lines += ["", "## Hostile inputs\n", about_hostile, hostile_header, "|---|---|---|---|---|---|---|---|---|---|",
                  *hostile]
    text = "\n".join(lines) + "\n"
    print(text)
    arguments.results.parent.mkdir(parents=True, exist_ok=True)
    from bench.report import results_page  # the parent's alone: a child imports what `citegen recite` does

    arguments.results.write_text(results_page([text], about=__doc__), encoding="utf-8")


if __name__ == "__main__":
    main()
