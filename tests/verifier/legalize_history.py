"""The real legalize-kr history fixture (tests/fixtures/legalize-real-history.tar.xz) as a git
repository. A module of its own, not conftest: tests import it by name, and another conftest
(tests/verifier/sync) would shadow `conftest` when the whole suite is collected."""

from __future__ import annotations

from pathlib import Path

REAL_HISTORY = Path(__file__).parents[1] / "fixtures" / "legalize-real-history.tar.xz"


def build_legalize_repo(folder: Path, upto: int | None = None) -> Path:
    """A git repository made of the real legalize-kr versions in the fixture tarball, one commit
    each with the original subject (`법률: 민사소송법 (전부개정)`), oldest first; `upto` stops early."""
    import json
    import subprocess
    import tarfile

    folder.mkdir(parents=True, exist_ok=True)

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(folder), "-c", "user.email=t@example.org", "-c", "user.name=t", *args],
                       check=True, capture_output=True)

    if not (folder / ".git").exists():
        git("init", "-q")
    with tarfile.open(REAL_HISTORY) as tar:
        entries = json.loads(tar.extractfile("manifest.json").read())  # type: ignore[union-attr]
        done = int(subprocess.run(["git", "-C", str(folder), "rev-list", "--count", "--all"], capture_output=True,
                                  text=True).stdout.strip() or 0)
        for commit, subject, path in entries[done:upto]:
            target = folder / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(tar.extractfile(f"versions/{commit}/{path}").read())  # type: ignore[union-attr]
            git("add", path)
            git("commit", "-q", "-m", subject)
    return folder
