//===- TapeRemarks.h - what a gradient keeps, as remarks --------*- C++ -*-===//
//
// At each gradient request, optimisation remarks of pass "adpass" say what
// the derivative keeps on its tape (-Rpass=adpass) and which loaded values
// it keeps although memory holds them, and why (-Rpass-missed=adpass).
// Through LLVM's remark machinery, so -fsave-optimization-record writes
// them too. All are placed at the request; lines of loops, loads and
// stores are in the text.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_DRIVER_TAPEREMARKS_H
#define ADPASS_DRIVER_TAPEREMARKS_H

#include "driver/Differentiator.h"
#include "driver/RequestParsing.h"

namespace ad {

/// Remarks about f.fwd's tape (\p U) at request \p R, when remarks of pass
/// "adpass" are wanted and unzipping left an account (TapeSummary.h).
void remarkTape(const Request &R, const Unzipped &U, Differentiator &D);

} // namespace ad

#endif
