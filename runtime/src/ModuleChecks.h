//===- ModuleChecks.h - Semantic checks of module descriptions --*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The rules of docs/ModuleFormat.md ("What the reader checks") beyond the
// byte layout. parseModule applies them element by element as it decodes,
// with the element's byte offset in the message; validateModule applies
// them to a whole ModuleDesc. Sharing them is what guarantees that
// whatever serializeModule writes parseModule reads back.
//
// Each check returns an empty string when the element is valid, else the
// problem; the caller prefixes where the element is.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_RUNTIME_SRC_MODULECHECKS_H
#define BOO_RUNTIME_SRC_MODULECHECKS_H

#include "boo/ModuleFormat.h"

namespace boo {
namespace runtime {

inline constexpr uint32_t kMaxStringBytes = 4096;
inline constexpr uint32_t kMaxRank = 16;

/// "3x3x8x8xf32"; "f32" for a scalar.
std::string describeTensor(const TensorDesc &tensor);

/// At most kMaxStringBytes; non-empty unless `allowEmpty`.
std::string checkString(const std::string &value, const char *field,
                        bool allowEmpty);
std::string checkTarget(const TargetDesc &target);
std::string checkTensor(const TensorDesc &tensor);
/// A launch's fields other than its arguments.
std::string checkLaunch(const Launch &launch, const TargetDesc &target,
                        size_t codeObjectCount);
/// One argument of a launch of `impl` (whose scratch sizes, like
/// `function`'s tensors, must be complete).
std::string checkArg(const LaunchArg &arg, const FunctionDesc &function,
                     const FunctionImpl &impl, const TargetDesc &target);
/// What spans functions: unique function names, one impl per target per
/// function, each code object used by one target only.
std::string checkModuleWide(const ModuleDesc &module);

} // namespace runtime
} // namespace boo

#endif // BOO_RUNTIME_SRC_MODULECHECKS_H
