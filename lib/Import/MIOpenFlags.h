//===- MIOpenFlags.h - MIOpenDriver-style flag parsing ----------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Import: reads the words of an MIOpenDriver command against a
// flag table (long names, short letters, defaults, types) the way
// MIOpenDriver's InputFlags::Parse does, and reports every problem as one
// message that names the flag. The tables and what the values mean are in
// MIOpenCommand.cpp (convolutions, layer norms) and MIOpenGemm.cpp (matrix
// products).
//
//===----------------------------------------------------------------------===//

#ifndef BOO_LIB_IMPORT_MIOPENFLAGS_H
#define BOO_LIB_IMPORT_MIOPENFLAGS_H

#include "Boo/Import/MIOpenImport.h"

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <optional>
#include <string>

namespace mlir::boo::detail {

enum class FlagType { Int, Float, String };
// The flag tables' short spellings.
constexpr FlagType Int = FlagType::Int;
constexpr FlagType Float = FlagType::Float;
constexpr FlagType Str = FlagType::String;

/// One MIOpenDriver flag. `ignored` flags only steer the benchmark (timing,
/// iterations, verification, data files) and do not change the problem.
struct FlagSpec {
  StringLiteral longName;
  char shortName;
  StringLiteral defaultValue;
  FlagType type;
  bool ignored;
  StringLiteral meaning;
};

/// "--long (-s)", or "--long" for a flag without a short letter.
std::string flagName(const FlagSpec &flag);

/// The values of one command's flags: what the command gave, else the
/// defaults. Every getter reports errors as "<flag>: <what is wrong>".
class FlagValues {
public:
  FlagValues(ArrayRef<FlagSpec> table, StringRef what, std::string &error)
      : table(table), what(what), values(table.size()), error(error) {}

  /// Reads `args` (the words after the base argument) the way MIOpenDriver
  /// does: `--long value`, `-s value`, plus `--long=value`. The last
  /// occurrence of a flag wins.
  LogicalResult parse(ArrayRef<StringRef> args);

  StringRef getString(StringRef longName) const {
    size_t i = indexOf(longName);
    return values[i] ? StringRef(*values[i]) : StringRef(table[i].defaultValue);
  }
  std::string name(StringRef longName) const {
    return flagName(table[indexOf(longName)]);
  }
  /// Whether the command gives the flag (else its default applies).
  bool isSet(StringRef longName) const {
    return values[indexOf(longName)].has_value();
  }

  FailureOr<int64_t> getInt(StringRef longName) const;
  FailureOr<double> getFloat(StringRef longName) const;
  /// An integer that must be >= `minValue` (0 or 1).
  FailureOr<int64_t> getIntAtLeast(StringRef longName, int64_t minValue) const;
  /// A 0/1 flag.
  FailureOr<bool> getBool(StringRef longName) const;
  /// An epsilon: a non-negative finite f32.
  FailureOr<float> getEpsilon(StringRef longName) const;

  /// Sets `error` to "<flag>: <message>" and returns failure.
  LogicalResult fail(StringRef longName, const Twine &message) const {
    error = (name(longName) + ": " + message).str();
    return failure();
  }

private:
  size_t indexOf(StringRef longName) const {
    for (auto [i, flag] : llvm::enumerate(table))
      if (flag.longName == longName)
        return i;
    llvm_unreachable("flag missing from its table");
  }
  const FlagSpec *lookupLong(StringRef longName) const {
    for (const FlagSpec &flag : table)
      if (flag.longName == longName)
        return &flag;
    return nullptr;
  }
  const FlagSpec *lookupShort(char shortName) const {
    for (const FlagSpec &flag : table)
      if (flag.shortName == shortName)
        return &flag;
    return nullptr;
  }

  ArrayRef<FlagSpec> table;
  /// "convolution" or "layer norm", for messages about unknown flags.
  StringRef what;
  SmallVector<std::optional<std::string>> values;
  std::string &error;
};

/// Parses the four quoted fields of IREE BOO's `aten::` command `base`
/// (AtenCommand.cpp): a matrix product (mm, bmm, addmm) or an
/// arg-reduction (argmax, argmin).
FailureOr<MIOpenProblem> parseAten(StringRef base, ArrayRef<StringRef> fields,
                                   std::string &error);

/// Parses the flags of a `bnorm*` command (MIOpenBatchNorm.cpp); `base`
/// selects the types.
FailureOr<MIOpenBatchNormProblem> parseBatchNorm(StringRef base,
                                                 ArrayRef<StringRef> args,
                                                 std::string &error);

/// Parses the flags of a `gemm*` command (MIOpenGemm.cpp).
FailureOr<MIOpenGemmProblem> parseGemm(ElementType dataType,
                                       ArrayRef<StringRef> args,
                                       std::string &error);

} // namespace mlir::boo::detail

#endif // BOO_LIB_IMPORT_MIOPENFLAGS_H
