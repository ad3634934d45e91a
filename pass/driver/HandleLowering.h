//===- HandleLowering.h - __ad_linearize, __ad_jvp, __ad_vjp ----*- C++ -*-===//
//
// A handle keeps f's linear map at one point (docs/api.md, "Linearize once,
// apply many times"): __ad_linearize runs f.fwd once, into a tape the
// handle owns; __ad_jvp runs f.lin and __ad_vjp f.rev on it, with the
// shadows each passes. The derived functions are those of f's activity
// marked for a handle (Activity::forHandle).
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_HANDLELOWERING_H
#define ADPASS_HANDLELOWERING_H

#include "driver/RequestParsing.h"

namespace ad {

class Differentiator;

/// Replaces the handle marker of \p R by derivative code. False after
/// reporting.
bool lowerHandleRequest(Request &R, Differentiator &D);

} // namespace ad

#endif
