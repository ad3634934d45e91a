// clang -ftime-trace shows ADPass's stages, one event per stage and
// function, although most run on the pass's own thread (Passes.cpp), whose
// profiler is handed back to clang's when the work is done; the layout and
// the final verification run on clang's thread. Granularity 0 on both
// threads: these functions are built in microseconds.
// clang-format off
// RUN: %adcc -O0 -c %s -o %t.o -ftime-trace=%t.json -ftime-trace-granularity=0 -mllvm -ad-time-trace-granularity=0
// RUN: %python -c "import json, sys; print('\n'.join(e['name'] + ' ' + e['args']['detail'] for e in json.load(open(sys.argv[1]))['traceEvents'] if e.get('ph') == 'X' and e['name'].startswith('ADPass')))" %t.json | FileCheck %s
// Without -ftime-trace nothing is written and nothing changes.
// RUN: %adcc -O0 -S -emit-llvm %s -o %t.plain.ll
// RUN: %adcc -O0 -S -emit-llvm %s -o %t.traced.ll -ftime-trace=%t.2.json
// RUN: diff %t.plain.ll %t.traced.ll
// clang-format on
// CHECK-DAG: ADPass prepare source helper
// CHECK-DAG: ADPass linearize helper
// CHECK-DAG: ADPass unzip helper.jvp
// CHECK-DAG: ADPass transpose helper.lin
// CHECK-DAG: ADPass prepare source f
// CHECK-DAG: ADPass linearize f
// CHECK-DAG: ADPass verify linearity f.jvp
// CHECK-DAG: ADPass unzip f.jvp
// CHECK-DAG: ADPass verify linearity f.lin
// CHECK-DAG: ADPass transpose f.lin
// CHECK-DAG: ADPass lay out f.fwd
// CHECK-DAG: ADPass verify f.fwd
// CHECK-DAG: ADPass verify f.rev
// CHECK-DAG: ADPass verify g
#include <ad.h>
#include <math.h>

static double helper(double x) { return exp(x) * x; }
double f(double x) { return sin(x) * helper(x); }
double g(double x) { return __ad_gradient(f, x); }
