//===- StreamLibrary.h - C++ stream I/O in differentiated code ----*- C++
//-*-===//
//
// std::ostream's `<<`, std::istream's `>>`, file and string streams and
// their buffers live in libstdc++ (extern templates): their bodies are not
// in the module. They carry no derivative: a value read from a stream is a
// constant, and writing one has no derivative. So their calls stay primal
// code with constant results, and an extraction into a floating-point
// variable (`s >> x`) also zeroes x's derivative, which the old value's
// would otherwise outlive.
//
//===----------------------------------------------------------------------===//
#ifndef ADPASS_PREPARE_STREAMLIBRARY_H
#define ADPASS_PREPARE_STREAMLIBRARY_H

#include "llvm/IR/Function.h"

namespace ad {

/// A member or friend function of the standard streams, their buffers, the
/// locale, or an external member of std::basic_string (whose extern
/// template instantiations clang calls at -O0).
bool isStreamLibraryFunction(const llvm::Function &F);

/// Whether \p V calls std::string's allocation of a character buffer
/// (basic_string<char>::_M_create(size_type &capacity, size_type old), in
/// libstdc++): a heap block of capacity + 1 chars, the capacity as the
/// call leaves it (it may raise it).
bool isStringBufferAllocationCall(const llvm::Value *V);

/// For an extraction `istream::operator>>(T&)` / `_M_extract<T>(T&)` with
/// T floating point: T, whose value the call writes through its last
/// argument. Null otherwise.
llvm::Type *streamExtractionTarget(const llvm::Function &F);

} // namespace ad

#endif
