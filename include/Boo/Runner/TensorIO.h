//===- TensorIO.h - Parse, print, load and save host tensors ----*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The textual tensor syntax of iree-run-module's `--input` flag, its result
// printing, and NumPy .npy files. Every entry point reports malformed input
// through an error string instead of asserting: the strings come from users.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_RUNNER_TENSORIO_H
#define BOO_RUNNER_TENSORIO_H

#include "Boo/Runner/HostTensor.h"

#include "mlir/Support/LLVM.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>
#include <vector>

namespace mlir::boo {

/// Parses a tensor type such as "2x3xf32" ("f32" is rank 0).
LogicalResult parseTensorType(StringRef text, std::vector<int64_t> &shape,
                              ElementType &type, std::string &error);

/// Parses a tensor in iree-run-module's `--input` syntax:
///   2x3xf32=1 2 3 4 5 6        values, row-major
///   2x3xf32=[1 2 3][4 5 6]     brackets and commas are separators
///   2x3xf32=0.5                one value fills the tensor (splat)
///   2x3xf32  or  2x3xf32=      zeros
///   f32=1                      rank 0
///   2x3xf32=@raw.bin           raw little-endian elements of that type
///   @file.npy                  a .npy file (type and shape from its header)
/// Floats accept decimal, hex (0x1.8p1), inf and nan spellings and round
/// once, to nearest even, from the decimal; integers accept decimal and 0x
/// hex and must fit the type.
FailureOr<HostTensor> parseTensor(StringRef spec, std::string &error);

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

/// Decodes the bytes of a .npy file (format 1.0, 2.0 or 3.0, C order,
/// little-endian '<f4' '<f2' '<f8' '<i4' '|i1').
FailureOr<HostTensor> parseNpy(StringRef bytes, std::string &error);
/// Reads and decodes a .npy file.
FailureOr<HostTensor> readNpyFile(StringRef path, std::string &error);
/// Encodes `tensor` as a .npy (format 1.0). NumPy has no bfloat16: bf16
/// tensors are written as '<f4' (exactly).
void writeNpy(const HostTensor &tensor, raw_ostream &os);
/// Writes `tensor` to the .npy file `path`.
LogicalResult writeNpyFile(const HostTensor &tensor, StringRef path,
                           std::string &error);

//===----------------------------------------------------------------------===//
// Printing and comparison
//===----------------------------------------------------------------------===//

/// iree-run-module's default for --print_max_element_count.
constexpr int64_t kDefaultMaxPrintElements = 1024;

/// Prints `tensor` as iree-run-module does: "2x3xf32=[1 2 3][4 5 6]", floats
/// with "%G". After `maxElements` elements in total, each innermost row
/// prints "..." in place of the rest.
void printTensor(const HostTensor &tensor, raw_ostream &os,
                 int64_t maxElements = kDefaultMaxPrintElements);
std::string formatTensor(const HostTensor &tensor,
                         int64_t maxElements = kDefaultMaxPrintElements);

/// Compares `actual` with `expected`, which must have the same shape (types
/// may differ). Floats match when |actual - expected| <= atol + rtol *
/// |expected| (NumPy's isclose), or when both are NaN, or both the same
/// infinity; integers must be equal. On a mismatch returns failure and
/// describes the first few differing elements in `message`.
LogicalResult compareTensors(const HostTensor &actual,
                             const HostTensor &expected, double rtol,
                             double atol, std::string &message);

} // namespace mlir::boo

#endif // BOO_RUNNER_TENSORIO_H
