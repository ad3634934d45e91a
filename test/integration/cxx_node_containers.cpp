// std::list, std::map, std::set and std::unordered_map local to the
// differentiated function.
// Their node operations live in libstdc++'s shared library (_M_hook,
// _M_reverse, _M_unhook, _M_transfer, _Rb_tree_increment / _decrement,
// _Rb_tree_insert_and_rebalance, _Rb_tree_rebalance_for_erase): each is
// made once more on the shadow nodes, which it relinks the same way
// (JvpRules.cpp, isLinkStructureFunction). From -O1 a map's header, inlined
// into f, points to itself; those stores no longer keep the map from a
// shadow (Activity.cpp, onlyCalleesStorePointersInto). std::unordered_map
// computes bucket counts in the library (inactive: integers), and at -O0
// its operator[] keeps the key's address in a tuple five calls down, which
// now gets a null shadow (Linearize.cpp, storesParameter, also through
// std::move and std::forward). Before, compile errors ("no derivative rule
// and its body is not visible").
// RUN: %adcxx -std=c++17 -O0 %s -o %t.O0 %adlibs && %t.O0
// RUN: %adcxx -std=c++17 -O1 %s -o %t.O1 %adlibs && %t.O1
// RUN: %adcxx -std=c++17 -O2 %s -o %t.O2 %adlibs && %t.O2
#include "ad.h"
#include "adcheck.h"
#include <list>
#include <map>
#include <set>
#include <unordered_map>

static const int N = 6;

// Odd i pushed at the back as x^2, even i at the front as x^3:
// [4 2 0 1 3 5]; reversed [5 3 1 0 2 4]; the second erased and a constant
// spliced on: [5 1 0 2 4 c], weighted 1..6.
double list_loss(const double *x, int n) {
  std::list<double> l;
  for (int i = 0; i < n; i++) {
    if (i % 2)
      l.push_back(x[i] * x[i]);
    else
      l.push_front(x[i] * x[i] * x[i]);
  }
  l.reverse();
  l.erase(std::next(l.begin()));
  std::list<double> tail{2.0};
  l.splice(l.end(), tail);
  double s = 0;
  int k = 1;
  for (double v : l)
    s += v * k++;
  return s;
}

// Keys 5i mod 6 (all distinct), key 3 erased, key 7 added; summed from the
// largest key down.
double map_loss(const double *x, int n) {
  std::map<int, double> m;
  for (int i = 0; i < n; i++)
    m[(5 * i) % n] = x[i] * x[i];
  m.erase(3);
  m.insert({7, x[0]});
  double s = 0;
  for (auto it = m.rbegin(); it != m.rend(); ++it)
    s += it->second * (it->first + 1);
  return s;
}

// The squares in increasing order, weighted by rank.
double set_loss(const double *x, int n) {
  std::set<double> st;
  for (int i = 0; i < n; i++)
    st.insert(x[i] * x[i]);
  double s = 0;
  int r = 1;
  for (double v : st)
    s += v * r++;
  return s;
}

// Keys 7i, key 14 erased, key 100 added (rehashing on the way); looked up
// with find and at.
double umap_loss(const double *x, int n) {
  std::unordered_map<int, double> m;
  for (int i = 0; i < n; i++)
    m[7 * i] = x[i] * x[i];
  m.erase(14);
  m.emplace(100, x[1]);
  double s = 0;
  for (int i = 0; i < n; i++) {
    auto it = m.find(7 * i);
    if (it != m.end())
      s += it->second * (i + 1);
  }
  return s + 3 * m.at(100);
}

int main() {
  double x[N] = {0.9, -0.4, 0.7, 1.3, -0.55, 0.35};
  double dl[N] = {0}, dm[N] = {0}, ds[N] = {0}, du[N] = {0};
  __ad_gradient_void(list_loss, x, dl, N);
  __ad_gradient_void(map_loss, x, dm, N);
  __ad_gradient_void(set_loss, x, ds, N);
  __ad_gradient_void(umap_loss, x, du, N);
  const int ListWeight[N] = {3, 2, 4, 0, 5, 1}; // of x_i in the final list
  for (int i = 0; i < N; i++) {
    double t = x[i];
    double want = i % 2 ? 2 * t * ListWeight[i] : 3 * t * t * ListWeight[i];
    ad_deriv(ad_fmt("list d/dx%d", i), dl[i], want,
             AD_FD(x[i], list_loss(x, N)), AD_TOL_D);
    int key = (5 * i) % N;
    want = key == 3 ? 0 : 2 * t * (key + 1);
    if (i == 0)
      want += 8;
    ad_deriv(ad_fmt("map d/dx%d", i), dm[i], want, AD_FD(x[i], map_loss(x, N)),
             AD_TOL_D);
    int rank = 1;
    for (int j = 0; j < N; j++)
      rank += x[j] * x[j] < t * t;
    ad_deriv(ad_fmt("set d/dx%d", i), ds[i], 2 * t * rank,
             AD_FD(x[i], set_loss(x, N)), AD_TOL_D);
    want = (i == 2 ? 0 : 2 * t * (i + 1)) + (i == 1 ? 3 : 0);
    ad_deriv(ad_fmt("unordered_map d/dx%d", i), du[i], want,
             AD_FD(x[i], umap_loss(x, N)), AD_TOL_D);
  }
  return ad_finish();
}
