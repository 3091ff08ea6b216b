"""Generator of citegen's sample data (data/law, data/cases, data/drafts): deterministic from a seed."""
