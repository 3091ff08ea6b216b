"""Console commands of `citegen`, one module each; `citegen.cli` registers them."""
