/* The token walk of a state inside a literal word: a CPython extension, compiled by grammars/literal_walk.py
 * with the machine's C compiler when a process first converts a tokenizer.
 *
 * A literal leaf (grammars.literals) is an implicit trie over its sorted UTF-8 words: the node at `depth`
 * below word `first` stands for the words sharing words[first][:depth], a contiguous run [lo, hi) of the
 * sorted words. The vocabulary's tokens are a trie too (grammars.vocabulary.TokenTrie, preorder). From a
 * node strictly inside a word, a depth-first walk of both tries at once yields:
 * - every token whose bytes stay strictly inside some word, with the run's first word and the depth where
 *   it ends (the caller makes the state it reaches when the token is taken), sorted by token, and those
 *   tokens as a packed bitmask (xgrammar's layout: bit j of int32 word i is token 32i+j);
 * - every place where a word ends on the way (the node set there holds what follows the word, which only
 *   the Python automaton knows): the token-trie child, the byte into it and the literal node before it,
 *   handed back for the Python walk to go on from.
 * Each token-trie node is met at most once (its bytes fix the literal node), so the tokens found are at
 * most the vocabulary; hand-offs past `hand_capacity` give None and the caller walks in Python instead.
 *
 * An extension rather than a library loaded by ctypes: a first visit makes one walk per state, and ctypes'
 * argument conversion and the numpy arrays and list made around its result in Python took twice the walk.
 * Here the result is made as the Python objects the index keeps, the GIL released during the walk alone.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_2_0_API_VERSION
#include <numpy/arrayobject.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The token trie's arrays (grammars.vocabulary.TokenTrie), narrowed to the smallest types that hold them: a
 * first visit's walk is a few bisections per trie level over memory nothing else touched lately, and bytes
 * as bytes put eight times as many edges in a cache line as int64 did. */
typedef struct {
    const int32_t *edge_start;   /* edges of node n: edge_start[n] .. edge_start[n + 1], sorted by byte */
    const uint8_t *edge_byte;
    const int32_t *edge_child;
    const int32_t *token_start;  /* tokens ending at node n: order[token_start[n] .. token_start[n + 1]] */
    const int32_t *order;
} Trie;

typedef struct {  /* a literal leaf's sorted words */
    const uint8_t *blob;    /* the words' bytes, one after another */
    const int64_t *offset;  /* word i is blob[offset[i] .. offset[i + 1]) */
    int64_t count;
} Words;

typedef struct {  /* one token found: what the walk sorts */
    int32_t token, first, depth, unused;
} Found;

typedef struct {  /* what a walk finds, in buffers the caller owns */
    Found *found;   /* scratch: the tokens as met (room for every token of the trie) */
    int32_t *rows;  /* out: n tokens (sorted), their first words, their depths, then the values of m <= n
                       bitmask words (room for 4 per token of the trie) */
    int64_t *words; /* out: the m bitmask words' indices (numpy's index type: a row is filled by them) */
    int32_t *hand;  /* out: four per hand-off: token-trie child, byte, first word and depth of the node before */
    int64_t hand_capacity, hand_count, word_count;  /* word_count: m */
} Output;

typedef struct {
    const uint8_t *blob;
    const int64_t *offset;
    const int32_t *edge_start, *edge_child, *token_start, *order;
    const uint8_t *edge_byte;
    Output *out;
    int64_t token_count;
} Walk;

/* The byte of word i at `depth`, -1 where the word is no longer (it sorts before the longer ones). */
static inline int byte_at(const Walk *w, int64_t i, int64_t depth) {
    int64_t length = w->offset[i + 1] - w->offset[i];
    return length > depth ? w->blob[w->offset[i] + depth] : -1;
}

/* The first word of [lo, hi) (all sharing their first `depth` bytes) whose byte at `depth` is >= b. */
static int64_t lower_bound(const Walk *w, int64_t lo, int64_t hi, int64_t depth, int b) {
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (byte_at(w, mid, depth) < b) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The edge of token-trie node `node` on `byte`, -1 where there is none (edges are sorted by byte). */
static int64_t find_edge(const Walk *w, int64_t node, int byte) {
    int64_t lo = w->edge_start[node], hi = w->edge_start[node + 1];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (w->edge_byte[mid] < byte) lo = mid + 1;
        else hi = mid;
    }
    return lo < w->edge_start[node + 1] && w->edge_byte[lo] == byte ? lo : -1;
}

static int walk(Walk *w, int64_t node, int64_t lo, int64_t hi, int64_t depth);

/* Follow `byte` from literal run [lo, hi) at `depth` (its words [below, above) go on with it) into
 * token-trie node `child`. */
static int follow(Walk *w, int64_t child, int byte, int64_t lo, int64_t below, int64_t above, int64_t depth) {
    if (w->offset[below + 1] - w->offset[below] == depth + 1) {  /* a word ends here: Python goes on */
        Output *out = w->out;
        if (out->hand_count == out->hand_capacity) return -1;
        int32_t *hand = out->hand + 4 * out->hand_count++;
        hand[0] = (int32_t)child, hand[1] = byte, hand[2] = (int32_t)lo, hand[3] = (int32_t)depth;
        return 0;
    }
    for (int64_t t = w->token_start[child]; t < w->token_start[child + 1]; t++)
        w->out->found[w->token_count++] = (Found){(int32_t)w->order[t], (int32_t)below, (int32_t)(depth + 1), 0};
    return walk(w, child, below, above, depth + 1);
}

/* Every edge of token-trie `node` that literal run [lo, hi) at `depth` also goes on with. No word of the
 * run ends at `depth` (the walk stops where one does). */
static int walk(Walk *w, int64_t node, int64_t lo, int64_t hi, int64_t depth) {
    int64_t edge_low = w->edge_start[node], edge_high = w->edge_start[node + 1];
    if (edge_low == edge_high) return 0;
    if (hi - lo <= edge_high - edge_low) {  /* fewer words than edges (inside a name): by the words' bytes */
        for (int64_t at = lo; at < hi;) {
            int byte = byte_at(w, at, depth);
            int64_t end = at + 1 == hi || byte_at(w, at + 1, depth) != byte ? at + 1
                                                                             : lower_bound(w, at + 1, hi, depth, byte + 1);
            int64_t edge = find_edge(w, node, byte);
            if (edge >= 0 && follow(w, w->edge_child[edge], byte, lo, at, end, depth) < 0) return -1;
            at = end;
        }
        return 0;
    }
    int64_t at = lo;  /* the words not passed yet */
    for (int64_t edge = edge_low; edge < edge_high && at < hi; edge++) {  /* by the edges' bytes */
        int byte = (int)w->edge_byte[edge];
        int64_t below = lower_bound(w, at, hi, depth, byte);
        if (below == hi) break;
        if (byte_at(w, below, depth) != byte) {
            at = below;
            continue;
        }
        int64_t above = lower_bound(w, below, hi, depth, byte + 1);
        if (follow(w, w->edge_child[edge], byte, lo, below, above, depth) < 0) return -1;
        at = above;
    }
    return 0;
}

static int by_token(const void *a, const void *b) {
    return ((const Found *)a)->token - ((const Found *)b)->token;
}

/* The found tokens sorted (a few, most walks: by insertion) and written out with their bitmask words. */
static void write_rows(Output *out, int64_t n) {
    Found *found = out->found;
    if (n > 16) {
        qsort(found, (size_t)n, sizeof(Found), by_token);
    } else {
        for (int64_t i = 1; i < n; i++) {
            Found item = found[i];
            int64_t j = i;
            for (; j > 0 && found[j - 1].token > item.token; j--) found[j] = found[j - 1];
            found[j] = item;
        }
    }
    int32_t *tokens = out->rows, *firsts = tokens + n, *depths = firsts + n, *values = depths + n;
    int64_t *words = out->words, m = 0;
    for (int64_t i = 0; i < n; i++) {
        tokens[i] = found[i].token, firsts[i] = found[i].first, depths[i] = found[i].depth;
        int64_t word = found[i].token >> 5;
        if (!m || words[m - 1] != word) words[m++] = word;
    }
    for (int64_t i = 0, k = -1; i < n; i++) {
        if (k < 0 || words[k] != found[i].token >> 5) values[++k] = 0;
        values[k] = (int32_t)((uint32_t)values[k] | 1u << (found[i].token & 31));
    }
    out->word_count = m;
}

/* Whether word i begins with the first `depth` bytes of word `first`. */
static inline int shares_prefix(const Words *words, int64_t i, int64_t first, int64_t depth) {
    const int64_t *offset = words->offset;
    return offset[i + 1] - offset[i] >= depth
           && memcmp(words->blob + offset[i], words->blob + offset[first], (size_t)depth) == 0;
}

/* From literal node (first, depth) of `words`, strictly inside a word: the count of tokens found (-1 where
 * the hand-offs overflow), written out by `write_rows`, and the hand-offs (out->hand_count). A hand-off's
 * node is the run before its byte (its first word sorts first): where the Python walk steps from. */
static int64_t literal_walk(const Trie *trie, const Words *words, int64_t first, int64_t depth, Output *out) {
    Walk w = {words->blob, words->offset, trie->edge_start, trie->edge_child, trie->token_start, trie->order,
              trie->edge_byte, out, 0};
    /* the run sharing words[first][:depth] (first is its first word) ends at `lo`: found by galloping from
     * `first` and then bisecting, so a run of a few words (most runs inside names) is found among words next
     * to it, where a bisection over the whole leaf touched a dozen words of a cold leaf (~1 µs) */
    int64_t lo = first + 1, hi = lo, stride = 1;
    while (hi < words->count && shares_prefix(words, hi, first, depth)) {
        lo = hi + 1;
        stride *= 2;
        hi = first + stride;
    }
    if (hi > words->count) hi = words->count;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (shares_prefix(words, mid, first, depth)) lo = mid + 1;
        else hi = mid;
    }
    out->hand_count = 0;
    if (walk(&w, 0, first, lo, depth) < 0) return -1;
    write_rows(out, w.token_count);
    return w.token_count;
}

#define UNWALKED (-3) /* grammars.state_masks.UNWALKED: a head's state not made yet */
static PyObject *array_type; /* array.array, which holds a head (`walk`) */

/* A new numpy array of `n` items of `type` holding a copy of `data`. */
static PyObject *copied(const void *data, npy_intp n, int type, size_t item) {
    PyObject *array = PyArray_SimpleNew(1, &n, type);
    if (array != NULL && n) memcpy(PyArray_DATA((PyArrayObject *)array), data, (size_t)n * item);
    return array;
}

/* walk(trie, words, first, depth, output): addresses of a Trie, a Words and an Output (the caller's buffers:
 * one thread's, the walk runs without the GIL) as integers, and the literal node. None where the hand-offs
 * overflowed, else (n, head, bitmask words (intp), their values (int32), hand-offs): head is an array.array of
 * int32 holding the n tokens (sorted), then the first word and the depth of the node each ends at, then n
 * UNWALKED (the caller's room for the states they lead to); hand-offs a list of
 * (token-trie child, byte, first word, depth before it). An array rather than a list: a list's items are what
 * the cyclic collector's young passes walk, and a first visit's heads were most of them (60-120 µs a pass,
 * 40-70 without them). */
static PyObject *walk_entry(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 5) {
        PyErr_SetString(PyExc_TypeError, "walk expects (trie, words, first, depth, output)");
        return NULL;
    }
    const Trie *trie = PyLong_AsVoidPtr(args[0]);
    const Words *words = PyLong_AsVoidPtr(args[1]);
    int64_t first = PyLong_AsLongLong(args[2]), depth = PyLong_AsLongLong(args[3]);
    Output *out = PyLong_AsVoidPtr(args[4]);
    if (PyErr_Occurred()) return NULL;
    int64_t n;
    Py_BEGIN_ALLOW_THREADS
    n = literal_walk(trie, words, first, depth, out);
    Py_END_ALLOW_THREADS
    if (n < 0) Py_RETURN_NONE;
    PyObject *head = NULL, *hand = PyList_New(out->hand_count);
    PyObject *mask_words = copied(out->words, out->word_count, NPY_INTP, sizeof(int64_t));
    PyObject *values = copied(out->rows + 3 * n, out->word_count, NPY_INT32, sizeof(int32_t));
    PyObject *items = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(4 * n * sizeof(int32_t)));
    if (items != NULL) {
        int32_t *at = (int32_t *)PyBytes_AS_STRING(items);
        memcpy(at, out->rows, (size_t)(3 * n) * sizeof(int32_t));
        for (int64_t i = 3 * n; i < 4 * n; i++) at[i] = UNWALKED;  /* the states the tokens lead to, made when taken */
        head = PyObject_CallFunction(array_type, "sO", "i", items);
        Py_DECREF(items);
    }
    if (head == NULL || hand == NULL || mask_words == NULL || values == NULL) goto fail;
    for (int64_t i = 0; i < out->hand_count; i++) {
        const int32_t *row = out->hand + 4 * i;
        PyObject *item = Py_BuildValue("(iiii)", row[0], row[1], row[2], row[3]);
        if (item == NULL) goto fail;
        PyList_SET_ITEM(hand, i, item);
    }
    return Py_BuildValue("(nNNNN)", (Py_ssize_t)n, head, mask_words, values, hand);
fail:
    Py_XDECREF(head);
    Py_XDECREF(hand);
    Py_XDECREF(mask_words);
    Py_XDECREF(values);
    return NULL;
}

/* pack(words): a leaf's sorted words (a tuple or list of bytes) as the walk reads them, (held, address): one bytes
 * object holding a Words struct, then its offsets (int64, word i being blob[offsets[i]:offsets[i + 1]]), then
 * its blob (one zero byte where there is none), and the struct's address. One object in one pass: in Python 30 ns
 * a word in each of three passes, and numpy arrays with a ctypes struct around them cost an act's first
 * citation 10-35 us more. The struct points into the object that holds it, which never moves. */
static PyObject *pack_entry(PyObject *module, PyObject *argument) {
    (void)module;
    PyObject *sequence = PySequence_Fast(argument, "pack expects a sequence of bytes");
    if (sequence == NULL) return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(sequence);
    PyObject **items = PySequence_Fast_ITEMS(sequence);
    Py_ssize_t total = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (!PyBytes_Check(items[i])) {
            PyErr_Format(PyExc_TypeError, "pack expects bytes, got %s at position %zd", Py_TYPE(items[i])->tp_name, i);
            Py_DECREF(sequence);
            return NULL;
        }
        total += PyBytes_GET_SIZE(items[i]);
    }
    /* a bytes object's data is 8-aligned (CPython's header is 32 bytes, its allocator aligns to 16): the struct
     * and the offsets after it are aligned */
    Py_ssize_t offsets_at = (Py_ssize_t)sizeof(Words), blob_at = offsets_at + (count + 1) * (Py_ssize_t)sizeof(int64_t);
    PyObject *held = PyBytes_FromStringAndSize(NULL, blob_at + (total ? total : 1));
    if (held == NULL) {
        Py_DECREF(sequence);
        return NULL;
    }
    char *base = PyBytes_AS_STRING(held);
    Words *words = (Words *)base;
    int64_t *at = (int64_t *)(base + offsets_at);
    uint8_t *blob = (uint8_t *)(base + blob_at);
    blob[0] = 0;
    at[0] = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        Py_ssize_t size = PyBytes_GET_SIZE(items[i]);
        memcpy(blob + at[i], PyBytes_AS_STRING(items[i]), (size_t)size);
        at[i + 1] = at[i] + size;
    }
    Py_DECREF(sequence);
    words->blob = blob, words->offset = at, words->count = count;
    return Py_BuildValue("(NK)", held, (unsigned long long)(uintptr_t)base);
}

/* An article label as a Lexicon checked it: a number of 1-4 digits, then maybe 의 (U+C758) and a branch of 1-2
 * digits. `order` sorts labels as their citation words sort as UTF-8, read in base 11: the number's digits,
 * where its end (조, whose bytes are above any digit's) comes after every digit; then the branch's one up,
 * where its end (0) comes first (no branch, then 의1, 의10, 의2). */
typedef struct {
    int64_t order;
    char number[4], branch[2];
    int number_digits, branch_digits;
} Label;

static int read_label(PyObject *label, Label *out) {
    if (!PyUnicode_Check(label)) return -1;
    /* read as stored: asking a non-ASCII str for its UTF-8 would keep a copy of it in the str */
    int kind = PyUnicode_KIND(label);
    const void *data = PyUnicode_DATA(label);
    Py_ssize_t length = PyUnicode_GET_LENGTH(label), at = 0;
    out->number_digits = out->branch_digits = 0;
    while (at < length && out->number_digits < 4) {
        Py_UCS4 c = PyUnicode_READ(kind, data, at);
        if (c < '0' || c > '9') break;
        out->number[out->number_digits++] = (char)c;
        at++;
    }
    if (out->number_digits == 0 || out->number[0] == '0') return -1;
    if (at < length) {
        if (PyUnicode_READ(kind, data, at) != 0xC758) return -1;
        for (at++; at < length && out->branch_digits < 2; at++) {
            Py_UCS4 c = PyUnicode_READ(kind, data, at);
            if (c < '0' || c > '9') return -1;
            out->branch[out->branch_digits++] = (char)c;
        }
        if (at < length || out->branch_digits == 0 || out->branch[0] == '0') return -1;
    }
    int64_t order = 0;
    for (int i = 0; i < 4; i++) order = order * 11 + (i < out->number_digits ? out->number[i] - '0' : 10);
    for (int i = 0; i < 2; i++) order = order * 11 + (i < out->branch_digits ? out->branch[i] - '0' + 1 : 0);
    out->order = order;
    return 0;
}

/* Labels sorted by `order` (< 11^6, 21 bits): three passes of a 7-bit radix sort, stable, from `labels` to
 * `sorted`. qsort's call per comparison was a third of making the Commercial Act's 1,147 words. */
static void sort_labels(const Label *labels, Label *sorted, Label *scratch, Py_ssize_t count) {
    const Label *from = labels;
    Label *into[3] = {sorted, scratch, sorted};
    for (int pass = 0; pass < 3; pass++) {
        Py_ssize_t start[129] = {0};
        for (Py_ssize_t i = 0; i < count; i++) start[((from[i].order >> (7 * pass)) & 127) + 1]++;
        for (int b = 0; b < 128; b++) start[b + 1] += start[b];
        for (Py_ssize_t i = 0; i < count; i++) into[pass][start[(from[i].order >> (7 * pass)) & 127]++] = from[i];
        from = into[pass];
    }
}

/* article_words(labels): an iterable of article labels (`750`, `3의2`) as the words citations write after an
 * act's name and ` 제` (`750조`, `3조의2`), sorted as UTF-8: (a tuple of str, a tuple of their UTF-8 bytes); None
 * where a label is not of that form. One pass and a sort here; in Python five passes at 30-40 ns a label each,
 * cold at a first visit. */
static PyObject *article_words_entry(PyObject *module, PyObject *argument) {
    (void)module;
    static const char article[] = "\xec\xa1\xb0", branch[] = "\xec\x9d\x98";
    PyObject *sequence = PySequence_Fast(argument, "article_words expects an iterable of labels");
    if (sequence == NULL) return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(sequence);
    PyObject **items = PySequence_Fast_ITEMS(sequence);
    Label *labels = PyMem_Malloc((size_t)(count ? count : 1) * 3 * sizeof(Label));
    if (labels == NULL) {
        Py_DECREF(sequence);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        if (read_label(items[i], &labels[i]) < 0) {
            PyMem_Free(labels);
            Py_DECREF(sequence);
            Py_RETURN_NONE;
        }
    }
    Py_DECREF(sequence);
    Label *sorted = labels + count;
    sort_labels(labels, sorted, sorted + count, count);
    PyObject *words = PyTuple_New(count), *utf8 = PyTuple_New(count);
    if (words == NULL || utf8 == NULL) Py_CLEAR(words);
    for (Py_ssize_t i = 0; words != NULL && i < count; i++) {
        const Label *label = &sorted[i];
        /* the word as UTF-8 and as the str's UCS-2 (made directly: decoding the UTF-8 cost as much again) */
        char text[4 + 3 + 3 + 2];
        Py_UCS2 chars[4 + 1 + 1 + 2];
        size_t size = 0, length = 0;
        for (int d = 0; d < label->number_digits; d++)
            text[size++] = label->number[d], chars[length++] = (Py_UCS2)label->number[d];
        memcpy(text + size, article, 3), size += 3, chars[length++] = 0xC870;
        if (label->branch_digits) {
            memcpy(text + size, branch, 3), size += 3, chars[length++] = 0xC758;
            for (int d = 0; d < label->branch_digits; d++)
                text[size++] = label->branch[d], chars[length++] = (Py_UCS2)label->branch[d];
        }
        PyObject *encoded = PyBytes_FromStringAndSize(text, (Py_ssize_t)size);
        PyObject *word = PyUnicode_New((Py_ssize_t)length, 0xC870);
        if (encoded == NULL || word == NULL) {
            Py_XDECREF(encoded);
            Py_XDECREF(word);
            Py_CLEAR(words);
        } else {
            memcpy(PyUnicode_2BYTE_DATA(word), chars, length * sizeof(Py_UCS2));
            PyTuple_SET_ITEM(utf8, i, encoded);
            PyTuple_SET_ITEM(words, i, word);
        }
    }
    PyMem_Free(labels);
    if (words == NULL) {
        Py_XDECREF(utf8);
        return NULL;
    }
    return Py_BuildValue("(NN)", words, utf8);
}

/* fill_row(row, words, values, base): a bitmask row set to `base` (a row of its size) or cleared where `base` is
 * None, then `values[i]` written at word `words[i]` (intp and int32 arrays of one length: a state's packed
 * words): True; False, touching nothing, where the row is not a writable contiguous int32 array or the rest does
 * not fit it (the caller's numpy path then says what is wrong). numpy's fill and fancy assignment took 0.8 µs a
 * constrained step, a tenth of a first visit and a third of a warm one. */
static PyObject *fill_row_entry(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "fill_row expects (row, words, values, base or None)");
        return NULL;
    }
    if (!PyArray_Check(args[0]) || !PyArray_Check(args[1]) || !PyArray_Check(args[2])
        || (args[3] != Py_None && !PyArray_Check(args[3])))
        Py_RETURN_FALSE;
    PyArrayObject *row = (PyArrayObject *)args[0], *words = (PyArrayObject *)args[1];
    PyArrayObject *values = (PyArrayObject *)args[2];
    PyArrayObject *base = args[3] == Py_None ? NULL : (PyArrayObject *)args[3];
    npy_intp size = PyArray_SIZE(row), count = PyArray_SIZE(words);
    if (PyArray_TYPE(row) != NPY_INT32 || !PyArray_ISCARRAY(row) || PyArray_TYPE(words) != NPY_INTP
        || PyArray_TYPE(values) != NPY_INT32 || PyArray_NDIM(words) != 1 || PyArray_NDIM(values) != 1
        || PyArray_SIZE(values) != count
        || (base != NULL
            && (PyArray_TYPE(base) != NPY_INT32 || !PyArray_ISCARRAY_RO(base) || PyArray_SIZE(base) != size)))
        Py_RETURN_FALSE;
    const char *word_at = PyArray_DATA(words), *value_at = PyArray_DATA(values);
    npy_intp word_stride = PyArray_STRIDE(words, 0), value_stride = PyArray_STRIDE(values, 0);
    for (npy_intp i = 0; i < count; i++) {
        npy_intp word = *(const npy_intp *)(word_at + i * word_stride);
        if (word < 0 || word >= size) Py_RETURN_FALSE;
    }
    int32_t *out = PyArray_DATA(row);
    if (base == NULL) memset(out, 0, (size_t)size * sizeof(int32_t));
    else memcpy(out, PyArray_DATA(base), (size_t)size * sizeof(int32_t));
    for (npy_intp i = 0; i < count; i++)
        out[*(const npy_intp *)(word_at + i * word_stride)] = *(const int32_t *)(value_at + i * value_stride);
    Py_RETURN_TRUE;
}

#include "trie_sweep.c"  /* sweep(): a whole build's constrained rows, with the same trie */

static PyMethodDef methods[] = {
    {"article_words", article_words_entry, METH_O, "Article labels as their citation words, sorted as UTF-8."},
    {"walk", (PyCFunction)(void (*)(void))walk_entry, METH_FASTCALL, "The token walk from a literal node."},
    {"pack", pack_entry, METH_O, "A leaf's sorted words as the walk reads them."},
    {"fill_row", (PyCFunction)(void (*)(void))fill_row_entry, METH_FASTCALL, "A state's packed words into a row."},
    {"sweep", (PyCFunction)(void (*)(void))sweep_entry, METH_FASTCALL, "Constrained states' rows, swept together."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "literal_walk", NULL, -1, methods};

PyMODINIT_FUNC PyInit_literal_walk(void) {
    import_array();
    PyObject *arrays = PyImport_ImportModule("array");
    if (arrays == NULL) return NULL;
    array_type = PyObject_GetAttrString(arrays, "array");
    Py_DECREF(arrays);
    if (array_type == NULL) return NULL;
    return PyModule_Create(&module);
}
