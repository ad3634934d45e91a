// libADRuntime.a must link into plain C programs (every test here is one), so
// no member may need the C++ runtime: no mangled C++ names, exception
// handling, RTTI, operator new/delete or static-guard symbols may be left
// undefined. And it does export the whole API.
//
// RUN: llvm-nm -u %runtime | FileCheck %s --check-prefix=UNDEF \
// RUN:   --implicit-check-not=_Z --implicit-check-not=__cxa \
// RUN:   --implicit-check-not=__gxx --implicit-check-not=_Unwind \
// RUN:   --implicit-check-not=std:: --implicit-check-not=__dynamic_cast
// RUN: llvm-nm --defined-only --extern-only %runtime \
// RUN:   | FileCheck %s --check-prefix=API

// The C library is what it needs.
// UNDEF: malloc

// API-DAG: T __ad_tape_push
// API-DAG: T __ad_tape_pop
// API-DAG: T __ad_tape_release
// API-DAG: T __ad_tape_current_bytes
// API-DAG: T __ad_tape_peak_bytes
// API-DAG: T __ad_tape_reset_peak
// API-DAG: T __ad_alloc
// API-DAG: T __ad_free
