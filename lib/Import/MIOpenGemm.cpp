//===- MIOpenGemm.cpp - Parse MIOpenDriver gemm command lines -------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The `gemm*` flags mirror MIOpenDriver's (driver/gemm_driver.hpp,
// AddCmdLineArgs): `--a_h`/`-m` is M, `--a_w`/`-k` is K and `--b_w`/`-n` is
// N. IREE BOO's own gemm parser (op_exports/gemm.py) takes the same flags
// but builds A as [a_w, a_h], i.e. reads `--a_w` as M and `--a_h` as K; Boo
// follows MIOpen, whose flags they are (docs/MIOpenImport.md says more). Its
// `-F 2` and `-F 3` (the gradients of A and of B) are IREE BOO's; MIOpen
// parses `-F` and ignores it.
//
//===----------------------------------------------------------------------===//

#include "MIOpenFlags.h"

#include "llvm/Support/FormatVariadic.h"
#include <cmath>

using namespace mlir;
using namespace mlir::boo;
using namespace mlir::boo::detail;

namespace {

// clang-format off
/// MIOpenDriver `gemm*` flags (gemm_driver.hpp), `-F` as IREE BOO reads it.
const FlagSpec gemmFlags[] = {
  // long name     short default type   ignored meaning
  {"forw",         'F', "1",     Int,   false, "1: C = op(A) op(B); 2: gradient of A; 3: gradient of B (IREE BOO)"},
  {"batch_count",  'b', "1",     Int,   false, "independent products of packed consecutive matrices"},
  {"isColMajor",   'C', "0",     Int,   false, "column-major matrices (only 0)"},
  {"a_h",          'm', "256",   Int,   false, "rows of op(A) and of C: M"},
  {"a_w",          'k', "256",   Int,   false, "columns of op(A), rows of op(B): K"},
  {"b_w",          'n', "256",   Int,   false, "columns of op(B) and of C: N"},
  {"alpha",        'A', "1.0",   Float, false, "scale of op(A) op(B)"},
  {"beta",         'B', "0.0",   Float, false, "scale of C; non-zero makes C an input"},
  {"transA",       'u', "0",     Int,   false, "A is stored transposed (K x M)"},
  {"transB",       'v', "0",     Int,   false, "B is stored transposed (N x K)"},
  {"iter",         'i', "10",    Int,   true,  "benchmark iterations"},
  {"verify",       'V', "0",     Int,   true,  "verify against a reference"},
  {"time",         't', "0",     Int,   true,  "time each layer"},
  {"parallel",     'p', "0",     Int,   true,  "run the CPU reference in parallel"},
};
// clang-format on

/// An f32 scale.
FailureOr<double> getScale(const FlagValues &flags, StringRef name) {
  FailureOr<double> v = flags.getFloat(name);
  if (failed(v))
    return failure();
  if (!std::isfinite(static_cast<float>(*v))) {
    (void)flags.fail(name, llvm::formatv("must be a finite f32, got '{0}'",
                                         flags.getString(name)));
    return failure();
  }
  return *v;
}

} // namespace

FailureOr<MIOpenGemmProblem>
mlir::boo::detail::parseGemm(ElementType dataType, ArrayRef<StringRef> args,
                             std::string &error) {
  FlagValues flags(gemmFlags, "gemm", error);
  if (failed(flags.parse(args)))
    return failure();
  MIOpenGemmProblem p;
  p.dataType = dataType;
  FailureOr<int64_t> direction = flags.getInt("forw");
  if (failed(direction))
    return failure();
  if (*direction < 1 || *direction > 3) {
    (void)flags.fail("forw", llvm::formatv("expected 1 (C = op(A) op(B)), 2 "
                                           "(the gradient of A) or 3 (the "
                                           "gradient of B), got {0}",
                                           *direction));
    return failure();
  }
  p.direction = *direction;
  FailureOr<bool> colMajor = flags.getBool("isColMajor");
  if (failed(colMajor))
    return failure();
  if (*colMajor) {
    (void)flags.fail("isColMajor",
                     "column-major matrices are not supported; a column-major "
                     "C = op(A) op(B) is the row-major C^T = op(B)^T op(A)^T: "
                     "swap A and B, M and N, and flip both transposes");
    return failure();
  }
  // getInt keeps every value within MIOpenDriver's (32-bit) int.
  FailureOr<int64_t> batch = flags.getIntAtLeast("batch_count", 1);
  FailureOr<int64_t> m = flags.getIntAtLeast("a_h", 1);
  FailureOr<int64_t> n = flags.getIntAtLeast("b_w", 1);
  FailureOr<int64_t> k = flags.getIntAtLeast("a_w", 1);
  if (failed(batch) || failed(m) || failed(n) || failed(k))
    return failure();
  p.batch = *batch;
  p.batched = *batch > 1;
  p.m = *m;
  p.n = *n;
  p.k = *k;
  FailureOr<bool> ta = flags.getBool("transA");
  FailureOr<bool> tb = flags.getBool("transB");
  FailureOr<double> alpha = getScale(flags, "alpha");
  FailureOr<double> beta = getScale(flags, "beta");
  if (failed(ta) || failed(tb) || failed(alpha) || failed(beta))
    return failure();
  p.transposeA = *ta;
  p.transposeB = *tb;
  p.alpha = *alpha;
  p.beta = *beta;
  if (p.direction != 1 && (p.alpha != 1.0 || p.beta != 0.0)) {
    (void)flags.fail(p.alpha != 1.0 ? "alpha" : "beta",
                     llvm::formatv("the gradients (-F {0}) are of C = op(A) "
                                   "op(B): alpha must be 1 and beta 0",
                                   p.direction));
    return failure();
  }
  return p;
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

/// [batch,] rows, cols, or cols, rows when `transposed`.
static SmallVector<int64_t> matrixShape(const MIOpenGemmProblem &p,
                                        int64_t rows, int64_t cols,
                                        bool transposed) {
  SmallVector<int64_t> shape;
  if (p.isBatched())
    shape.push_back(p.batch);
  shape.push_back(transposed ? cols : rows);
  shape.push_back(transposed ? rows : cols);
  return shape;
}

StringRef MIOpenGemmProblem::getNameA() const {
  return atenOp.empty() ? "a" : atenOp == "addmm" ? "mat1" : "self";
}
StringRef MIOpenGemmProblem::getNameB() const {
  return atenOp.empty() ? "b" : "mat2";
}
StringRef MIOpenGemmProblem::getNameC() const {
  return atenOp.empty() ? "c" : "self";
}

MIOpenGemmProblem::Product MIOpenGemmProblem::getProduct() const {
  StringRef a = getNameA(), b = getNameB();
  if (direction == 1)
    return {a, b, transposeA, transposeB};
  if (direction == 2)
    return transposeA ? Product{b, "grad_output", transposeB, true}
                      : Product{"grad_output", b, false, !transposeB};
  return transposeB ? Product{"grad_output", a, true, transposeA}
                    : Product{a, "grad_output", !transposeA, false};
}

SmallVector<int64_t> MIOpenGemmProblem::getShapeA() const {
  return matrixShape(*this, m, k, transposeA);
}
SmallVector<int64_t> MIOpenGemmProblem::getShapeB() const {
  return matrixShape(*this, k, n, transposeB);
}
SmallVector<int64_t> MIOpenGemmProblem::getShapeC() const {
  return matrixShape(*this, m, n, false);
}

int64_t mlir::boo::getStorageSize(ArrayRef<int64_t> shape,
                                  ArrayRef<int64_t> strides) {
  int64_t size = 1;
  for (auto [d, s] : llvm::zip(shape, strides))
    size += (d - 1) * s;
  return size;
}
