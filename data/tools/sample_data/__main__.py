"""`python data/tools/sample_data`: rewrite data/synthetic_law, data/cases and data/drafts from the seed."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sample_data.build import main

main()
