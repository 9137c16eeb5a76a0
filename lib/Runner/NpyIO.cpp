//===- NpyIO.cpp - NumPy .npy files ---------------------------------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The .npy format (numpy/lib/format.py): the magic "\x93NUMPY", a major and
// a minor version byte, the header length (2 bytes little-endian in 1.0,
// 4 bytes in 2.0/3.0), then an ASCII Python dict literal such as
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
// padded with spaces and a newline, then the raw elements.
//
//===----------------------------------------------------------------------===//

#include "Boo/Runner/TensorIO.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstring>

using namespace mlir;
using namespace mlir::boo;

static constexpr char kMagic[] = "\x93NUMPY";
static constexpr size_t kMagicSize = 6;
static constexpr int64_t kMaxNpyBytes = int64_t(1) << 36;

namespace {
/// The three header entries Boo needs, parsed from the Python literal.
struct NpyHeader {
  std::optional<std::string> descr;
  std::optional<bool> fortranOrder;
  std::optional<std::vector<int64_t>> shape;
};

/// A recursive-descent reader for the subset of Python literals numpy writes
/// in headers: a dict of string keys to strings, booleans and int tuples.
class HeaderParser {
public:
  HeaderParser(StringRef text) : text(text) {}

  LogicalResult parse(NpyHeader &header, std::string &error) {
    if (!consume('{'))
      return fail("expected '{'", error);
    while (true) {
      if (consume('}'))
        break;
      std::string key;
      if (failed(parseString(key)))
        return fail("expected a quoted key", error);
      if (!consume(':'))
        return fail("expected ':' after '" + key + "'", error);
      if (key == "descr") {
        std::string descr;
        if (failed(parseString(descr)))
          return fail("'descr' is not a string", error);
        header.descr = descr;
      } else if (key == "fortran_order") {
        bool value;
        if (failed(parseBool(value)))
          return fail("'fortran_order' is not True or False", error);
        header.fortranOrder = value;
      } else if (key == "shape") {
        std::vector<int64_t> shape;
        if (failed(parseShape(shape)))
          return fail("'shape' is not a tuple of integers", error);
        header.shape = std::move(shape);
      } else {
        return fail("unexpected key '" + key + "'", error);
      }
      if (consume(','))
        continue;
      if (consume('}'))
        break;
      return fail("expected ',' or '}'", error);
    }
    skipSpace();
    if (!text.empty())
      return fail("trailing characters after the dict", error);
    return success();
  }

private:
  void skipSpace() { text = text.ltrim(); }

  bool consume(char c) {
    skipSpace();
    return text.consume_front(StringRef(&c, 1));
  }

  LogicalResult parseString(std::string &out) {
    skipSpace();
    if (text.empty() || (text.front() != '\'' && text.front() != '"'))
      return failure();
    char quote = text.front();
    size_t end = text.find(quote, 1);
    if (end == StringRef::npos)
      return failure();
    out = text.slice(1, end).str();
    text = text.drop_front(end + 1);
    return success();
  }

  LogicalResult parseBool(bool &out) {
    skipSpace();
    if (text.consume_front("True"))
      out = true;
    else if (text.consume_front("False"))
      out = false;
    else
      return failure();
    return success();
  }

  LogicalResult parseShape(std::vector<int64_t> &shape) {
    if (!consume('('))
      return failure();
    while (true) {
      if (consume(')'))
        return success();
      skipSpace();
      size_t digits = 0;
      while (digits < text.size() && llvm::isDigit(text[digits]))
        ++digits;
      uint64_t dim;
      if (digits == 0 || text.take_front(digits).getAsInteger(10, dim) ||
          dim > static_cast<uint64_t>(kMaxNpyBytes))
        return failure();
      text = text.drop_front(digits);
      text.consume_front("L"); // Python 2 longs.
      shape.push_back(static_cast<int64_t>(dim));
      if (consume(','))
        continue;
      if (consume(')'))
        return success();
      return failure();
    }
  }

  LogicalResult fail(const std::string &what, std::string &error) {
    error = ".npy header malformed: " + what;
    return failure();
  }

  StringRef text;
};
} // namespace

/// Maps a dtype descr to an element type, or explains why not.
static FailureOr<ElementType> parseDescr(StringRef descr, std::string &error) {
  if (descr.size() >= 2 && descr.front() == '>' && descr.drop_front(2) != "1") {
    error = "big-endian .npy data ('" + descr.str() +
            "') is not supported; save it little-endian "
            "(arr.astype(arr.dtype.newbyteorder('<')))";
    return failure();
  }
  // '<' little-endian, '|' not applicable (1 byte), '=' native (little here).
  StringRef kind = descr;
  if (!kind.empty() && StringRef("<|=>").contains(kind.front()))
    kind = kind.drop_front();
  std::optional<ElementType> type =
      llvm::StringSwitch<std::optional<ElementType>>(kind)
          .Case("f4", ElementType::F32)
          .Case("f2", ElementType::F16)
          .Case("f8", ElementType::F64)
          .Case("i4", ElementType::I32)
          .Case("i1", ElementType::I8)
          .Case("i8", ElementType::I64)
          .Default(std::nullopt);
  if (!type) {
    error = "unsupported .npy dtype '" + descr.str() +
            "'; supported: '<f4' (f32), '<f2' (f16), '<f8' (f64), '<i4' "
            "(i32), '|i1' (i8), '<i8' (i64) (NumPy has no bf16: store f32, which is "
            "rounded to bf16 for bf16 arguments)";
    return failure();
  }
  return *type;
}

FailureOr<HostTensor> mlir::boo::parseNpy(StringRef bytes, std::string &error) {
  if (bytes.size() < kMagicSize + 2 ||
      !bytes.starts_with(StringRef(kMagic, kMagicSize))) {
    error = "not a .npy file (no \\x93NUMPY magic)";
    return failure();
  }
  uint8_t major = static_cast<uint8_t>(bytes[kMagicSize]);
  size_t offset = kMagicSize + 2;
  size_t headerLength;
  if (major == 1) {
    if (bytes.size() < offset + 2) {
      error = ".npy header malformed: truncated";
      return failure();
    }
    headerLength =
        static_cast<uint8_t>(bytes[offset]) |
        (static_cast<size_t>(static_cast<uint8_t>(bytes[offset + 1])) << 8);
    offset += 2;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < offset + 4) {
      error = ".npy header malformed: truncated";
      return failure();
    }
    headerLength = 0;
    for (int i = 3; i >= 0; --i)
      headerLength =
          (headerLength << 8) | static_cast<uint8_t>(bytes[offset + i]);
    offset += 4;
  } else {
    error = "unsupported .npy format version " + std::to_string(major) +
            " (1, 2 and 3 are supported)";
    return failure();
  }
  if (bytes.size() < offset + headerLength) {
    error = ".npy header malformed: the file ends inside the header";
    return failure();
  }

  NpyHeader header;
  if (failed(HeaderParser(bytes.substr(offset, headerLength))
                 .parse(header, error)))
    return failure();
  if (!header.descr || !header.fortranOrder || !header.shape) {
    error = std::string(".npy header malformed: missing '") +
            (!header.descr          ? "descr"
             : !header.fortranOrder ? "fortran_order"
                                    : "shape") +
            "'";
    return failure();
  }
  if (*header.fortranOrder) {
    error = "Fortran-ordered .npy arrays (fortran_order: True) are not "
            "supported; save a C-ordered array (np.ascontiguousarray)";
    return failure();
  }
  FailureOr<ElementType> type = parseDescr(*header.descr, error);
  if (failed(type))
    return failure();

  int64_t size = getElementSize(*type);
  for (int64_t dim : *header.shape) {
    if (dim != 0 && size > kMaxNpyBytes / dim) {
      error = ".npy array is too large";
      return failure();
    }
    size *= dim;
  }
  HostTensor tensor = HostTensor::zeros(*header.shape, *type);
  StringRef data = bytes.drop_front(offset + headerLength);
  if (static_cast<int64_t>(data.size()) != size) {
    error = ".npy data of " + tensor.getTypeString() + " needs " +
            std::to_string(size) + " bytes, the file holds " +
            std::to_string(data.size()) +
            (static_cast<int64_t>(data.size()) > size
                 ? " (several arrays in one file are not supported)"
                 : "");
    return failure();
  }
  if (size)
    std::memcpy(tensor.data.data(), data.data(), size);
  return tensor;
}

FailureOr<HostTensor> mlir::boo::readNpyFile(StringRef path,
                                             std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    error = "cannot read '" + path.str() + "': " + buffer.getError().message();
    return failure();
  }
  FailureOr<HostTensor> tensor = parseNpy((*buffer)->getBuffer(), error);
  if (failed(tensor))
    error = "'" + path.str() + "': " + error;
  return tensor;
}

void mlir::boo::writeNpy(const HostTensor &tensor, raw_ostream &os) {
  // NumPy has no bfloat16; f32 holds every bf16 value exactly.
  if (tensor.type == ElementType::BF16)
    return writeNpy(tensor.convertTo(ElementType::F32), os);

  const char *descr = "<f4";
  switch (tensor.type) {
  case ElementType::F32:
  case ElementType::BF16:
    descr = "<f4";
    break;
  case ElementType::F16:
    descr = "<f2";
    break;
  case ElementType::F64:
    descr = "<f8";
    break;
  case ElementType::I32:
    descr = "<i4";
    break;
  case ElementType::I8:
    descr = "|i1";
    break;
  case ElementType::I64:
    descr = "<i8";
    break;
  }
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': (";
  for (int64_t dim : tensor.shape)
    header += std::to_string(dim) + ", ";
  // Python's one-element tuple is "(3,)", the empty one "()".
  if (tensor.shape.size() > 1)
    header.resize(header.size() - 2);
  else if (tensor.shape.size() == 1)
    header.pop_back();
  header += "), }";
  // Pad so that the data starts 64-byte aligned, as NumPy does.
  size_t prefix = kMagicSize + 2 + 2;
  size_t total = prefix + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  os.write(kMagic, kMagicSize);
  os << static_cast<char>(1) << static_cast<char>(0);
  os << static_cast<char>(header.size() & 0xff)
     << static_cast<char>((header.size() >> 8) & 0xff);
  os << header;
  os.write(reinterpret_cast<const char *>(tensor.data.data()),
           tensor.data.size());
}

LogicalResult mlir::boo::writeNpyFile(const HostTensor &tensor, StringRef path,
                                      std::string &error) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    error = "cannot write '" + path.str() + "': " + ec.message();
    return failure();
  }
  writeNpy(tensor, os);
  os.close();
  if (os.has_error()) {
    error = "cannot write '" + path.str() + "': " + os.error().message();
    os.clear_error();
    return failure();
  }
  return success();
}
