/* The CPU kernel of citegen.kernels.apply_token_bitmask_inplace: a CPython extension compiled by
 * cpu_bitmask.py with the machine's C compiler (-O3 -march=native) when a process first masks CPU logits.
 * An extension rather than a library loaded by ctypes: ctypes' conversion of the ten arguments took 1.5-2 µs
 * a call, a tenth of masking a row.
 *
 * One function per element width, working on the logits' bits: a float32 row as uint32, a bfloat16 or
 * float16 row as uint16, `neg_inf` the width's -inf. For every row r in `rows` (the first `row_count`
 * rows when `rows` is NULL) it equals:
 *
 *     for token in [0, width): if token >= vocab or bit (token % 32) of word (token / 32) is 0:
 *         logits[r][token] = -inf
 *
 * A word of 32 allowed tokens (-1, most of free text) is skipped. With AVX-512 every other word is one
 * or two masked stores of -inf into its disallowed lanes: the logits are never read, so a row costs what
 * writing it costs (memset's time) whatever the share of allowed tokens. Elsewhere a word of none (0,
 * most of a citation) is stored -inf without being read and a mixed word is blended without a branch
 * per token, 32 lanes at a time (the compiler vectorizes the loops); on mixed rows that costs 25-35%
 * more than the masked stores (measured in C, 152k float32 logits).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define DEFINE_MASK_WORD_PORTABLE(BITS, T)                                                              \
    static inline void mask_word_##BITS(T *restrict chunk, uint32_t word, T neg_inf) {                  \
        if (word == 0) {                                                                                \
            for (int j = 0; j < 32; j++) chunk[j] = neg_inf;                                            \
            return;                                                                                     \
        }                                                                                               \
        for (int j = 0; j < 32; j++) {                                                                  \
            T keep = (T)((word & (1u << j)) ? ~(T)0 : 0);                                               \
            chunk[j] = (T)((chunk[j] & keep) | (neg_inf & ~keep));                                      \
        }                                                                                               \
    }

#if defined(__AVX512F__)
#include <immintrin.h>

static inline void mask_word_32(uint32_t *chunk, uint32_t word, uint32_t neg_inf) {
    __m512i fill = _mm512_set1_epi32((int)neg_inf);
    _mm512_mask_storeu_epi32(chunk, (__mmask16)~word, fill);
    _mm512_mask_storeu_epi32(chunk + 16, (__mmask16)(~word >> 16), fill);
}
#else
DEFINE_MASK_WORD_PORTABLE(32, uint32_t)
#endif

#if defined(__AVX512BW__)
static inline void mask_word_16(uint16_t *chunk, uint32_t word, uint16_t neg_inf) {
    _mm512_mask_storeu_epi16(chunk, (__mmask32)~word, _mm512_set1_epi16((short)neg_inf));
}
#else
DEFINE_MASK_WORD_PORTABLE(16, uint16_t)
#endif

#define DEFINE_APPLY(BITS, T)                                                                           \
    static void apply_bitmask_##BITS(T *logits, int64_t logits_stride, const uint32_t *bitmask,         \
                                     int64_t words, const int32_t *rows, int64_t row_count,             \
                                     int64_t vocab, int64_t width, T neg_inf) {                         \
        for (int64_t r = 0; r < row_count; r++) {                                                       \
            int64_t row = rows ? rows[r] : r;                                                           \
            T *restrict x = logits + row * logits_stride;                                               \
            const uint32_t *restrict w = bitmask + row * words;                                         \
            int64_t whole = vocab / 32;                                                                 \
            for (int64_t i = 0; i < whole; i++)                                                         \
                if (w[i] != UINT32_MAX) mask_word_##BITS(x + 32 * i, w[i], neg_inf);                    \
            for (int64_t t = whole * 32; t < vocab; t++)                                                \
                if (!((w[t / 32] >> (t % 32)) & 1u)) x[t] = neg_inf;                                    \
            for (int64_t t = vocab; t < width; t++) x[t] = neg_inf;                                     \
        }                                                                                               \
    }

DEFINE_APPLY(32, uint32_t)
DEFINE_APPLY(16, uint16_t)

/* apply(bits, logits, row stride, bitmask, words, rows, row count, vocab, width, neg_inf): the addresses of the
 * logits and of the bitmask as integers, `rows` None (the first `row count` rows) or bytes of int32 row
 * indices, `neg_inf` the bits of the element width's -inf; the GIL released while the rows are masked. */
static PyObject *apply_entry(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 10) {
        PyErr_SetString(PyExc_TypeError, "apply expects (bits, logits, stride, bitmask, words, rows, row_count, "
                                         "vocab, width, neg_inf)");
        return NULL;
    }
    long bits = PyLong_AsLong(args[0]);
    void *logits = PyLong_AsVoidPtr(args[1]);
    int64_t stride = PyLong_AsLongLong(args[2]);
    const uint32_t *bitmask = PyLong_AsVoidPtr(args[3]);
    int64_t words = PyLong_AsLongLong(args[4]), row_count = PyLong_AsLongLong(args[6]);
    int64_t vocab = PyLong_AsLongLong(args[7]), width = PyLong_AsLongLong(args[8]);
    unsigned long neg_inf = PyLong_AsUnsignedLong(args[9]);
    if (PyErr_Occurred()) return NULL;
    const int32_t *rows = NULL;
    if (args[5] != Py_None) {
        if (!PyBytes_Check(args[5]) || PyBytes_GET_SIZE(args[5]) < row_count * (Py_ssize_t)sizeof(int32_t)) {
            PyErr_SetString(PyExc_TypeError, "apply expects rows as None or bytes of row_count int32");
            return NULL;
        }
        rows = (const int32_t *)PyBytes_AS_STRING(args[5]);
    }
    if (bits != 32 && bits != 16) {
        PyErr_Format(PyExc_ValueError, "apply expects 32- or 16-bit elements, got %ld", bits);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    if (bits == 32)
        apply_bitmask_32(logits, stride, bitmask, words, rows, row_count, vocab, width, (uint32_t)neg_inf);
    else
        apply_bitmask_16(logits, stride, bitmask, words, rows, row_count, vocab, width, (uint16_t)neg_inf);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"apply", (PyCFunction)(void (*)(void))apply_entry, METH_FASTCALL, "Mask the listed rows of the logits."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_definition = {PyModuleDef_HEAD_INIT, "cpu_bitmask", NULL, -1, methods};

PyMODINIT_FUNC PyInit_cpu_bitmask(void) { return PyModule_Create(&module_definition); }
