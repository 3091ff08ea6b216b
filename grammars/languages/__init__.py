"""The citation languages: case, statute, and the whole answer, built as grammar expressions."""

from grammars.languages.answer import answer_anchors, answer_grammar
from grammars.languages.case import case_grammar
from grammars.languages.lexicon import Lexicon, as_lexicon, default_lexicon, spellable_name
from grammars.languages.statute import names_then_je, statute_grammar, title_then_je

__all__ = ["Lexicon", "answer_anchors", "answer_grammar", "as_lexicon", "case_grammar", "default_lexicon",
           "names_then_je", "spellable_name", "statute_grammar", "title_then_je"]
