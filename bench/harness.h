/*===- bench/harness.h - ADPass benchmark harness -----------------*- C -*-===*
 *
 * Each kernel (bench/<kernel>.c) provides three callables on one context:
 *
 *   primal      f(x), the function as a user writes it;
 *   ad_grad     the gradient through ADPass: zero the shadows (the API
 *               accumulates with +=), then one __ad_gradient call;
 *   hand_grad   a hand-written gradient producing the same vector;
 *   hand_acc_grad  optional: a hand-written gradient under ADPass's
 *               contract: zero the output (timed, as in ad_grad), then add
 *               into it (+=). It shows what the contract itself costs.
 *
 * bench_row() first checks that the gradients agree, measures the tape
 * peak and the extra heap of one ADPass gradient call, then times the three
 * (or four) and prints one markdown table row on stdout (header:
 * bench_print_header()). The last two columns are the accumulating hand
 * gradient's; they are empty for a kernel without one.
 *
 * Heap: a kernel is linked with -Wl,--wrap=malloc,--wrap=calloc,
 * --wrap=realloc,--wrap=free,--wrap=posix_memalign,--wrap=aligned_alloc
 * (bench/run.sh does), so that every allocation of the kernel's object and
 * of the ADPass runtime goes through the counters below. Live bytes are
 * malloc_usable_size of the live blocks: what the allocator really hands
 * out. Allocations inside libc itself (stdio buffers) are not seen; none
 * happens during a gradient call. The counters are atomic: the runtime of
 * an OpenMP kernel (omp_stencil) allocates on every thread.
 *
 * Timing follows the project's rules for a noisy machine: everything is a
 * ratio measured within one process run, and every number is a median.
 *   - CLOCK_MONOTONIC;
 *   - per callable, an inner repetition count is calibrated so that one
 *     repetition lasts >= BENCH_MIN_REP_MS (default 20 ms);
 *   - one warm-up repetition of each callable;
 *   - BENCH_REPS (default 15) rounds; in each round the three (or four)
 *     callables run one repetition each, interleaved, so that drift of the
 *     machine hits all alike;
 *   - reported time = median over the rounds of (repetition time / inner).
 *
 * Correctness: max over components of |ad_i - hand_i| / max(|hand_i|, floor)
 * with floor = 1e-6 * max_j |hand_j| (a component a million times smaller
 * than the largest is compared absolutely at that scale, so that rounding of
 * an exact zero does not count as a relative error of 1). Above
 * BENCH_TOL (1e-8) the row prints FAIL, is not timed, and bench_row returns
 * non-zero.
 *===----------------------------------------------------------------------===*/
#ifndef ADPASS_BENCH_HARNESS_H
#define ADPASS_BENCH_HARNESS_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include <ad.h>
#include <ad_runtime.h>
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_TOL 1e-8

/*--- Barriers ------------------------------------------------------------*/

/* Forces the compiler to assume `p` (and all memory) is read and may be
 * modified here: results stored through p are kept, and loads of memory after
 * the barrier are not hoisted out of the timing loop. */
static inline void do_not_optimize(const void *p) {
  __asm__ volatile("" : : "r,m"(p) : "memory");
}

/* Same for a scalar result. */
static inline void do_not_optimize_double(double v) {
  __asm__ volatile("" : : "r,m"(v) : "memory");
}

/*--- Clock ---------------------------------------------------------------*/

static inline double bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

typedef void (*bench_fn)(void *ctx);

/* Wall time of `inner` back-to-back calls, in ns. */
static double bench_time_rep(bench_fn fn, void *ctx, long inner) {
  double t0 = bench_now_ns();
  for (long i = 0; i < inner; ++i) {
    fn(ctx);
    do_not_optimize(ctx);
  }
  return bench_now_ns() - t0;
}

/* Smallest repetition count (found by growing it) whose repetition lasts at
 * least min_ns. The calls made here also warm caches and the tape. */
static long bench_calibrate(bench_fn fn, void *ctx, double min_ns) {
  long inner = 1;
  for (;;) {
    double t = bench_time_rep(fn, ctx, inner);
    if (t >= min_ns)
      return inner;
    long next = inner * 10;
    if (t > 0) {
      double want = (double)inner * min_ns * 1.25 / t;
      if (want < (double)next)
        next = (long)ceil(want);
    }
    inner = next > inner ? next : inner + 1;
  }
}

static int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double bench_median(double *v, int k) {
  qsort(v, (size_t)k, sizeof v[0], bench_cmp_double);
  return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

static double bench_env(const char *name, double dflt) {
  const char *s = getenv(name);
  if (!s || !*s)
    return dflt;
  double v = atof(s);
  return v > 0 ? v : dflt;
}

/* Median per-call times (ns) of several callables, measured interleaved.
 * The generic building block; bench_row uses it with three callables. */
static void bench_measure(int count, bench_fn const *fns, void *ctx,
                          double *median_ns) {
  enum { MAX_FNS = 8, MAX_REPS = 1001 };
  double min_ns = bench_env("BENCH_MIN_REP_MS", 20) * 1e6;
  int reps = (int)bench_env("BENCH_REPS", 15);
  if (reps > MAX_REPS)
    reps = MAX_REPS;
  if (count > MAX_FNS)
    abort();
  long inner[MAX_FNS];
  static double samples[MAX_FNS][MAX_REPS];
  for (int f = 0; f < count; ++f)
    inner[f] = bench_calibrate(fns[f], ctx, min_ns);
  for (int f = 0; f < count; ++f) /* warm-up */
    bench_time_rep(fns[f], ctx, inner[f]);
  for (int r = 0; r < reps; ++r)
    for (int f = 0; f < count; ++f)
      samples[f][r] = bench_time_rep(fns[f], ctx, inner[f]) / (double)inner[f];
  for (int f = 0; f < count; ++f)
    median_ns[f] = bench_median(samples[f], reps);
}

/*--- Heap accounting (link with --wrap, see the file comment) -------------*/

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *ptr, size_t size);
void __real_free(void *ptr);
int __real_posix_memalign(void **out, size_t align, size_t size);
void *__real_aligned_alloc(size_t align, size_t size);

/* Signed: a block allocated inside libc and freed here would subtract bytes
 * never added; the counts stay meaningful as differences. */
static long long bench_heap_live, bench_heap_peak;

/* Atomic: an OpenMP kernel's runtime allocates on every thread. */
static void bench_heap_add(void *p) {
  if (!p)
    return;
  long long live = __atomic_add_fetch(
      &bench_heap_live, (long long)malloc_usable_size(p), __ATOMIC_RELAXED);
  long long peak = __atomic_load_n(&bench_heap_peak, __ATOMIC_RELAXED);
  while (live > peak &&
         !__atomic_compare_exchange_n(&bench_heap_peak, &peak, live, 1,
                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    ;
}

static void bench_heap_sub(void *p) {
  if (p)
    __atomic_sub_fetch(&bench_heap_live, (long long)malloc_usable_size(p),
                       __ATOMIC_RELAXED);
}

void *__wrap_malloc(size_t size) {
  void *p = __real_malloc(size);
  bench_heap_add(p);
  return p;
}

void *__wrap_calloc(size_t count, size_t size) {
  void *p = __real_calloc(count, size);
  bench_heap_add(p);
  return p;
}

void *__wrap_realloc(void *ptr, size_t size) {
  long long old = ptr ? (long long)malloc_usable_size(ptr) : 0;
  void *p = __real_realloc(ptr, size);
  if (p || size == 0) { /* moved, resized, or freed by realloc(ptr, 0) */
    __atomic_sub_fetch(&bench_heap_live, old, __ATOMIC_RELAXED);
    bench_heap_add(p);
  }
  return p;
}

void __wrap_free(void *ptr) {
  bench_heap_sub(ptr);
  __real_free(ptr);
}

int __wrap_posix_memalign(void **out, size_t align, size_t size) {
  int rc = __real_posix_memalign(out, align, size);
  if (rc == 0)
    bench_heap_add(*out);
  return rc;
}

void *__wrap_aligned_alloc(size_t align, size_t size) {
  void *p = __real_aligned_alloc(align, size);
  bench_heap_add(p);
  return p;
}

/*--- Inputs --------------------------------------------------------------*/

/* Hides a value from the optimiser, so that problem sizes are run-time
 * values as in a user's program (no specialisation on a constant n). */
static inline int bench_opaque_int(int v) {
  __asm__ volatile("" : "+r"(v));
  return v;
}

/* Deterministic inputs: splitmix64, uniform in [lo, hi). */
static inline double bench_uniform(uint64_t *state, double lo, double hi) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return lo + (hi - lo) * (double)(z >> 11) * 0x1.0p-53;
}

/* Aborts on failure: benchmarks have no use for NULL. */
static inline double *bench_alloc(size_t count) {
  double *p = (double *)aligned_alloc(64, ((count * sizeof(double) + 63) / 64) * 64);
  if (!p) {
    fprintf(stderr, "bench: out of memory (%zu doubles)\n", count);
    exit(2);
  }
  memset(p, 0, count * sizeof(double));
  return p;
}

/*--- The row -------------------------------------------------------------*/

typedef struct {
  const char *kernel; /* table name */
  const char *n;      /* problem size as shown, e.g. "10^6" */
  void *ctx;
  bench_fn primal;
  bench_fn ad_grad;   /* zeroes the shadows, then calls __ad_gradient */
  bench_fn hand_grad;
  const double *ad_out;   /* gradient written by ad_grad */
  const double *hand_out; /* gradient written by hand_grad */
  size_t len;             /* components compared */
  double elements;  /* what "per element" divides by: n, rows, steps, ... */
  double hand_min;  /* bytes per element a hand-written adjoint must keep */
  /* Optional (NULL: the last two columns stay empty). Zeroes its output,
   * then adds the gradient into it, as ad_grad does. */
  bench_fn hand_acc_grad;
  const double *hand_acc_out; /* gradient written by hand_acc_grad */
} bench_spec;

static void bench_print_header(void) {
  printf("| kernel | n | primal (µs) | ADPass grad (µs) | ADPass / primal "
         "| hand grad (µs) | hand / primal | ADPass / hand | peak tape (bytes) "
         "| extra heap (bytes) | held after (bytes) | B / elem "
         "| hand min B / elem | max rel err | hand acc grad (µs) "
         "| ADPass / hand acc |\n");
  printf("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
}

/* Max relative error of a against the reference b (see the file comment);
 * *where receives the worst index. NaN anywhere gives +inf. */
static double bench_max_rel_err(const double *a, const double *b, size_t len,
                                size_t *where) {
  double scale = 0;
  for (size_t i = 0; i < len; ++i)
    scale = fmax(scale, fabs(b[i]));
  double floor_ = scale > 0 ? 1e-6 * scale : 1e-300;
  double worst = 0;
  *where = 0;
  for (size_t i = 0; i < len; ++i) {
    double e = fabs(a[i] - b[i]) / fmax(fabs(b[i]), floor_);
    if (e != e)
      e = INFINITY;
    if (e > worst) {
      worst = e;
      *where = i;
    }
  }
  return worst;
}

/* Prints the FAIL row of a gradient `what` that differs from the
 * hand-written one, and says so on stderr. Returns 1. */
static int bench_fail_row(const bench_spec *s, const char *what,
                          const double *out, double err, size_t at) {
  printf("| %s | %s | FAIL: %s gradient differs from the hand-written one, "
         "max rel err %.2e at component %zu (%s %.17g, hand %.17g) "
         "| | | | | | | | | | | | | |\n",
         s->kernel, s->n, what, err, at, what, out[at], s->hand_out[at]);
  fflush(stdout);
  fprintf(stderr, "bench %s: FAIL: %s: max rel err %.3e > %.0e at %zu\n",
          s->kernel, what, err, BENCH_TOL, at);
  return 1;
}

/* Checks, measures and prints one row. Returns 0, or 1 on FAIL. */
static int bench_row(const bench_spec *s) {
  /* Correctness first: one call of each gradient. The max rel err column is
   * ADPass's; the accumulating hand gradient must agree as well. */
  s->ad_grad(s->ctx);
  s->hand_grad(s->ctx);
  size_t at;
  double err = bench_max_rel_err(s->ad_out, s->hand_out, s->len, &at);
  if (!(err <= BENCH_TOL))
    return bench_fail_row(s, "ADPass", s->ad_out, err, at);
  if (s->hand_acc_grad) {
    s->hand_acc_grad(s->ctx);
    double acc_err =
        bench_max_rel_err(s->hand_acc_out, s->hand_out, s->len, &at);
    if (!(acc_err <= BENCH_TOL))
      return bench_fail_row(s, "accumulating hand", s->hand_acc_out, acc_err,
                            at);
  }

  /* Tape peak and extra heap of exactly one gradient call, from an empty
   * tape with no cached chunks: what a program's first gradient costs. The
   * heap counts the tape chunks, __ad_alloc arrays, shadows of blocks the
   * function allocates, and the function's own scratch. */
  __ad_tape_release();
  __ad_tape_reset_peak();
  size_t before = __ad_tape_current_bytes();
  long long heap_before = bench_heap_live;
  bench_heap_peak = heap_before;
  s->ad_grad(s->ctx);
  long long heap_extra = bench_heap_peak - heap_before;
  long long heap_held = bench_heap_live - heap_before;
  size_t peak = __ad_tape_peak_bytes() - before;
  size_t after = __ad_tape_current_bytes();
  if (after != before)
    fprintf(stderr,
            "bench %s: warning: the tape holds %zu bytes after a gradient "
            "call (%zu before)\n",
            s->kernel, after, before);

  bench_fn fns[4] = {s->primal, s->ad_grad, s->hand_grad, s->hand_acc_grad};
  double t[4];
  bench_measure(s->hand_acc_grad ? 4 : 3, fns, s->ctx, t);

  printf("| %s | %s | %.1f | %.1f | **%.2f** | %.1f | %.2f | %.2f | %zu "
         "| %lld | %lld | %.3g | %.3g | %.1e |",
         s->kernel, s->n, t[0] * 1e-3, t[1] * 1e-3, t[1] / t[0], t[2] * 1e-3,
         t[2] / t[0], t[1] / t[2], peak, heap_extra, heap_held,
         (double)heap_extra / s->elements, s->hand_min, err);
  if (s->hand_acc_grad)
    printf(" %.1f | %.2f |\n", t[3] * 1e-3, t[1] / t[3]);
  else
    printf(" | |\n");
  fflush(stdout);
  return 0;
}

/* Kernels' main(): `--header` prints the table header instead of a row. */
static inline int bench_wants_header(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--header") == 0) {
    bench_print_header();
    return 1;
  }
  return 0;
}

/* The whole benchmark for a kernel `double f(const double *x, int n)` with
 * gradient w.r.t. x and a hand-written gradient `void hand(x, g, n)` that
 * stores into g: the context, the three timed callables, and main. Inputs
 * are drawn uniformly from [lo, hi] with the given seed. The ADPass call
 * names f directly (a marker must). size_label is how the table prints n;
 * "per element" is per x_i; hand_min is the bytes per x_i a hand-written
 * adjoint must keep. */
#define BENCH_VECTOR_GRADIENT(f, hand, label, size, size_label, seed0, lo, hi, \
                              hand_min)                                        \
  BENCH_VECTOR_CALLABLES_(f, hand)                                             \
  BENCH_VECTOR_MAIN_(label, size, size_label, seed0, lo, hi, hand_min, NULL)

/* The same with a second hand-written gradient `void hand_acc(x, g, n)`
 * under ADPass's contract: it adds into g, which the timed callable zeroes
 * first, as run_ad does. */
#define BENCH_VECTOR_GRADIENT_ACC(f, hand, hand_acc, label, size, size_label,  \
                                  seed0, lo, hi, hand_min)                     \
  BENCH_VECTOR_CALLABLES_(f, hand)                                             \
  static void run_hand_acc(void *p) {                                          \
    ctx_t *c = p;                                                              \
    double *x = c->x, *g = c->g_hand_acc;                                      \
    int n = c->n;                                                              \
    memset(g, 0, (size_t)n * sizeof(double));                                  \
    hand_acc(x, g, n);                                                         \
    do_not_optimize(g);                                                        \
  }                                                                            \
  BENCH_VECTOR_MAIN_(label, size, size_label, seed0, lo, hi, hand_min,         \
                     run_hand_acc)

/* The context and the callables every vector kernel has. */
#define BENCH_VECTOR_CALLABLES_(f, hand)                                       \
  typedef struct {                                                             \
    int n;                                                                     \
    double *x, *g_ad, *g_hand, *g_hand_acc;                                    \
  } ctx_t;                                                                     \
  static void run_primal(void *p) {                                            \
    ctx_t *c = p;                                                              \
    do_not_optimize_double(f(c->x, c->n));                                     \
  }                                                                            \
  static void run_ad(void *p) {                                                \
    ctx_t *c = p;                                                              \
    double *x = c->x, *g = c->g_ad;                                            \
    int n = c->n;                                                              \
    memset(g, 0, (size_t)n * sizeof(double));                                  \
    __ad_gradient_void(f, x, g, n);                                            \
    do_not_optimize(g);                                                        \
  }                                                                            \
  static void run_hand(void *p) {                                              \
    ctx_t *c = p;                                                              \
    hand(c->x, c->g_hand, c->n);                                               \
    do_not_optimize(c->g_hand);                                                \
  }

/* main(); hand_acc_fn is run_hand_acc or NULL. */
#define BENCH_VECTOR_MAIN_(label, size, size_label, seed0, lo, hi, hand_min,   \
                           hand_acc_fn)                                        \
  int main(int argc, char **argv) {                                            \
    if (bench_wants_header(argc, argv))                                        \
      return 0;                                                                \
    ctx_t c = {.n = bench_opaque_int(size)};                                   \
    c.x = bench_alloc(c.n);                                                    \
    c.g_ad = bench_alloc(c.n);                                                 \
    c.g_hand = bench_alloc(c.n);                                               \
    uint64_t seed = seed0;                                                     \
    for (int i = 0; i < c.n; ++i)                                              \
      c.x[i] = bench_uniform(&seed, lo, hi);                                   \
    bench_spec s = {label,       size_label, &c,      run_primal,              \
                    run_ad,      run_hand,   c.g_ad,  c.g_hand,                \
                    (size_t)c.n, c.n,        hand_min};                        \
    if (hand_acc_fn) {                                                         \
      c.g_hand_acc = bench_alloc(c.n);                                         \
      s.hand_acc_grad = hand_acc_fn;                                           \
      s.hand_acc_out = c.g_hand_acc;                                           \
    }                                                                          \
    return bench_row(&s);                                                      \
  }

#endif /* ADPASS_BENCH_HARNESS_H */
