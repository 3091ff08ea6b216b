"""The citegen engine: model loading, decode loop, constraint state and mask kernels."""

__all__: list[str] = []
