// LSTM objective in ADBench's form (Srajer, Kukelova & Fitzgibbon 2018),
// written here from the formulas: a stack of l layers of b cells with
// element-wise (diagonal) gate weights, run over a sequence of c vectors of
// size b, predicting each next vector; the loss is the mean negative
// log-softmax likelihood of the sequence. l = 2, b = 14, c = 1024 (ADBench's
// smallest set) by default; BENCH_LSTM_L and BENCH_LSTM_C choose l and c
// (ADBench's largest set is l = 4, c = 4096). Per layer, `main` holds
// weights then biases for the four gates (forget, input, output, change),
// 4 b each; `extra` holds the input weights, output weights and output
// biases, b each. The state (hidden then cell, per layer) is copied into a
// malloc'd buffer. Gradient w.r.t. main and extra; state and sequence
// constant.
#include "harness.h"

static double sigmoid(double v) { return 1 / (1 + exp(-v)); }

/* One layer, one step, in place on (hidden, cell). */
static void lstm_cell(int b, const double *w, const double *bias,
                      double *hidden, double *cell, const double *in) {
  for (int j = 0; j < b; ++j) {
    double forget = sigmoid(in[j] * w[j] + bias[j]);
    double ingate = sigmoid(hidden[j] * w[b + j] + bias[b + j]);
    double outgate = sigmoid(in[j] * w[2 * b + j] + bias[2 * b + j]);
    double change = tanh(hidden[j] * w[3 * b + j] + bias[3 * b + j]);
    cell[j] = cell[j] * forget + ingate * change;
    hidden[j] = outgate * tanh(cell[j]);
  }
}

/* The prediction for the next vector from input x; updates the state. */
static void lstm_predict(int l, int b, const double *main,
                         const double *extra, double *state, const double *x,
                         double *pred) {
  for (int j = 0; j < b; ++j)
    pred[j] = x[j] * extra[j];
  const double *in = pred;
  for (int i = 0; i < l; ++i) {
    double *hidden = state + 2 * i * b;
    lstm_cell(b, main + 2 * i * 4 * b, main + (2 * i + 1) * 4 * b, hidden,
              hidden + b, in);
    in = hidden;
  }
  for (int j = 0; j < b; ++j)
    pred[j] = in[j] * extra[b + j] + extra[2 * b + j];
}

double lstm_objective(const double *main, const double *extra,
                      const double *state0, const double *seq, int l, int c,
                      int b) {
  double *state = malloc((size_t)2 * l * b * sizeof(double));
  double *pred = malloc((size_t)b * sizeof(double));
  memcpy(state, state0, (size_t)2 * l * b * sizeof(double));
  double total = 0;
  for (int t = 0; t + 1 < c; ++t) {
    lstm_predict(l, b, main, extra, state, seq + t * b, pred);
    double mx = pred[0], s = 0;
    for (int j = 1; j < b; ++j)
      mx = pred[j] > mx ? pred[j] : mx;
    for (int j = 0; j < b; ++j)
      s += exp(pred[j] - mx);
    double lse = mx + log(s);
    for (int j = 0; j < b; ++j)
      total += seq[(t + 1) * b + j] * (pred[j] - lse);
  }
  free(state);
  free(pred);
  return -total / ((double)(c - 1) * b);
}

/*--- Hand-written discrete adjoint ----------------------------------------*/
/* The forward sweep keeps the state before every step in traj (2 l b doubles
 * per step, a caller workspace); the reverse sweep recomputes a step's gates
 * from it. `work` is scratch of (2 l + 4) b doubles. */

/* Reverse of lstm_cell for one layer. h0, c0: the state before; in: the
 * layer's input; dh, dc: on entry the cotangents of the new hidden and cell,
 * on return those of the old ones; din receives the input's cotangent. */
static void lstm_cell_adjoint(int b, const double *w, const double *bias,
                              const double *h0, const double *c0,
                              const double *in, double *dh, double *dc,
                              double *din, double *dw, double *dbias) {
  for (int j = 0; j < b; ++j) {
    double f = sigmoid(in[j] * w[j] + bias[j]);
    double ig = sigmoid(h0[j] * w[b + j] + bias[b + j]);
    double og = sigmoid(in[j] * w[2 * b + j] + bias[2 * b + j]);
    double ch = tanh(h0[j] * w[3 * b + j] + bias[3 * b + j]);
    double tc = tanh(c0[j] * f + ig * ch);
    double dcn = dc[j] + dh[j] * og * (1 - tc * tc);
    double dpo = dh[j] * tc * og * (1 - og);
    double dpf = dcn * c0[j] * f * (1 - f);
    double dpi = dcn * ch * ig * (1 - ig);
    double dpc = dcn * ig * (1 - ch * ch);
    dw[j] += dpf * in[j];
    dw[b + j] += dpi * h0[j];
    dw[2 * b + j] += dpo * in[j];
    dw[3 * b + j] += dpc * h0[j];
    dbias[j] += dpf;
    dbias[b + j] += dpi;
    dbias[2 * b + j] += dpo;
    dbias[3 * b + j] += dpc;
    din[j] = dpf * w[j] + dpo * w[2 * b + j];
    dh[j] = dpi * w[b + j] + dpc * w[3 * b + j];
    dc[j] = dcn * f;
  }
}

/* Cotangent of the prediction of step t: d loss / d pred. */
static void loss_adjoint(const double *pred, const double *gold, int b,
                         double scale, double *dpred) {
  double mx = pred[0], s = 0, gsum = 0;
  for (int j = 1; j < b; ++j)
    mx = pred[j] > mx ? pred[j] : mx;
  for (int j = 0; j < b; ++j) {
    s += exp(pred[j] - mx);
    gsum += gold[j];
  }
  for (int j = 0; j < b; ++j)
    dpred[j] = scale * (gold[j] - exp(pred[j] - mx) / s * gsum);
}

void lstm_grad_hand(const double *main, const double *extra,
                    const double *state0, const double *seq, int l, int c,
                    int b, double *traj, double *work, double *dmain,
                    double *dextra) {
  size_t sz = (size_t)2 * l * b;
  double *state = work, *pred = work + sz, *x2 = pred + b, *dpred = x2 + b,
         *din = dpred + b, *lam = din + b; /* lam: 2 l b, cotangent of state */
  memset(dmain, 0, (size_t)2 * l * 4 * b * sizeof(double));
  memset(dextra, 0, (size_t)3 * b * sizeof(double));
  memcpy(state, state0, sz * sizeof(double));
  for (int t = 0; t + 1 < c; ++t) {
    memcpy(traj + t * sz, state, sz * sizeof(double));
    lstm_predict(l, b, main, extra, state, seq + t * b, pred);
  }
  memset(lam, 0, sz * sizeof(double));
  double scale = -1 / ((double)(c - 1) * b);
  for (int t = c - 2; t >= 0; --t) {
    /* Recompute the step: state holds the new state, traj the old. */
    const double *old = traj + t * sz;
    memcpy(state, old, sz * sizeof(double));
    lstm_predict(l, b, main, extra, state, seq + t * b, pred);
    loss_adjoint(pred, seq + (t + 1) * b, b, scale, dpred);
    const double *top = state + 2 * (l - 1) * b;
    for (int j = 0; j < b; ++j) {
      dextra[b + j] += dpred[j] * top[j];
      dextra[2 * b + j] += dpred[j];
      lam[2 * (l - 1) * b + j] += dpred[j] * extra[b + j];
    }
    for (int i = l - 1; i >= 0; --i) {
      /* Layer i's input: the new hidden of the layer below, or x2. */
      const double *in = x2;
      if (i > 0)
        in = state + 2 * (i - 1) * b;
      else
        for (int j = 0; j < b; ++j)
          x2[j] = seq[t * b + j] * extra[j];
      double *dh = lam + 2 * i * b;
      lstm_cell_adjoint(b, main + 2 * i * 4 * b, main + (2 * i + 1) * 4 * b,
                        old + 2 * i * b, old + 2 * i * b + b, in, dh, dh + b,
                        din, dmain + 2 * i * 4 * b,
                        dmain + (2 * i + 1) * 4 * b);
      if (i > 0)
        for (int j = 0; j < b; ++j)
          lam[2 * (i - 1) * b + j] += din[j];
      else
        for (int j = 0; j < b; ++j)
          dextra[j] += din[j] * seq[t * b + j];
    }
  }
}

typedef struct {
  int l, c, b;
  double *main, *extra, *state0, *seq, *traj, *work;
  double *g_ad, *g_hand; /* d main (8 l b), then d extra (3 b) */
} ctx_t;

static size_t main_len(const ctx_t *c) { return (size_t)8 * c->l * c->b; }
static size_t grad_len(const ctx_t *c) {
  return main_len(c) + (size_t)3 * c->b;
}

static void run_primal(void *p) {
  ctx_t *c = p;
  do_not_optimize_double(lstm_objective(c->main, c->extra, c->state0, c->seq,
                                        c->l, c->c, c->b));
}

static void run_ad(void *p) {
  ctx_t *c = p;
  memset(c->g_ad, 0, grad_len(c) * sizeof(double));
  __ad_gradient_void(lstm_objective, c->main, c->g_ad, c->extra,
                     c->g_ad + main_len(c), AD_CONST, c->state0, AD_CONST,
                     c->seq, c->l, c->c, c->b);
  do_not_optimize(c->g_ad);
}

static void run_hand(void *p) {
  ctx_t *c = p;
  lstm_grad_hand(c->main, c->extra, c->state0, c->seq, c->l, c->c, c->b,
                 c->traj, c->work, c->g_hand, c->g_hand + main_len(c));
  do_not_optimize(c->g_hand);
}

int main(int argc, char **argv) {
  if (bench_wants_header(argc, argv))
    return 0;
  /* BENCH_LSTM_L and BENCH_LSTM_C change l and c, to measure ADBench's
   * larger sets; c >= 2 so that there is at least one prediction. */
  ctx_t c = {.l = bench_opaque_int((int)bench_env("BENCH_LSTM_L", 2)),
             .c = bench_opaque_int((int)bench_env("BENCH_LSTM_C", 1024)),
             .b = bench_opaque_int(14)};
  if (c.c < 2)
    c.c = 2;
  size_t sz = (size_t)2 * c.l * c.b;
  c.main = bench_alloc(main_len(&c));
  c.extra = bench_alloc(3 * (size_t)c.b);
  c.state0 = bench_alloc(sz);
  c.seq = bench_alloc((size_t)c.c * c.b);
  c.traj = bench_alloc(sz * (size_t)c.c);
  c.work = bench_alloc(2 * sz + 4 * (size_t)c.b);
  c.g_ad = bench_alloc(grad_len(&c));
  c.g_hand = bench_alloc(grad_len(&c));
  uint64_t seed = 9;
  for (size_t i = 0; i < main_len(&c); ++i)
    c.main[i] = bench_uniform(&seed, -1, 1);
  for (size_t i = 0; i < 3 * (size_t)c.b; ++i)
    c.extra[i] = bench_uniform(&seed, -1, 1);
  for (size_t i = 0; i < sz; ++i)
    c.state0[i] = bench_uniform(&seed, -1, 1);
  for (size_t i = 0; i < (size_t)c.c * c.b; ++i)
    c.seq[i] = bench_uniform(&seed, 0, 1);
  char label[48];
  snprintf(label, sizeof label, "l %d, b %d, c %d", c.l, c.b, c.c);
  /* Per time step; the hand-written adjoint keeps the state, 2 l b doubles. */
  bench_spec s = {"lstm",          label,  &c,       run_primal,   run_ad,
                  run_hand,        c.g_ad, c.g_hand, grad_len(&c), c.c - 1,
                  16.0 * c.l * c.b};
  return bench_row(&s);
}
