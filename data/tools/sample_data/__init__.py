"""Generator of citegen's sample data (data/synthetic_law, data/cases, data/drafts): deterministic from a seed."""
