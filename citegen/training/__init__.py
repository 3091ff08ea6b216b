"""Build the shipped test-and-demo model `data/models/ko-legal-tiny` from the real statute book.

    sources    the corpus's acts (the statute book in force, handed over as plain values by
               citegen.commands.statute_book; or law.go.kr `<법령>` bodies) and decisions (data/cases)
    corpus     seeded synthetic Korean legal Q&A, citations mostly canonical, some messy or wrong
    tokenizer  byte-level BPE with a ChatML template
    train      a tiny LlamaForCausalLM trained with a plain torch loop

Run as `python -m citegen.training model` (see data/models/ko-legal-tiny/README.md).
"""
