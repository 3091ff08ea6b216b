/* The vocabulary's trie swept against constrained states for a whole-index build (grammars/sweep.py says
 * what a sweep is): part of literal_walk.c's extension, which includes this file, so that one build of the
 * machine's compiler serves both and each file stays readable.
 *
 * Per origin state, a depth-first walk of the token trie beside the automaton's recorded transitions
 * (sorted by source, then byte): at each (trie node, state) pair the node's edges and the state's
 * transitions are matched by byte, from the smaller side by bisection of the other; every token ending at
 * a reached child is a row (origin, token, target). An origin whose walk reaches a state whose transitions
 * were not recorded (`walkable` false) is unfinished: its rows are dropped and the caller walks it alone.
 * numpy did this a trie depth per round for all origins at once; the rounds' temporary arrays cost the
 * case grammar's build 5 ms of its 18. */

typedef struct {  /* a growing int32 buffer */
    int32_t *items;
    int64_t count, room;
} Buffer;

static int buffer_push(Buffer *buffer, int32_t item) {
    if (buffer->count == buffer->room) {
        int64_t room = buffer->room ? 2 * buffer->room : 1024;
        int32_t *items = realloc(buffer->items, (size_t)room * sizeof(int32_t));
        if (items == NULL) return -1;
        buffer->items = items;
        buffer->room = room;
    }
    buffer->items[buffer->count++] = item;
    return 0;
}

typedef struct {  /* the automaton's recorded transitions, as TrieSweep sorts them */
    const int64_t *start;   /* transitions of state s: start[s] .. start[s + 1], sorted by byte */
    const uint8_t *byte;
    const int32_t *target;
    const uint8_t *walkable;  /* per state: its transitions are all recorded */
} Moves;

static int compare_rows(const void *a, const void *b) {  /* (token, target) pairs by token */
    int32_t x = ((const int32_t *)a)[0], y = ((const int32_t *)b)[0];
    return (x > y) - (x < y);
}

/* First index in sorted bytes[lo, hi) holding `byte`, or -1. */
static int64_t find_byte(const uint8_t *bytes, int64_t lo, int64_t hi, uint8_t byte) {
    int64_t end = hi;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (bytes[mid] < byte) lo = mid + 1;
        else hi = mid;
    }
    return lo < end && bytes[lo] == byte ? lo : -1;
}

/* One origin's rows appended to `pairs` (token, target) — 0; 1 where it is unfinished (nothing appended);
 * -1 out of memory. `stack` is scratch (node, state pairs). */
static int sweep_origin(const Trie *trie, const Moves *moves, int32_t origin, Buffer *pairs, Buffer *stack) {
    int64_t first_pair = pairs->count;
    stack->count = 0;
    if (buffer_push(stack, 0) || buffer_push(stack, origin)) return -1;
    while (stack->count) {
        int32_t state = stack->items[--stack->count], node = stack->items[--stack->count];
        int64_t edge_lo = trie->edge_start[node], edge_hi = trie->edge_start[node + 1];
        int64_t move_lo = moves->start[state], move_hi = moves->start[state + 1];
        int by_edges = edge_hi - edge_lo <= move_hi - move_lo;
        int64_t count = by_edges ? edge_hi - edge_lo : move_hi - move_lo;
        for (int64_t i = 0; i < count; i++) {
            int64_t edge, move;
            if (by_edges) {
                edge = edge_lo + i;
                move = find_byte(moves->byte, move_lo, move_hi, trie->edge_byte[edge]);
                if (move < 0) continue;
            } else {
                move = move_lo + i;
                edge = find_byte(trie->edge_byte, edge_lo, edge_hi, moves->byte[move]);
                if (edge < 0) continue;
            }
            int32_t child = trie->edge_child[edge], target = moves->target[move];
            if (!moves->walkable[target]) {
                pairs->count = first_pair;
                return 1;
            }
            for (int32_t t = trie->token_start[child]; t < trie->token_start[child + 1]; t++)
                if (buffer_push(pairs, trie->order[t]) || buffer_push(pairs, target)) return -1;
            if (trie->edge_start[child + 1] > trie->edge_start[child])
                if (buffer_push(stack, child) || buffer_push(stack, target)) return -1;
        }
    }
    qsort(pairs->items + first_pair, (size_t)(pairs->count - first_pair) / 2, 2 * sizeof(int32_t), compare_rows);
    return 0;
}

/* A contiguous 1-d array of `type`, or NULL with a TypeError naming `what`. */
static PyArrayObject *vector(PyObject *object, int type, const char *what) {
    if (!PyArray_Check(object) || PyArray_TYPE((PyArrayObject *)object) != type
        || PyArray_NDIM((PyArrayObject *)object) != 1 || !PyArray_ISCARRAY_RO((PyArrayObject *)object)) {
        PyErr_Format(PyExc_TypeError, "sweep expects %s as a contiguous 1-d array of numpy type %d", what, type);
        return NULL;
    }
    return (PyArrayObject *)object;
}

/* sweep(trie, move_start, move_byte, move_target, walkable, origins): the trie's address (literal_walk's
 * Trie), the recorded transitions (int64 starts per state and one more, uint8 bytes, int32 targets), a bool
 * per state and the origins (int64, sorted, each walkable). (origin, token, target) int32 arrays, rows of an
 * origin together, origins in order, tokens sorted; and the unfinished origins (int64). */
static PyObject *sweep_entry(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 6) {
        PyErr_SetString(PyExc_TypeError, "sweep expects (trie, move_start, move_byte, move_target, walkable, origins)");
        return NULL;
    }
    const Trie *trie = PyLong_AsVoidPtr(args[0]);
    if (PyErr_Occurred()) return NULL;
    PyArrayObject *start = vector(args[1], NPY_INT64, "move_start"), *byte = vector(args[2], NPY_UINT8, "move_byte");
    PyArrayObject *target = vector(args[3], NPY_INT32, "move_target"), *walkable = vector(args[4], NPY_BOOL, "walkable");
    PyArrayObject *origins = vector(args[5], NPY_INT64, "origins");
    if (start == NULL || byte == NULL || target == NULL || walkable == NULL || origins == NULL) return NULL;
    npy_intp states = PyArray_SIZE(walkable), origin_count = PyArray_SIZE(origins);
    const int64_t *origin_at = PyArray_DATA(origins), *start_at = PyArray_DATA(start);
    if (PyArray_SIZE(start) != states + 1 || PyArray_SIZE(byte) != PyArray_SIZE(target)
        || (states && (start_at[0] != 0 || start_at[states] != PyArray_SIZE(byte)))) {
        PyErr_SetString(PyExc_ValueError, "sweep expects move_start to index move_byte and move_target per state");
        return NULL;
    }
    for (npy_intp i = 0; i < origin_count; i++)
        if (origin_at[i] < 0 || origin_at[i] >= states) {
            PyErr_Format(PyExc_ValueError, "sweep expects origins among the %zd states, got %lld", (Py_ssize_t)states,
                         (long long)origin_at[i]);
            return NULL;
        }
    Moves moves = {start_at, PyArray_DATA(byte), PyArray_DATA(target), PyArray_DATA(walkable)};
    Buffer pairs = {0}, stack = {0}, owners = {0}, unfinished = {0};
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    for (npy_intp i = 0; i < origin_count && !failed; i++) {
        int64_t before = pairs.count;
        int found = sweep_origin(trie, &moves, (int32_t)origin_at[i], &pairs, &stack);
        if (found < 0) failed = 1;
        else if (found == 1) failed = buffer_push(&unfinished, (int32_t)origin_at[i]) != 0;
        else
            for (int64_t k = before; k < pairs.count && !failed; k += 2)
                failed = buffer_push(&owners, (int32_t)origin_at[i]) != 0;
    }
    Py_END_ALLOW_THREADS
    PyObject *result = NULL;
    if (failed) {
        PyErr_NoMemory();
    } else {
        npy_intp rows = (npy_intp)owners.count, left = (npy_intp)unfinished.count;
        PyObject *origin = copied(owners.items, rows, NPY_INT32, sizeof(int32_t));
        PyObject *token = PyArray_SimpleNew(1, &rows, NPY_INT32), *reached = PyArray_SimpleNew(1, &rows, NPY_INT32);
        PyObject *unfinished_origins = PyArray_SimpleNew(1, &left, NPY_INT64);
        if (origin != NULL && token != NULL && reached != NULL && unfinished_origins != NULL) {
            int32_t *token_at = PyArray_DATA((PyArrayObject *)token), *reached_at = PyArray_DATA((PyArrayObject *)reached);
            for (npy_intp k = 0; k < rows; k++) {
                token_at[k] = pairs.items[2 * k];
                reached_at[k] = pairs.items[2 * k + 1];
            }
            int64_t *left_at = PyArray_DATA((PyArrayObject *)unfinished_origins);
            for (npy_intp k = 0; k < left; k++) left_at[k] = unfinished.items[k];
            result = Py_BuildValue("(NNNN)", origin, token, reached, unfinished_origins);
        } else {
            Py_XDECREF(origin);
            Py_XDECREF(token);
            Py_XDECREF(reached);
            Py_XDECREF(unfinished_origins);
        }
    }
    free(pairs.items);
    free(stack.items);
    free(owners.items);
    free(unfinished.items);
    return result;
}
