/* The CPU kernel of citegen.kernels.apply_token_bitmask_inplace, compiled by cpu_bitmask.py with the
 * machine's C compiler (-O3 -march=native) when a process first masks CPU logits.
 *
 * One function per element width, working on the logits' bits: a float32 row as uint32, a bfloat16 or
 * float16 row as uint16, `neg_inf` the width's -inf. For every row r in `rows` (the first `row_count`
 * rows when `rows` is NULL) it equals:
 *
 *     for token in [0, width): if token >= vocab or bit (token % 32) of word (token / 32) is 0:
 *         logits[r][token] = -inf
 *
 * A word of 32 allowed tokens (-1, most of free text) is skipped, one of none (0, most of a citation) is
 * stored -inf without being read, every other word is masked without a branch per token, 32 lanes at a
 * time (the compiler vectorizes the inner loops), so a row costs about one pass over its logits whatever
 * the share of allowed tokens.
 */
#include <stdint.h>

#define DEFINE_APPLY(NAME, T)                                                                           \
    void NAME(T *logits, int64_t logits_stride, const uint32_t *bitmask, int64_t words,                 \
              const int32_t *rows, int64_t row_count, int64_t vocab, int64_t width, T neg_inf) {        \
        for (int64_t r = 0; r < row_count; r++) {                                                       \
            int64_t row = rows ? rows[r] : r;                                                           \
            T *restrict x = logits + row * logits_stride;                                               \
            const uint32_t *restrict w = bitmask + row * words;                                         \
            int64_t whole = vocab / 32;                                                                 \
            for (int64_t i = 0; i < whole; i++) {                                                       \
                uint32_t word = w[i];                                                                   \
                if (word == UINT32_MAX) continue;                                                       \
                T *restrict chunk = x + 32 * i;                                                         \
                if (word == 0) {                                                                        \
                    for (int j = 0; j < 32; j++) chunk[j] = neg_inf;                                    \
                    continue;                                                                           \
                }                                                                                       \
                for (int j = 0; j < 32; j++) {                                                          \
                    T keep = (T)((word & (1u << j)) ? ~(T)0 : 0);                                       \
                    chunk[j] = (T)((chunk[j] & keep) | (neg_inf & ~keep));                              \
                }                                                                                       \
            }                                                                                           \
            for (int64_t t = whole * 32; t < vocab; t++)                                                \
                if (!((w[t / 32] >> (t % 32)) & 1u)) x[t] = neg_inf;                                    \
            for (int64_t t = vocab; t < width; t++) x[t] = neg_inf;                                     \
        }                                                                                               \
    }

DEFINE_APPLY(apply_bitmask_32, uint32_t)
DEFINE_APPLY(apply_bitmask_16, uint16_t)
