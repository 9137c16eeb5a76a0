//===- AtenCommand.cpp - Parse IREE BOO's aten:: command lines ------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// IREE BOO's `aten::<op>` commands (iree-turbine, boo/op_exports/aten.py)
// replay an op as torch.profiler recorded it, in four quoted Python
// literals, one entry per argument of the op's schema:
//
//   aten::mm "[[M, K], [K, N]]" "['c10::BFloat16', 'c10::BFloat16']"
//            "[[1, M], [N, 1]]" "['', '']"
//
// the shapes ([] for a scalar), the dtypes ('float', 'c10::Half',
// 'c10::BFloat16', 'double'; 'Scalar' or '' for a non-tensor), the strides
// in elements, and the constant arguments ('' for a tensor, else a literal
// such as '1'). The strides are honoured: an operand stored transposed (a
// column-major matrix) is read transposed; strides that are neither row-
// nor column-major (gaps, overlaps) are refused. aten::mm, aten::bmm and
// aten::addmm are matrix products (MIOpenGemmProblem); aten::argmax and
// aten::argmin arg-reductions (MIOpenArgReduceProblem) of a dense tensor.
//
//===----------------------------------------------------------------------===//

#include "MIOpenFlags.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::boo;
using namespace mlir::boo::detail;

namespace {

/// A Python literal of the kind torch.profiler writes: nested lists (or
/// tuples) of ints, floats, strings, True, False and None.
struct PyValue {
  enum class Kind { List, Int, Float, String, Bool, None } kind = Kind::None;
  std::vector<PyValue> items;
  int64_t intValue = 0;
  double floatValue = 0;
  std::string text;
};

class PyParser {
public:
  PyParser(StringRef input, std::string &error) : input(input), error(error) {}

  /// The whole input as one literal.
  FailureOr<PyValue> parseAll() {
    FailureOr<PyValue> v = parseValue();
    skipSpaces();
    if (succeeded(v) && pos != input.size())
      return fail("unexpected '" + input.substr(pos).str() + "'");
    return v;
  }

private:
  FailureOr<PyValue> fail(const std::string &message) {
    error = message;
    return failure();
  }
  void skipSpaces() {
    while (pos < input.size() && llvm::isSpace(input[pos]))
      ++pos;
  }
  FailureOr<PyValue> parseValue() {
    skipSpaces();
    if (pos == input.size())
      return fail("unexpected end");
    char c = input[pos];
    if (c == '[' || c == '(')
      return parseList(c == '[' ? ']' : ')');
    if (c == '\'' || c == '"')
      return parseString(c);
    if (c == '-' || c == '+' || c == '.' || llvm::isDigit(c))
      return parseNumber();
    PyValue v;
    for (auto [word, kind, truth] :
         {std::tuple<StringRef, PyValue::Kind, int64_t>{
              "True", PyValue::Kind::Bool, 1},
          {"False", PyValue::Kind::Bool, 0},
          {"None", PyValue::Kind::None, 0}}) {
      if (input.substr(pos).starts_with(word)) {
        pos += word.size();
        v.kind = kind;
        v.intValue = truth;
        return v;
      }
    }
    return fail("unexpected '" + input.substr(pos).str() + "'");
  }
  FailureOr<PyValue> parseList(char close) {
    PyValue v;
    v.kind = PyValue::Kind::List;
    ++pos;
    for (;;) {
      skipSpaces();
      if (pos < input.size() && input[pos] == close) {
        ++pos;
        return v;
      }
      FailureOr<PyValue> item = parseValue();
      if (failed(item))
        return failure();
      v.items.push_back(std::move(*item));
      skipSpaces();
      if (pos < input.size() && input[pos] == ',')
        ++pos;
      else if (pos >= input.size() || input[pos] != close)
        return fail(std::string("expected ',' or '") + close + "'");
    }
  }
  FailureOr<PyValue> parseString(char quote) {
    size_t end = input.find(quote, pos + 1);
    if (end == StringRef::npos)
      return fail("unterminated string");
    PyValue v;
    v.kind = PyValue::Kind::String;
    v.text = input.slice(pos + 1, end).str();
    pos = end + 1;
    return v;
  }
  FailureOr<PyValue> parseNumber() {
    size_t end = pos;
    while (end < input.size() &&
           (llvm::isAlnum(input[end]) || StringRef("+-.").contains(input[end])))
      ++end;
    StringRef word = input.slice(pos, end);
    pos = end;
    PyValue v;
    if (!word.getAsInteger(10, v.intValue)) {
      v.kind = PyValue::Kind::Int;
      v.floatValue = static_cast<double>(v.intValue);
      return v;
    }
    if (word.getAsDouble(v.floatValue))
      return fail("'" + word.str() + "' is not a number");
    v.kind = PyValue::Kind::Float;
    return v;
  }

  StringRef input;
  size_t pos = 0;
  std::string &error;
};

/// One argument of the op: a tensor (dims, dtype, strides) or a constant.
struct AtenArg {
  SmallVector<int64_t> dims, strides;
  std::string dtype;
  /// The literal of a constant argument (and its text); unset for a tensor.
  std::optional<PyValue> constant;
  std::string constantText;
};

/// The ops' schemas: the arguments in order, the constants last.
struct AtenSchema {
  StringLiteral op;
  SmallVector<StringLiteral, 5> args;
  int64_t numTensors;
};
const AtenSchema kSchemas[] = {
    {"mm", {"self", "mat2"}, 2},
    {"bmm", {"self", "mat2"}, 2},
    {"addmm", {"self", "mat1", "mat2", "beta", "alpha"}, 3},
    {"argmax", {"self", "dim", "keepdim"}, 1},
    {"argmin", {"self", "dim", "keepdim"}, 1},
};

/// The ints of a list literal.
FailureOr<SmallVector<int64_t>> getInts(const PyValue &v) {
  SmallVector<int64_t> out;
  if (v.kind != PyValue::Kind::List)
    return failure();
  for (const PyValue &item : v.items) {
    if (item.kind != PyValue::Kind::Int)
      return failure();
    out.push_back(item.intValue);
  }
  return out;
}

/// Parses the four fields into one AtenArg per schema argument.
FailureOr<std::vector<AtenArg>> parseArgs(const AtenSchema &schema,
                                          ArrayRef<StringRef> fields,
                                          std::string &error) {
  static const char *const names[] = {"input dims", "input types",
                                      "input strides", "concrete inputs"};
  std::string op = ("aten::" + schema.op).str();
  if (fields.size() != 4) {
    error = llvm::formatv("{0}: expected 4 quoted fields (input dims, input "
                          "types, input strides, concrete inputs), got {1}",
                          op, fields.size());
    return failure();
  }
  size_t n = schema.args.size();
  std::vector<AtenArg> args(n);
  for (auto [f, field] : llvm::enumerate(fields)) {
    std::string why;
    FailureOr<PyValue> v = PyParser(field, why).parseAll();
    if (succeeded(v) &&
        (v->kind != PyValue::Kind::List || v->items.size() != n))
      why = llvm::formatv("expected a list of {0} entries, one per argument "
                          "({1})",
                          n, llvm::join(schema.args, ", "));
    if (!why.empty()) {
      error = llvm::formatv("{0}: {1} '{2}': {3}", op, names[f], field, why);
      return failure();
    }
    for (size_t i = 0; i < n; ++i) {
      const PyValue &item = v->items[i];
      AtenArg &arg = args[i];
      bool ok = true;
      if (f == 0 || f == 2) {
        FailureOr<SmallVector<int64_t>> ints = getInts(item);
        ok = succeeded(ints);
        if (ok)
          (f == 0 ? arg.dims : arg.strides) = *ints;
      } else {
        ok = item.kind == PyValue::Kind::String;
        if (ok && f == 1)
          arg.dtype = item.text;
        if (ok && f == 3 && !item.text.empty()) {
          FailureOr<PyValue> c = PyParser(item.text, why).parseAll();
          if (failed(c)) {
            error = llvm::formatv("{0}: argument {1} ({2}): constant '{3}': "
                                  "{4}",
                                  op, i, schema.args[i], item.text, why);
            return failure();
          }
          arg.constant = *c;
          arg.constantText = item.text;
        }
      }
      if (!ok) {
        error = llvm::formatv("{0}: {1}: entry {2} ({3}) must be {4}", op,
                              names[f], i, schema.args[i],
                              f == 0 || f == 2 ? "a list of integers"
                                               : "a string");
        return failure();
      }
    }
  }
  return args;
}

/// Whether a matrix operand is stored row-major (false) or column-major
/// (true, i.e. transposed), batches packed; failure for other strides.
FailureOr<bool> getTransposed(const AtenArg &arg) {
  size_t r = arg.dims.size();
  if (arg.strides.size() != r)
    return failure();
  int64_t rows = arg.dims[r - 2], cols = arg.dims[r - 1];
  auto is = [&](size_t d, int64_t stride) {
    return arg.dims[d] == 1 || arg.strides[d] == stride;
  };
  if (r == 3 && !is(0, rows * cols))
    return failure();
  if (is(r - 2, cols) && is(r - 1, 1))
    return false;
  if (is(r - 2, 1) && is(r - 1, rows))
    return true;
  return failure();
}

/// addmm's self: row-major, with stride-0 (expanded) dims read as size 1.
FailureOr<SmallVector<int64_t>> getBroadcastShape(const AtenArg &arg) {
  if (arg.strides.size() != arg.dims.size())
    return failure();
  SmallVector<int64_t> shape;
  for (auto [d, s] : llvm::zip(arg.dims, arg.strides))
    shape.push_back(s == 0 ? 1 : d);
  int64_t expected = 1;
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    if (shape[d] != 1 && arg.strides[d] != expected)
      return failure();
    expected *= shape[d];
  }
  return shape;
}

FailureOr<ElementType> getElementType(StringRef dtype) {
  if (dtype == "float")
    return ElementType::F32;
  if (dtype == "c10::Half")
    return ElementType::F16;
  if (dtype == "c10::BFloat16")
    return ElementType::BF16;
  if (dtype == "double")
    return ElementType::F64;
  return failure();
}

std::string formatList(ArrayRef<int64_t> values) {
  return "[" + llvm::join(llvm::map_range(values, [](int64_t v) {
                            return std::to_string(v);
                          }),
                          ", ") +
         "]";
}

/// The tensors' element type (one for all); f64 only where `allowF64`
/// (the products).
FailureOr<ElementType> getTensorsType(const AtenSchema &schema,
                                      ArrayRef<AtenArg> args, bool allowF64,
                                      std::string &error) {
  std::optional<ElementType> type;
  for (int64_t i = 0; i < schema.numTensors; ++i) {
    const AtenArg &a = args[i];
    std::string where = llvm::formatv("aten::{0}: argument {1} ({2})",
                                      schema.op, i, schema.args[i]);
    if (a.constant) {
      error = llvm::formatv("{0} is a tensor; its concrete input must be '', "
                            "got '{1}'",
                            where, a.constantText);
      return failure();
    }
    FailureOr<ElementType> t = getElementType(a.dtype);
    if (succeeded(t) && *t == ElementType::F64 && !allowF64) {
      error = where + ": f64 ('double') tensors are supported by the "
                      "products (mm, bmm, addmm) only";
      return failure();
    }
    if (failed(t)) {
      error = llvm::formatv("{0}: unsupported dtype '{1}' (expected "
                            "'float', 'c10::Half', 'c10::BFloat16' or "
                            "'double')",
                            where, a.dtype);
      return failure();
    }
    if (type && *type != *t) {
      error = llvm::formatv("{0}: dtype '{1}' differs from the other "
                            "tensors' (mixed dtypes are not supported)",
                            where, a.dtype);
      return failure();
    }
    type = *t;
  }
  return *type;
}

/// The product's sizes and transposes from its two matrix operands.
LogicalResult setOperands(const AtenSchema &schema, ArrayRef<AtenArg> args,
                          MIOpenGemmProblem &p, std::string &error) {
  bool addmm = schema.op == "addmm";
  size_t rank = schema.op == "bmm" ? 3 : 2;
  int64_t ia = addmm ? 1 : 0, ib = ia + 1;
  for (int64_t i : {ia, ib}) {
    const AtenArg &arg = args[i];
    std::string where = llvm::formatv("aten::{0}: argument {1} ({2})",
                                      schema.op, i, schema.args[i]);
    if (arg.dims.size() != rank || llvm::any_of(arg.dims, [](int64_t d) {
          return d < 1 || d > std::numeric_limits<int32_t>::max();
        })) {
      error = llvm::formatv("{0} must be a {1}-D tensor of positive sizes, "
                            "got {2}",
                            where, rank, formatList(arg.dims));
      return failure();
    }
    FailureOr<bool> transposed = getTransposed(arg);
    if (failed(transposed)) {
      // Any other strides: the operand is read from its storage.
      if (arg.strides.size() != rank ||
          llvm::any_of(arg.strides, [](int64_t s) { return s < 0; })) {
        error = llvm::formatv("{0}: expected {1} non-negative strides for a "
                              "{2} tensor, got {3}",
                              where, rank, formatList(arg.dims),
                              formatList(arg.strides));
        return failure();
      }
      // The storage's elements must have a size (and not overflow it).
      double span = 1;
      for (auto [d, s] : llvm::zip(arg.dims, arg.strides))
        span += double(d - 1) * double(s);
      if (span > 0x1p40) {
        error = llvm::formatv("{0}: strides {1} of a {2} tensor reach {3:e} "
                              "elements of storage (at most 2^40 are "
                              "supported)",
                              where, formatList(arg.strides),
                              formatList(arg.dims), span);
        return failure();
      }
      (i == ia ? p.stridesA : p.stridesB).assign(arg.strides.begin(),
                                                 arg.strides.end());
      transposed = false;
    }
    (i == ia ? p.transposeA : p.transposeB) = *transposed;
  }
  const AtenArg &a = args[ia], &b = args[ib];
  if (a.dims[rank - 1] != b.dims[rank - 2] ||
      (rank == 3 && a.dims[0] != b.dims[0])) {
    error = llvm::formatv("aten::{0}: {1} {2} and {3} {4} do not multiply",
                          schema.op, schema.args[ia], formatList(a.dims),
                          schema.args[ib], formatList(b.dims));
    return failure();
  }
  p.batched = rank == 3;
  p.batch = rank == 3 ? a.dims[0] : 1;
  p.m = a.dims[rank - 2];
  p.k = a.dims[rank - 1];
  p.n = b.dims[rank - 1];
  return success();
}

/// addmm's self (C, broadcast) and its beta and alpha constants.
LogicalResult setAddmmTerms(ArrayRef<AtenArg> args, MIOpenGemmProblem &p,
                            std::string &error) {
  const AtenArg &self = args[0];
  FailureOr<SmallVector<int64_t>> shape = getBroadcastShape(self);
  bool fits = succeeded(shape) && shape->size() <= 2;
  SmallVector<int64_t> c = {p.m, p.n};
  for (size_t i = 0; fits && i < shape->size(); ++i) {
    int64_t d = (*shape)[shape->size() - 1 - i];
    fits = d == 1 || d == c[1 - i];
  }
  if (!fits) {
    error = llvm::formatv("aten::addmm: argument 0 (self) {0} with strides "
                          "{1} must be dense and broadcast to the product's "
                          "{2}",
                          formatList(self.dims), formatList(self.strides),
                          formatList(c));
    return failure();
  }
  p.cShape = *shape;
  for (auto [i, scale] : {std::pair<int64_t, double *>{3, &p.beta},
                          {4, &p.alpha}}) {
    const std::optional<PyValue> &v = args[i].constant;
    bool number = v && (v->kind == PyValue::Kind::Int ||
                        v->kind == PyValue::Kind::Float);
    if (!number || !std::isfinite(static_cast<float>(v->floatValue))) {
      error = llvm::formatv("aten::addmm: argument {0} ({1}) must be a "
                            "constant finite number (a concrete input such "
                            "as '1'), got '{2}'",
                            i, i == 3 ? "beta" : "alpha",
                            args[i].constantText);
      return failure();
    }
    *scale = v->floatValue;
  }
  return success();
}

FailureOr<MIOpenGemmProblem> buildAtenProblem(const AtenSchema &schema,
                                              ArrayRef<AtenArg> args,
                                              std::string &error) {
  MIOpenGemmProblem p;
  p.atenOp = schema.op.str();
  p.beta = 0.0;
  FailureOr<ElementType> type =
      getTensorsType(schema, args, /*allowF64=*/true, error);
  if (failed(type))
    return failure();
  p.dataType = *type;
  if (failed(setOperands(schema, args, p, error)))
    return failure();
  if (schema.op == "addmm" && failed(setAddmmTerms(args, p, error)))
    return failure();
  return p;
}

/// argmax/argmin(self, dim=None, keepdim=False) of a dense tensor.
FailureOr<MIOpenArgReduceProblem>
buildArgReduceProblem(const AtenSchema &schema, ArrayRef<AtenArg> args,
                      std::string &error) {
  MIOpenArgReduceProblem p;
  p.isMax = schema.op == "argmax";
  FailureOr<ElementType> type =
      getTensorsType(schema, args, /*allowF64=*/false, error);
  if (failed(type))
    return failure();
  p.dataType = *type;
  const AtenArg &self = args[0];
  std::string op = ("aten::" + schema.op).str();
  int64_t rank = self.dims.size(), expected = 1;
  bool dense = self.strides.size() == self.dims.size();
  for (int64_t d = rank - 1; dense && d >= 0; --d) {
    dense = self.dims[d] == 1 || self.strides[d] == expected;
    expected *= self.dims[d];
  }
  if (rank == 0 || !dense ||
      llvm::any_of(self.dims, [](int64_t d) { return d < 1; })) {
    error = llvm::formatv("{0}: self {1} with strides {2}: only dense "
                          "(row-major) tensors of rank 1 or more with "
                          "positive sizes are supported",
                          op, formatList(self.dims), formatList(self.strides));
    return failure();
  }
  p.shape = self.dims;
  const AtenArg &dim = args[1], &keepdim = args[2];
  if (!dim.constant || (dim.constant->kind != PyValue::Kind::Int &&
                        dim.constant->kind != PyValue::Kind::None)) {
    error = op + ": dim must be a constant integer or None, got '" +
            dim.constantText + "'";
    return failure();
  }
  if (dim.constant->kind == PyValue::Kind::Int) {
    int64_t d = dim.constant->intValue;
    if (d < -rank || d >= rank) {
      error = llvm::formatv("{0}: dim {1} is out of range for a rank-{2} "
                            "self (expected {3} to {4})",
                            op, d, rank, -rank, rank - 1);
      return failure();
    }
    p.dim = d < 0 ? d + rank : d;
  }
  if (!keepdim.constant || keepdim.constant->kind != PyValue::Kind::Bool) {
    error = op + ": keepdim must be a constant True or False, got '" +
            keepdim.constantText + "'";
    return failure();
  }
  p.keepdim = keepdim.constant->intValue != 0;
  return p;
}

} // namespace

SmallVector<int64_t> MIOpenArgReduceProblem::getResultShape() const {
  SmallVector<int64_t> result;
  for (auto [d, extent] : llvm::enumerate(shape)) {
    bool reduced = !dim || static_cast<int64_t>(d) == *dim;
    if (!reduced || keepdim)
      result.push_back(reduced ? 1 : extent);
  }
  return result;
}

FailureOr<MIOpenProblem>
mlir::boo::detail::parseAten(StringRef base, ArrayRef<StringRef> fields,
                             std::string &error) {
  StringRef name = base.drop_front(StringRef("aten::").size());
  const AtenSchema *schema = nullptr;
  for (const AtenSchema &s : kSchemas)
    if (s.op == name)
      schema = &s;
  if (!schema) {
    error = llvm::formatv("'{0}' is not supported yet (supported aten:: ops: "
                          "aten::mm, aten::bmm, aten::addmm, aten::argmax, "
                          "aten::argmin)",
                          base);
    return failure();
  }
  FailureOr<std::vector<AtenArg>> args = parseArgs(*schema, fields, error);
  if (failed(args))
    return failure();
  auto wrap = [](auto parsed) -> FailureOr<MIOpenProblem> {
    if (failed(parsed))
      return failure();
    return MIOpenProblem(std::move(*parsed));
  };
  if (schema->op == "argmax" || schema->op == "argmin")
    return wrap(buildArgReduceProblem(*schema, *args, error));
  return wrap(buildAtenProblem(*schema, *args, error));
}
