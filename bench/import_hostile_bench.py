"""Imports under attack: `python bench/import_hostile_bench.py [--database-url URL]`.

The database is data/synthetic_law imported into a temporary SQLite file (or the empty database at
--database-url, e.g. a PostgreSQL schema). Each attack is one file made here from the 민법 body in
data/synthetic_law (XML) or the 근로기준법 body (JSON): 조문 as text, junk 조문단위 rows, no 조문,
a row without 조문번호, JSON NaN/Infinity, a 5,001-character act name, and a real body cut to half
its articles (refused, then imported with --allow-shrink). Each is imported by `citegen-admin
import` in its own process: exit code, the message, seconds, peak RSS, and the SHA-256 of the
database's dump (what `citegen-admin dump` writes: every imported table, stable order; made in this
process by the same verifier function) before and after, which must be equal unless the import was
meant to change the database; the dump after one attack is the one before the next. Last, the
whole of data/synthetic_law is imported again: the dump must be the first import's, byte for byte.
Writes bench/results/import_hostile_bench.md (or --out).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import platform
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench.report import results_page
from verifier.database import Database
from verifier.importers.snapshot import write_snapshot

ROOT = Path(__file__).resolve().parent.parent
LAW = ROOT / "data" / "synthetic_law"
ADMIN = Path(sys.executable).with_name("citegen-admin")
_UNITS = re.compile(r"<조문단위 .*?</조문단위>", re.DOTALL)


def _half_the_articles(text: str) -> str:
    units = _UNITS.findall(text)
    for unit in units[len(units) // 2:]:
        text = text.replace(unit, "", 1)
    return text


def _json_body(change: Callable[[dict], None]) -> Callable[[str], str]:
    def make(text: str) -> str:
        document = json.loads(text)
        change(document["법령"])
        return json.dumps(document, ensure_ascii=False)
    return make


def _units_of(body: dict) -> list:
    units = body["조문"]["조문단위"]
    return units if isinstance(units, list) else [units]


# (name, what, source body, how to make the attack, extra arguments, whether the database may change)
ATTACKS: list[tuple[str, str, str, Callable[[str], str], list[str], bool]] = [
    ("minbeop-jomun-text.xml", "`<조문>` as text", "body/001706.xml",
     lambda t: re.sub(r"<조문>.*</조문>", "<조문>없음</조문>", t, flags=re.DOTALL), [], False),
    ("minbeop-junk-rows.xml", "every 조문단위 a word", "body/001706.xml",
     lambda t: _UNITS.sub("<조문단위>junk</조문단위>", t), [], False),
    ("minbeop-no-jomun.xml", "no `<조문>`", "body/001706.xml",
     lambda t: re.sub(r"<조문>.*</조문>", "", t, flags=re.DOTALL),
     [], False),
    ("minbeop-row-without-number.xml", "one 조문단위 without 조문번호", "body/001706.xml",
     lambda t: t.replace("<조문번호>750</조문번호>", "", 1), [], False),
    ("minbeop-half.xml", "a real body with half its articles", "body/001706.xml", _half_the_articles, [], False),
    ("minbeop-half-allowed.xml", "the same with --allow-shrink", "body/001706.xml", _half_the_articles,
     ["--allow-shrink"], True),
    ("geunro-jomun-string.json", '"조문": "없음"', "json/001872.json",
     _json_body(lambda body: body.__setitem__("조문", "없음")), [], False),
    ("geunro-junk-rows.json", "조문단위 rows as numbers", "json/001872.json",
     _json_body(lambda body: body["조문"].__setitem__("조문단위", [1, 2, 3])), [], False),
    ("geunro-no-jomun.json", "no 조문", "json/001872.json", _json_body(lambda body: body.pop("조문")), [], False),
    ("geunro-nan.json", "법령ID NaN, name Infinity", "json/001872.json",
     lambda t: t.replace('"001872"', "NaN", 1).replace('"근로기준법"', "Infinity", 1), [], False),
    ("geunro-long-name.json", "a 5,001-character act name", "json/001872.json",
     lambda t: t.replace('"근로기준법"', '"' + "가" * 5001 + '"', 1), [], False),
    ("geunro-last-row-junk.json", "a junk row after the real ones", "json/001872.json",
     _json_body(lambda body: body["조문"].__setitem__("조문단위", [*_units_of(body), "junk"])), [], False),
]


def dump_hash(url: str) -> str:
    """SHA-256 of what `citegen-admin dump` writes for the database at `url`."""
    database = Database.open(url)
    try:
        snapshot = io.BytesIO()
        write_snapshot(database, snapshot)
    finally:
        database.close()
    return hashlib.sha256(snapshot.getbuffer()).hexdigest()


def import_once(paths: list[Path], extra: list[str], url: str) -> tuple[int, str, float, int]:
    """(exit code, last line of output, seconds, peak RSS in KB) of one `citegen-admin import`."""
    started = time.perf_counter()
    done = subprocess.run(["/usr/bin/time", "-f", "%M", str(ADMIN), "import", *map(str, paths), *extra,
                           "--database-url", url], capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    *errors, peak = done.stderr.strip().splitlines() or ["0"]  # /usr/bin/time writes the peak last
    lines = [*errors, *done.stdout.strip().splitlines()]
    message = next((line for line in lines if line.startswith(("error:", "imported"))), lines[-1] if lines else "")
    return done.returncode, message, seconds, int(peak) if peak.isdigit() else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="an empty database (default: a temporary SQLite file)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "import_hostile_bench.md")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        url = arguments.database_url or f"sqlite:///{scratch / 'hostile.sqlite3'}"
        code, message, seconds, peak = import_once([LAW], [], url)
        assert code == 0, message
        first = after = dump_hash(url)
        rows = []
        for name, what, source, make, extra, may_change in ATTACKS:
            path = scratch / name
            path.write_text(make((LAW / source).read_text(encoding="utf-8")), encoding="utf-8")
            before = after  # nothing touches the database between one attack's dump and the next import
            code, message, seconds, peak = import_once([path], extra, url)
            after = dump_hash(url)
            shown = message.replace(str(scratch) + "/", "").replace("|", "\\|")
            shown = shown if len(shown) <= 300 else shown[:300] + " …"
            verdict = ("changed, as asked" if may_change and before != after
                       else "equal" if before == after else "CHANGED")
            rows.append(f"| `{name}` | {what} | {code} | {shown} | {seconds:.1f} | {peak / 1024:.0f} | "
                        f"`{before[:12]}` | `{after[:12]}` | {verdict} |")
        code, message, seconds, peak = import_once([LAW], [], url)  # restores the 민법 the allowed shrink cut
        after = dump_hash(url)
        rows.append(f"| `data/synthetic_law` | the first import's sources again | {code} | {message} | {seconds:.1f} | "
                    f"{peak / 1024:.0f} | `{first[:12]}` (first import) | `{after[:12]}` | "
                    f"{'equal to the first import' if first == after else 'CHANGED'} |")
    backend = url.split(":", 1)[0]
    lines = ["# citegen-admin import under attack\n",
             (f"{platform.node()} · Python {platform.python_version()} · {backend} · "
              f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n"),
             "Each attack is one file imported by `citegen-admin import` in its own process into a database of "
             "data/synthetic_law; dump hashes are the SHA-256 of `citegen-admin dump` before and after it.\n",
             "| input | what | exit | message | seconds | peak MB | dump before | dump after | database |",
             "|---|---|---:|---|---:|---:|---|---|---|", *rows]
    arguments.out.parent.mkdir(parents=True, exist_ok=True)
    arguments.out.write_text(results_page(lines, about=__doc__), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
