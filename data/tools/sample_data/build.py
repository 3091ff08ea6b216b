"""Write the whole sample data set under a data/ directory: `python data/tools/sample_data [--seed N]`."""

from __future__ import annotations

import argparse
import logging
import shutil
from pathlib import Path

from sample_data.case_files import write_cases
from sample_data.cases import build_cases
from sample_data.statutes import Act, build_acts, write_statutes

DEFAULT_SEED = 20261129
DATA_DIR = Path(__file__).resolve().parents[2]
GENERATED = ("law", "cases")
logger = logging.getLogger(__name__)


def reviewable_provisions(acts: list[Act]) -> list[tuple[str, int, int]]:
    """Provisions a synthetic 헌재 case may review: statutes (not decrees), articles not deleted."""
    return [(act.spec.name, article.number, article.branch) for act in acts if act.spec.kind == "법률"
            for article in act.articles if not article.deleted_on and article.number > 1]


def generate(data_dir: Path, seed: int) -> None:
    for name in GENERATED:
        shutil.rmtree(data_dir / name, ignore_errors=True)
    acts = build_acts(seed)
    write_statutes(acts, data_dir / "law")
    cases = build_cases(seed, reviewable_provisions(acts))
    write_cases(cases, data_dir / "cases")
    logger.info("wrote %d acts (%d articles) and %d cases under %s", len(acts),
                sum(len(a.articles) for a in acts), len(cases), data_dir)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--out", type=Path, default=DATA_DIR, help="the data/ directory to (re)write")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    generate(args.out, args.seed)
