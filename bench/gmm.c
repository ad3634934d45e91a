// Gaussian mixture model objective in ADBench's form (Srajer, Kukelova &
// Fitzgibbon, "A benchmark of selected algorithmic differentiation tools on
// some problems in computer vision and machine learning", 2018), written
// here from the formulas. d = 10, K = 25 components, n = 2000 points by
// default; BENCH_GMM_D, BENCH_GMM_K and BENCH_GMM_N change them (ADBench's
// published instances include d 10, K 25, n 10^4 and d 64, K 10, n 10^3).
//
// Component k has weight alpha_k, mean mu_k and inverse covariance
// factor Q_k = diag(exp(q_k)) + L_k, L_k strictly lower triangular; icf_k
// holds q_k (d log-diagonal entries) then L_k column by column
// (d (d - 1) / 2 entries). With x_i - mu_k = c,
//   f = sum_i logsumexp_k(alpha_k + sum(q_k) - |Q_k c|^2 / 2)
//       - n logsumexp(alpha) + sum_k (g^2/2 |Q_k|_F^2 - m sum(q_k))
//       + constants,
// the last sum being the log Wishart prior (gamma g, m). The per-point
// scratch (c, Q_k c, the K terms) is malloc'd and freed for every point.
// Gradient w.r.t. alpha, mu and icf.
#include "harness.h"
#include <limits.h>

static double logsumexp_k(const double *v, int K) {
  double mx = v[0];
  for (int k = 1; k < K; ++k)
    mx = v[k] > mx ? v[k] : mx;
  double s = 0;
  for (int k = 0; k < K; ++k)
    s += exp(v[k] - mx);
  return mx + log(s);
}

/* out = Q c, Q = diag(qdiag) + the strictly lower triangle ltri. */
static void q_times(const double *qdiag, const double *ltri, const double *c,
                    double *out, int d) {
  for (int j = 0; j < d; ++j)
    out[j] = qdiag[j] * c[j];
  int at = 0;
  for (int col = 0; col < d; ++col)
    for (int row = col + 1; row < d; ++row)
      out[row] += ltri[at++] * c[col];
}

/* The terms of the log Wishart prior that depend on the parameters. */
static double wishart_terms(const double *icf, const double *qdiags,
                            const double *sum_qs, double gamma, int m, int d,
                            int K) {
  int icf_sz = d * (d + 1) / 2;
  double out = 0;
  for (int k = 0; k < K; ++k) {
    double frob = 0;
    for (int j = 0; j < d; ++j)
      frob += qdiags[k * d + j] * qdiags[k * d + j];
    for (int j = d; j < icf_sz; ++j)
      frob += icf[k * icf_sz + j] * icf[k * icf_sz + j];
    out += 0.5 * gamma * gamma * frob - m * sum_qs[k];
  }
  return out;
}

static double gmm_constants(double gamma, int m, int d, int K, int n) {
  double pi = 3.14159265358979323846;
  int nu = d + m + 1;
  double lgd = 0.25 * d * (d - 1) * log(pi);
  for (int j = 1; j <= d; ++j)
    lgd += lgamma(0.5 * nu + 0.5 * (1 - j));
  double C = nu * d * (log(gamma) - 0.5 * log(2.0)) - lgd;
  return -n * d * 0.5 * log(2 * pi) - K * C;
}

double gmm_objective(const double *alphas, const double *means,
                     const double *icf, const double *x, double gamma, int m,
                     int d, int K, int n) {
  int icf_sz = d * (d + 1) / 2;
  double *qdiags = malloc((size_t)K * d * sizeof(double));
  double *sum_qs = malloc((size_t)K * sizeof(double));
  for (int k = 0; k < K; ++k) {
    sum_qs[k] = 0;
    for (int j = 0; j < d; ++j) {
      sum_qs[k] += icf[k * icf_sz + j];
      qdiags[k * d + j] = exp(icf[k * icf_sz + j]);
    }
  }
  double slse = 0;
  for (int i = 0; i < n; ++i) {
    double *c = malloc((size_t)d * sizeof(double));
    double *qc = malloc((size_t)d * sizeof(double));
    double *terms = malloc((size_t)K * sizeof(double));
    for (int k = 0; k < K; ++k) {
      for (int j = 0; j < d; ++j)
        c[j] = x[i * d + j] - means[k * d + j];
      q_times(qdiags + k * d, icf + k * icf_sz + d, c, qc, d);
      double sq = 0;
      for (int j = 0; j < d; ++j)
        sq += qc[j] * qc[j];
      terms[k] = alphas[k] + sum_qs[k] - 0.5 * sq;
    }
    slse += logsumexp_k(terms, K);
    free(c);
    free(qc);
    free(terms);
  }
  double f = gmm_constants(gamma, m, d, K, n) + slse -
             n * logsumexp_k(alphas, K) +
             wishart_terms(icf, qdiags, sum_qs, gamma, m, d, K);
  free(qdiags);
  free(sum_qs);
  return f;
}

/*--- Hand-written gradient --------------------------------------------------*/
/* Point by point: the K products Q_k c and the softmax weights of a point go
 * into scratch (K (d + 1) doubles) reused by every point (as are exp(q_k)
 * and sum(q_k), computed once per call), and the point's
 * contribution is propagated back at once, so nothing is kept across points.
 * With w_k the softmax weight and b = -w_k Q_k c:
 *   d alpha_k += w_k,  d q_kj += w_k + b_j c_j exp(q_kj),  d L_k[r][s] += b_r c_s,
 *   d mu_k -= Q_k^T b. */
typedef struct {
  double *qdiags; /* K * d: exp(q_k) */
  double *sum_qs; /* K: sum(q_k) */
  double *qc;    /* K * d: Q_k c of the current point */
  double *terms; /* K */
  double *c;     /* d */
  double *bc;    /* d: Q_k^T b */
} gmm_scratch;

static void gmm_point_grad(const double *xi, const double *alphas,
                           const double *means, const double *icf, int d,
                           int K, const gmm_scratch *w, double *da,
                           double *dmu, double *dicf) {
  int icf_sz = d * (d + 1) / 2;
  for (int k = 0; k < K; ++k) {
    double *qc = w->qc + k * d;
    for (int j = 0; j < d; ++j)
      w->c[j] = xi[j] - means[k * d + j];
    q_times(w->qdiags + k * d, icf + k * icf_sz + d, w->c, qc, d);
    double sq = 0;
    for (int j = 0; j < d; ++j)
      sq += qc[j] * qc[j];
    w->terms[k] = alphas[k] + w->sum_qs[k] - 0.5 * sq;
  }
  double lse = logsumexp_k(w->terms, K);
  for (int k = 0; k < K; ++k) {
    const double *q = icf + k * icf_sz;
    double wk = exp(w->terms[k] - lse);
    double *qc = w->qc + k * d, *dq = dicf + k * icf_sz;
    da[k] += wk;
    for (int j = 0; j < d; ++j)
      w->c[j] = xi[j] - means[k * d + j];
    double *bc = w->bc;
    for (int j = 0; j < d; ++j) {
      double b = -wk * qc[j], qd = w->qdiags[k * d + j];
      dq[j] += wk + b * w->c[j] * qd;
      bc[j] = qd * b;
    }
    int at = d;
    for (int col = 0; col < d; ++col)
      for (int row = col + 1; row < d; ++row, ++at) {
        double b = -wk * qc[row];
        dq[at] += b * w->c[col];
        bc[col] += q[at] * b;
      }
    for (int j = 0; j < d; ++j)
      dmu[k * d + j] -= bc[j];
  }
}

void gmm_grad_hand(const double *alphas, const double *means,
                   const double *icf, const double *x, double gamma, int m,
                   int d, int K, int n, const gmm_scratch *w, double *da,
                   double *dmu, double *dicf) {
  int icf_sz = d * (d + 1) / 2;
  memset(da, 0, (size_t)K * sizeof(double));
  memset(dmu, 0, (size_t)K * d * sizeof(double));
  memset(dicf, 0, (size_t)K * icf_sz * sizeof(double));
  for (int k = 0; k < K; ++k) {
    w->sum_qs[k] = 0;
    for (int j = 0; j < d; ++j) {
      w->sum_qs[k] += icf[k * icf_sz + j];
      w->qdiags[k * d + j] = exp(icf[k * icf_sz + j]);
    }
  }
  for (int i = 0; i < n; ++i)
    gmm_point_grad(x + (size_t)i * d, alphas, means, icf, d, K, w, da, dmu,
                   dicf);
  double amax = alphas[0], asum = 0;
  for (int k = 1; k < K; ++k)
    amax = alphas[k] > amax ? alphas[k] : amax;
  for (int k = 0; k < K; ++k)
    asum += exp(alphas[k] - amax);
  double g2 = gamma * gamma;
  for (int k = 0; k < K; ++k) {
    da[k] -= n * exp(alphas[k] - amax) / asum;
    double *dq = dicf + k * icf_sz;
    const double *q = icf + k * icf_sz;
    for (int j = 0; j < d; ++j) /* g^2/2 exp(2 q_j) - m q_j */
      dq[j] += g2 * w->qdiags[k * d + j] * w->qdiags[k * d + j] - m;
    for (int j = d; j < icf_sz; ++j)
      dq[j] += g2 * q[j];
  }
}

typedef struct {
  int d, K, n, m;
  double gamma;
  double *alphas, *means, *icf, *x;
  double *g_ad, *g_hand; /* d alpha (K), d mu (K d), d icf (K icf_sz) */
  gmm_scratch w;
} ctx_t;

static size_t icf_size(const ctx_t *c) { return (size_t)c->d * (c->d + 1) / 2; }
static size_t grad_len(const ctx_t *c) {
  return (size_t)c->K * (1 + c->d + icf_size(c));
}

static void run_primal(void *p) {
  ctx_t *c = p;
  do_not_optimize_double(gmm_objective(c->alphas, c->means, c->icf, c->x,
                                       c->gamma, c->m, c->d, c->K, c->n));
}

static void run_ad(void *p) {
  ctx_t *c = p;
  double *da = c->g_ad, *dmu = da + c->K, *dicf = dmu + (size_t)c->K * c->d;
  memset(c->g_ad, 0, grad_len(c) * sizeof(double));
  __ad_gradient_void(gmm_objective, c->alphas, da, c->means, dmu, c->icf, dicf,
                     AD_CONST, c->x, AD_CONST, c->gamma, c->m, c->d, c->K,
                     c->n);
  do_not_optimize(c->g_ad);
}

static void run_hand(void *p) {
  ctx_t *c = p;
  double *da = c->g_hand, *dmu = da + c->K, *dicf = dmu + (size_t)c->K * c->d;
  gmm_grad_hand(c->alphas, c->means, c->icf, c->x, c->gamma, c->m, c->d, c->K,
                c->n, &c->w, da, dmu, dicf);
  do_not_optimize(c->g_hand);
}

int main(int argc, char **argv) {
  if (bench_wants_header(argc, argv))
    return 0;
  /* BENCH_GMM_D, BENCH_GMM_K and BENCH_GMM_N change d, K and n: to see how
   * the tape grows with d, and to run ADBench's instances as published. */
  ctx_t c = {.d = bench_opaque_int((int)bench_env("BENCH_GMM_D", 10)),
             .K = bench_opaque_int((int)bench_env("BENCH_GMM_K", 25)),
             .n = bench_opaque_int((int)bench_env("BENCH_GMM_N", 2000)),
             .m = 0, .gamma = 1.0};
  /* The objective indexes x and icf with int. */
  if ((double)c.n * c.d > INT_MAX || (double)c.K * icf_size(&c) > INT_MAX) {
    fprintf(stderr, "gmm: n d or K d (d + 1) / 2 does not fit in an int\n");
    return 2;
  }
  size_t d = (size_t)c.d, K = (size_t)c.K;
  c.alphas = bench_alloc(K);
  c.means = bench_alloc(K * d);
  c.icf = bench_alloc(K * icf_size(&c));
  c.x = bench_alloc((size_t)c.n * d);
  c.g_ad = bench_alloc(grad_len(&c));
  c.g_hand = bench_alloc(grad_len(&c));
  c.w.qdiags = bench_alloc(K * d);
  c.w.sum_qs = bench_alloc(K);
  c.w.qc = bench_alloc(K * d);
  c.w.terms = bench_alloc(K);
  c.w.c = bench_alloc(d);
  c.w.bc = bench_alloc(d);
  uint64_t seed = 8;
  for (size_t k = 0; k < K; ++k)
    c.alphas[k] = bench_uniform(&seed, -1, 1);
  for (size_t i = 0; i < K * d; ++i)
    c.means[i] = bench_uniform(&seed, 0, 1);
  for (size_t i = 0; i < K * icf_size(&c); ++i)
    c.icf[i] = bench_uniform(&seed, -0.5, 0.5);
  for (size_t i = 0; i < (size_t)c.n * d; ++i)
    c.x[i] = bench_uniform(&seed, 0, 1);
  char label[48];
  snprintf(label, sizeof label, "d %d, K %d, n %d", c.d, c.K, c.n);
  /* Per point; the point-fused hand-written gradient keeps nothing. */
  bench_spec s = {"gmm", label, &c, run_primal, run_ad, run_hand, c.g_ad,
                  c.g_hand, grad_len(&c), c.n, 0};
  return bench_row(&s);
}
