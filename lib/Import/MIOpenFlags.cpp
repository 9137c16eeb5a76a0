//===- MIOpenFlags.cpp - MIOpenDriver-style flag parsing ------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "MIOpenFlags.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <cstdint>
#include <limits>

using namespace mlir;
using namespace mlir::boo::detail;

std::string mlir::boo::detail::flagName(const FlagSpec &flag) {
  if (!flag.shortName)
    return ("--" + flag.longName).str();
  return llvm::formatv("--{0} (-{1})", flag.longName, flag.shortName).str();
}

LogicalResult FlagValues::parse(ArrayRef<StringRef> args) {
  for (size_t i = 0; i < args.size(); ++i) {
    StringRef word = args[i];
    const FlagSpec *flag = nullptr;
    std::optional<StringRef> inlineValue;
    if (word.starts_with("--") && word.size() > 2) {
      auto [longName, value] = word.drop_front(2).split('=');
      if (word.contains('='))
        inlineValue = value;
      flag = lookupLong(longName);
      if (!flag) {
        error = llvm::formatv("unknown {0} flag '--{1}'", what, longName);
        return failure();
      }
    } else if (word.starts_with("-") && word.size() == 2) {
      flag = lookupShort(word[1]);
      if (!flag) {
        error = llvm::formatv("unknown {0} flag '{1}'", what, word);
        return failure();
      }
    } else if (word.starts_with("-") && word.size() > 2 &&
               !llvm::all_of(word.drop_front(), llvm::isDigit)) {
      // MIOpenDriver would read "-n2" as "-n" and take the next word as the
      // value; refuse rather than guess.
      error = llvm::formatv("'{0}': a short flag is one character and takes "
                            "its value from the next word (e.g. '-{1} {2}')",
                            word, word[1], word.drop_front(2));
      return failure();
    } else {
      error = llvm::formatv("unexpected argument '{0}' (flags start with '-' "
                            "or '--'; quote the whole command as one argument)",
                            word);
      return failure();
    }
    std::string value;
    if (inlineValue) {
      value = inlineValue->str();
    } else {
      if (i + 1 >= args.size()) {
        error = flagName(*flag) + ": missing value";
        return failure();
      }
      value = args[++i].str();
    }
    values[flag - table.data()] = std::move(value);
  }

  // Check the type of every value given, ignored flags included, so that a
  // typo is reported wherever it is.
  for (auto [i, flag] : llvm::enumerate(table)) {
    if (!values[i])
      continue;
    if (flag.type == FlagType::Int && failed(getInt(flag.longName)))
      return failure();
    if (flag.type == FlagType::Float && failed(getFloat(flag.longName)))
      return failure();
  }
  return success();
}

FailureOr<int64_t> FlagValues::getInt(StringRef longName) const {
  StringRef text = getString(longName);
  int64_t value = 0;
  if (text.getAsInteger(10, value)) {
    // getAsInteger also fails on overflow; tell the two apart.
    if (!text.empty() &&
        llvm::all_of(text.drop_front(text[0] == '-'), llvm::isDigit) &&
        text != "-")
      return fail(longName, llvm::formatv("{0} does not fit in a 32-bit "
                                          "integer (MIOpenDriver's int)",
                                          text));
    return fail(longName,
                llvm::formatv("expected an integer, got '{0}'", text));
  }
  if (value < std::numeric_limits<int32_t>::min() ||
      value > std::numeric_limits<int32_t>::max())
    return fail(longName, llvm::formatv("{0} does not fit in a 32-bit integer "
                                        "(MIOpenDriver's int)",
                                        value));
  return value;
}

FailureOr<bool> FlagValues::getBool(StringRef longName) const {
  FailureOr<int64_t> v = getInt(longName);
  if (failed(v))
    return failure();
  if (*v != 0 && *v != 1)
    return fail(longName, llvm::formatv("expected 0 or 1, got {0}", *v));
  return *v == 1;
}

FailureOr<float> FlagValues::getEpsilon(StringRef longName) const {
  FailureOr<double> eps = getFloat(longName);
  if (failed(eps))
    return failure();
  if (*eps < 0 || !std::isfinite(static_cast<float>(*eps)))
    return fail(longName, llvm::formatv("must be a non-negative f32, got "
                                        "'{0}'",
                                        getString(longName)));
  return static_cast<float>(*eps);
}

FailureOr<double> FlagValues::getFloat(StringRef longName) const {
  StringRef text = getString(longName);
  double value = 0;
  if (text.getAsDouble(value) || !std::isfinite(value))
    return fail(longName,
                llvm::formatv("expected a finite number, got '{0}'", text));
  return value;
}

FailureOr<int64_t> FlagValues::getIntAtLeast(StringRef longName,
                                             int64_t minValue) const {
  FailureOr<int64_t> value = getInt(longName);
  if (failed(value))
    return failure();
  if (*value < minValue)
    return fail(longName,
                llvm::formatv("must be {0}, got {1}",
                              minValue == 0 ? "non-negative" : "positive",
                              *value));
  return *value;
}
