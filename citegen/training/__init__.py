"""Build the shipped test-and-demo model `data/models/ko-legal-tiny` from the sample law data.

    sources    read acts and decisions from data/synthetic_law (synthetic sample acts) and data/cases (law.go.kr shapes)
    corpus     seeded synthetic Korean legal Q&A, citations mostly canonical, some messy or wrong
    tokenizer  byte-level BPE with a ChatML template
    train      a tiny LlamaForCausalLM trained with a plain torch loop

Run as `python -m citegen.training model` (see data/models/ko-legal-tiny/README.md).
"""
