//===- TensorIO.cpp - Parse, print and compare host tensors ---------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The textual syntax follows iree-run-module (runtime/src/iree/hal/
// buffer_view_util.c and string_util.c): "SHAPExTYPE=VALUES", brackets and
// commas as separators, a single value as a splat, "%G" printing with
// per-row "..." elision. .npy files live in NpyIO.cpp.
//
//===----------------------------------------------------------------------===//

#include "Boo/Runner/TensorIO.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>
#include <cstdio>
#include <cstring>

using namespace mlir;
using namespace mlir::boo;

/// Refuse tensors whose buffer would exceed this many bytes (a typo in a
/// shape should be an error, not an allocation failure).
static constexpr int64_t kMaxTensorBytes = int64_t(1) << 36;

LogicalResult mlir::boo::parseTensorType(StringRef text,
                                         std::vector<int64_t> &shape,
                                         ElementType &type,
                                         std::string &error) {
  text = text.trim();
  shape.clear();
  StringRef typeName = text;
  size_t lastX = text.rfind('x');
  if (lastX != StringRef::npos) {
    typeName = text.drop_front(lastX + 1);
    SmallVector<StringRef> dims;
    text.take_front(lastX).split(dims, 'x');
    for (StringRef dim : dims) {
      uint64_t size;
      // getAsInteger rejects signs, so "-1" and "?" land here too.
      if (dim.empty() || dim.getAsInteger(10, size) ||
          size > static_cast<uint64_t>(kMaxTensorBytes)) {
        error = "invalid dimension '" + dim.str() + "' in '" + text.str() +
                "' (expected e.g. 2x3xf32)";
        return failure();
      }
      shape.push_back(static_cast<int64_t>(size));
    }
  }
  std::optional<ElementType> parsed = parseElementType(typeName);
  if (!parsed) {
    error = "unsupported element type '" + typeName.str() + "' in '" +
            text.str() + "'; expected f32, f16, bf16, f64, i32, i8 or i64";
    return failure();
  }
  type = *parsed;
  int64_t bytes = getElementSize(type);
  for (int64_t dim : shape) {
    if (dim != 0 && bytes > kMaxTensorBytes / dim) {
      error = "'" + text.str() + "' is too large";
      return failure();
    }
    bytes *= dim;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Parsing values
//===----------------------------------------------------------------------===//

static const llvm::fltSemantics &getSemantics(ElementType type) {
  switch (type) {
  case ElementType::F16:
    return llvm::APFloat::IEEEhalf();
  case ElementType::BF16:
    return llvm::APFloat::BFloat();
  case ElementType::F64:
    return llvm::APFloat::IEEEdouble();
  default:
    return llvm::APFloat::IEEEsingle();
  }
}

/// Parses one element and stores its bytes at `out`.
static LogicalResult parseElement(StringRef token, ElementType type,
                                  uint8_t *out) {
  if (isFloatType(type)) {
    const llvm::fltSemantics &semantics = getSemantics(type);
    // Accept the C spellings (and iree's "%G" output: INF, NAN) in any case;
    // APFloat only knows a few.
    StringRef body = token;
    bool negative = body.consume_front("-");
    if (!negative)
      body.consume_front("+");
    std::optional<llvm::APFloat> value;
    if (body.equals_insensitive("inf") || body.equals_insensitive("infinity"))
      value = llvm::APFloat::getInf(semantics, negative);
    else if (body.equals_insensitive("nan"))
      value = llvm::APFloat::getQNaN(semantics, negative);
    if (!value) {
      value.emplace(semantics);
      auto status =
          value->convertFromString(token, llvm::APFloat::rmNearestTiesToEven);
      if (!status) {
        llvm::consumeError(status.takeError());
        return failure();
      }
    }
    llvm::APInt bits = value->bitcastToAPInt();
    uint64_t raw = bits.getZExtValue();
    std::memcpy(out, &raw, getElementSize(type)); // Little-endian host.
    return success();
  }

  // Integers: decimal or 0x hex, optionally signed. Types are signless, so
  // both the signed and the unsigned range of the width are accepted.
  StringRef body = token;
  bool negative = body.consume_front("-");
  if (!negative)
    body.consume_front("+");
  unsigned radix = 10;
  if (body.consume_front_insensitive("0x"))
    radix = 16;
  uint64_t magnitude;
  if (body.empty() || body.getAsInteger(radix, magnitude))
    return failure();
  unsigned width = 8 * getElementSize(type);
  uint64_t maxUnsigned =
      width == 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1;
  uint64_t maxNegative = uint64_t(1) << (width - 1);
  if (negative ? magnitude > maxNegative : magnitude > maxUnsigned)
    return failure();
  uint64_t raw = negative ? (~magnitude + 1) : magnitude;
  std::memcpy(out, &raw, getElementSize(type));
  return success();
}

/// Splits `text` at whitespace, commas and brackets (checking that brackets
/// balance).
static LogicalResult tokenize(StringRef text, SmallVectorImpl<StringRef> &out,
                              std::string &error) {
  int depth = 0;
  size_t start = StringRef::npos;
  for (size_t i = 0, e = text.size(); i <= e; ++i) {
    char c = i < e ? text[i] : ' ';
    bool separator = llvm::isSpace(c) || c == ',' || c == '[' || c == ']';
    if (!separator) {
      if (start == StringRef::npos)
        start = i;
      continue;
    }
    if (start != StringRef::npos) {
      out.push_back(text.slice(start, i));
      start = StringRef::npos;
    }
    if (c == '[')
      ++depth;
    if (c == ']' && --depth < 0) {
      error = "unbalanced ']' in the values";
      return failure();
    }
  }
  if (depth != 0) {
    error = "unbalanced '[' in the values";
    return failure();
  }
  return success();
}

static FailureOr<HostTensor> parseRawFile(StringRef path, HostTensor tensor,
                                          std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    error = "cannot read '" + path.str() + "': " + buffer.getError().message();
    return failure();
  }
  size_t size = (*buffer)->getBufferSize();
  if (size != tensor.data.size()) {
    error = "'" + path.str() + "' holds " + std::to_string(size) + " bytes; " +
            tensor.getTypeString() + " needs " +
            std::to_string(tensor.data.size());
    return failure();
  }
  if (size)
    std::memcpy(tensor.data.data(), (*buffer)->getBufferStart(), size);
  return tensor;
}

FailureOr<HostTensor> mlir::boo::parseTensor(StringRef spec,
                                             std::string &error) {
  spec = spec.trim();
  // Quotes left over from a shell or a flag file, as iree strips them.
  if (spec.size() >= 2 && spec.front() == '"' && spec.back() == '"')
    spec = spec.drop_front().drop_back().trim();
  if (spec.empty()) {
    error = "empty tensor; expected e.g. 2x3xf32=1 2 3 4 5 6 or @file.npy";
    return failure();
  }
  if (spec.consume_front("@"))
    return readNpyFile(spec, error);

  auto [typeText, values] = spec.split('=');
  HostTensor tensor;
  if (failed(parseTensorType(typeText, tensor.shape, tensor.type, error)))
    return failure();
  tensor = HostTensor::zeros(tensor.shape, tensor.type);
  values = values.trim();
  if (values.consume_front("@"))
    return parseRawFile(values, std::move(tensor), error);
  // No values (like iree): zeros.
  if (values.empty())
    return tensor;

  SmallVector<StringRef> tokens;
  if (failed(tokenize(values, tokens, error)))
    return failure();
  int64_t count = tensor.numElements();
  int64_t got = static_cast<int64_t>(tokens.size());
  if (got != count && got != 1) {
    error = tensor.getTypeString() + " needs " + std::to_string(count) +
            " values, got " + std::to_string(got);
    return failure();
  }
  const int64_t elementSize = getElementSize(tensor.type);
  for (auto [i, token] : llvm::enumerate(tokens)) {
    if (count == 0)
      break;
    if (failed(parseElement(token, tensor.type,
                            tensor.data.data() + i * elementSize))) {
      error = "cannot parse '" + token.str() + "' as " +
              getElementTypeName(tensor.type);
      return failure();
    }
  }
  if (got == 1) {
    for (int64_t i = 1; i < count; ++i)
      std::memcpy(tensor.data.data() + i * elementSize, tensor.data.data(),
                  elementSize);
  }
  return tensor;
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

static void printElement(const HostTensor &tensor, int64_t index,
                         raw_ostream &os) {
  char buffer[64];
  if (isFloatType(tensor.type))
    std::snprintf(buffer, sizeof(buffer), "%G", tensor.getAsDouble(index));
  else
    std::snprintf(buffer, sizeof(buffer), "%lld",
                  static_cast<long long>(tensor.getAsDouble(index)));
  os << buffer;
}

/// iree_hal_format_buffer_elements_recursive: every row keeps its brackets;
/// the innermost rows print elements until the budget runs out, then "...".
static void printElements(const HostTensor &tensor, ArrayRef<int64_t> shape,
                          int64_t offset, int64_t &budget, raw_ostream &os) {
  if (shape.size() > 1) {
    int64_t stride = 1;
    for (int64_t dim : shape.drop_front())
      stride *= dim;
    for (int64_t i = 0; i < shape[0]; ++i) {
      os << '[';
      printElements(tensor, shape.drop_front(), offset + i * stride, budget,
                    os);
      os << ']';
    }
    return;
  }
  int64_t count = std::min(budget, shape[0]);
  budget -= count;
  for (int64_t i = 0; i < count; ++i) {
    if (i > 0)
      os << ' ';
    printElement(tensor, offset + i, os);
  }
  if (count < shape[0])
    os << "...";
}

void mlir::boo::printTensor(const HostTensor &tensor, raw_ostream &os,
                            int64_t maxElements) {
  os << tensor.getTypeString() << '=';
  int64_t budget = std::max<int64_t>(maxElements, 0);
  SmallVector<int64_t> shape(tensor.shape.begin(), tensor.shape.end());
  if (shape.empty())
    shape.push_back(1);
  printElements(tensor, shape, 0, budget, os);
}

std::string mlir::boo::formatTensor(const HostTensor &tensor,
                                    int64_t maxElements) {
  std::string result;
  llvm::raw_string_ostream os(result);
  printTensor(tensor, os, maxElements);
  return result;
}

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

static std::string formatIndex(ArrayRef<int64_t> shape, int64_t linear) {
  SmallVector<int64_t> index(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    index[d] = shape[d] ? linear % shape[d] : 0;
    linear = shape[d] ? linear / shape[d] : 0;
  }
  std::string result = "[";
  llvm::raw_string_ostream os(result);
  llvm::interleaveComma(index, os);
  os << "]";
  return result;
}

static std::string formatValue(double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.9G", v);
  return buffer;
}

LogicalResult mlir::boo::compareTensors(const HostTensor &actual,
                                        const HostTensor &expected, double rtol,
                                        double atol, std::string &message) {
  message.clear();
  if (actual.shape != expected.shape) {
    message = "shape mismatch: got " + actual.getTypeString() + ", expected " +
              expected.getTypeString();
    return failure();
  }
  const bool exact = !isFloatType(actual.type) && !isFloatType(expected.type);
  constexpr int kMaxReported = 8;
  int64_t mismatches = 0;
  std::string details;
  for (int64_t i = 0, e = actual.numElements(); i < e; ++i) {
    double a = actual.getAsDouble(i), x = expected.getAsDouble(i);
    bool match;
    if (exact || std::isinf(x) || std::isinf(a))
      match = a == x;
    else if (std::isnan(x) || std::isnan(a))
      match = std::isnan(x) && std::isnan(a);
    else
      match = std::fabs(a - x) <= atol + rtol * std::fabs(x);
    if (match)
      continue;
    if (mismatches++ < kMaxReported)
      details += "\n  at " + formatIndex(actual.shape, i) + " (element " +
                 std::to_string(i) + "): got " + formatValue(a) +
                 ", expected " + formatValue(x) + " (|diff| " +
                 formatValue(std::fabs(a - x)) + ")";
  }
  if (mismatches == 0)
    return success();
  message = std::to_string(mismatches) + " of " +
            std::to_string(actual.numElements()) + " elements differ";
  if (!exact)
    message +=
        " (rtol=" + formatValue(rtol) + ", atol=" + formatValue(atol) + ")";
  message += ":" + details;
  if (mismatches > kMaxReported)
    message += "\n  ...";
  return failure();
}
