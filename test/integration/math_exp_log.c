// Exponentials, logarithms and roots, double and float variants:
// exp exp2 expm1 log log2 log10 log1p sqrt cbrt, alone and composed.
// With -ffast-math / -fno-math-errno exp, exp2, log, log2, log10 and sqrt
// become llvm.* intrinsics; expm1, log1p and cbrt stay libm calls.
//
// RUN: %adcc -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcc -O2 %s -o %t.O2 %adlibs && %t.O2
// RUN: %adcc -O0 -ffast-math %s -o %t.fm0 %adlibs && %t.fm0
// RUN: %adcc -O2 -ffast-math %s -o %t.fm %adlibs && %t.fm
// RUN: %adcc -O2 -fno-math-errno %s -o %t.ne %adlibs && %t.ne

#include "ad.h"
#include "adcheck.h"
#include <math.h>

double m_exp(double x) { return exp(x); }
double m_exp2(double x) { return exp2(x); }
double m_expm1(double x) { return expm1(x); }
double m_cbrt(double x) { return cbrt(x); }
double m_log(double x) { return log(x); }
double m_log2(double x) { return log2(x); }
double m_log10(double x) { return log10(x); }
double m_sqrt(double x) { return sqrt(x); }
double m_log1p(double x) { return log1p(x); }
double m_gauss(double x) { return exp(-x * x / 2) * log1p(x * x); }
double m_softplus(double x) { return log(1 + exp(x)); }
double m_sqrt_exp2(double x) { return sqrt(1 + exp2(x)) * cbrt(x); }
double m_logs(double x) { return log2(x * x + 1) - log10(x * x + 2) * x; }

float mf_exp(float x) { return expf(x); }
float mf_exp2(float x) { return exp2f(x); }
float mf_expm1(float x) { return expm1f(x); }
float mf_cbrt(float x) { return cbrtf(x); }
float mf_log(float x) { return logf(x); }
float mf_log2(float x) { return log2f(x); }
float mf_log10(float x) { return log10f(x); }
float mf_sqrt(float x) { return sqrtf(x); }
float mf_log1p(float x) { return log1pf(x); }
float mf_gauss(float x) { return expf(-x * x / 2) * log1pf(x * x); }

static volatile double pts[] = {-2.6, -1.3, -0.4, 0.25, 0.9, 1.7, 3.1};
static volatile double pos[] = {0.15, 0.4, 0.9, 1.7, 3.1, 12.5};
static volatile double gt_m1[] = {-0.85, -0.4, 0.25, 0.9, 3.1};

int main(void) {
  const double ln2 = 0.69314718055994531, ln10 = 2.3025850929940457;
  for (unsigned i = 0; i < sizeof pts / sizeof pts[0]; i++) {
    double x = pts[i];
    AD_CHECK1(m_exp, exp(t));
    AD_CHECK1(m_exp2, ln2 * exp2(t));
    AD_CHECK1(m_expm1, exp(t));
    AD_CHECK1(m_cbrt, 1 / (3 * cbrt(t) * cbrt(t)));
    AD_CHECK1(m_gauss, exp(-t * t / 2) * (-t * log1p(t * t) + 2 * t / (1 + t * t)));
    AD_CHECK1(m_softplus, 1 / (1 + exp(-t)));
    AD_CHECK1(m_sqrt_exp2, ln2 * exp2(t) / (2 * sqrt(1 + exp2(t))) * cbrt(t) +
                            sqrt(1 + exp2(t)) / (3 * cbrt(t) * cbrt(t)));
    AD_CHECK1(m_logs, 2 * t / ((t * t + 1) * ln2) - log10(t * t + 2) -
                       2 * t * t / ((t * t + 2) * ln10));

    AD_CHECK1F(mf_exp, exp(t));
    AD_CHECK1F(mf_exp2, ln2 * exp2(t));
    AD_CHECK1F(mf_expm1, exp(t));
    AD_CHECK1F(mf_cbrt, 1 / (3 * cbrt(t) * cbrt(t)));
    AD_CHECK1F(mf_gauss, exp(-t * t / 2) * (-t * log1p(t * t) + 2 * t / (1 + t * t)));
  }
  for (unsigned i = 0; i < sizeof pos / sizeof pos[0]; i++) {
    double x = pos[i];
    AD_CHECK1(m_log, 1 / t);
    AD_CHECK1(m_log2, 1 / (t * ln2));
    AD_CHECK1(m_log10, 1 / (t * ln10));
    AD_CHECK1(m_sqrt, 0.5 / sqrt(t));
    AD_CHECK1F(mf_log, 1 / t);
    AD_CHECK1F(mf_log2, 1 / (t * ln2));
    AD_CHECK1F(mf_log10, 1 / (t * ln10));
    AD_CHECK1F(mf_sqrt, 0.5 / sqrt(t));
  }
  for (unsigned i = 0; i < sizeof gt_m1 / sizeof gt_m1[0]; i++) {
    double x = gt_m1[i];
    AD_CHECK1(m_log1p, 1 / (1 + t));
    AD_CHECK1F(mf_log1p, 1 / (1 + t));
  }
  return ad_finish();
}
