//===- TensorIOTest.cpp - Host tensors, text and .npy I/O -----------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "Boo/Runner/TensorIO.h"
#include "Boo/Runner/HostTensor.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace mlir;
using namespace mlir::boo;

namespace {

HostTensor parseOrDie(StringRef spec) {
  std::string error;
  FailureOr<HostTensor> tensor = parseTensor(spec, error);
  EXPECT_TRUE(succeeded(tensor)) << spec.str() << ": " << error;
  return succeeded(tensor) ? *tensor : HostTensor();
}

std::string parseError(StringRef spec) {
  std::string error;
  FailureOr<HostTensor> tensor = parseTensor(spec, error);
  EXPECT_TRUE(failed(tensor)) << spec.str() << " parsed";
  return error;
}

std::vector<double> values(const HostTensor &t) {
  std::vector<double> result;
  for (int64_t i = 0; i < t.numElements(); ++i)
    result.push_back(t.getAsDouble(i));
  return result;
}

uint16_t bits16(const HostTensor &t, int64_t i) {
  uint16_t v;
  std::memcpy(&v, t.data.data() + 2 * i, 2);
  return v;
}

/// A temporary file removed at the end of the test.
struct TempFile {
  explicit TempFile(StringRef suffix) {
    int fd;
    llvm::SmallString<128> name;
    EXPECT_FALSE(
        llvm::sys::fs::createTemporaryFile("boo-tensorio", suffix, fd, name));
    llvm::sys::Process::SafelyCloseFileDescriptor(fd);
    path = std::string(name);
  }
  ~TempFile() { llvm::sys::fs::remove(path); }
  void write(StringRef bytes) {
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    ASSERT_FALSE(ec);
    os << bytes;
  }
  std::string read() {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    EXPECT_TRUE(bool(buffer));
    return buffer ? (*buffer)->getBuffer().str() : "";
  }
  std::string path;
};

double ldexp2(double m, int e) { return std::ldexp(m, e); }

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

TEST(TensorIO, ParseTensorType) {
  std::vector<int64_t> shape;
  ElementType type;
  std::string error;
  ASSERT_TRUE(succeeded(parseTensorType("2x3xbf16", shape, type, error)));
  EXPECT_EQ(shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(type, ElementType::BF16);
  ASSERT_TRUE(succeeded(parseTensorType("i8", shape, type, error)));
  EXPECT_TRUE(shape.empty());
  EXPECT_EQ(type, ElementType::I8);
  ASSERT_TRUE(succeeded(parseTensorType("0x4xf64", shape, type, error)));
  EXPECT_EQ(shape, (std::vector<int64_t>{0, 4}));

  EXPECT_TRUE(failed(parseTensorType("2x?xf32", shape, type, error)));
  EXPECT_EQ(error, "invalid dimension '?' in '2x?xf32' (expected e.g. "
                   "2x3xf32)");
  EXPECT_TRUE(failed(parseTensorType("2x-1xf32", shape, type, error)));
  EXPECT_TRUE(failed(parseTensorType("2xxf32", shape, type, error)));
  EXPECT_TRUE(failed(parseTensorType("2x3xf8", shape, type, error)));
  EXPECT_EQ(error, "unsupported element type 'f8' in '2x3xf8'; expected f32, "
                   "f16, bf16, f64, i32, i8 or i64");
  EXPECT_TRUE(
      failed(parseTensorType("100000x100000x100000xf32", shape, type, error)));
  EXPECT_EQ(error, "'100000x100000x100000xf32' is too large");
}

//===----------------------------------------------------------------------===//
// Parsing values
//===----------------------------------------------------------------------===//

TEST(TensorIO, ParseFlatValues) {
  HostTensor t = parseOrDie("2x3xf32=1 2 3 4 5 6");
  EXPECT_EQ(t.getTypeString(), "2x3xf32");
  EXPECT_EQ(values(t), (std::vector<double>{1, 2, 3, 4, 5, 6}));
}

TEST(TensorIO, ParseBracketsAndCommas) {
  HostTensor a = parseOrDie("2x3xf32=[1 2 3][4 5 6]");
  HostTensor b = parseOrDie("2x3xf32=[[1, 2, 3], [4, 5, 6]]");
  HostTensor c = parseOrDie(" \"2x3xf32=1,2,3,4,5,-6.5e0\" ");
  EXPECT_EQ(values(a), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(values(b), values(a));
  EXPECT_EQ(values(c), (std::vector<double>{1, 2, 3, 4, 5, -6.5}));
}

TEST(TensorIO, ParseSplatZerosAndScalars) {
  EXPECT_EQ(values(parseOrDie("2x2xf16=0.5")),
            (std::vector<double>{0.5, 0.5, 0.5, 0.5}));
  EXPECT_EQ(values(parseOrDie("3xi32")), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(values(parseOrDie("2xf32=")), (std::vector<double>{0, 0}));
  HostTensor scalar = parseOrDie("f64=2.25");
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(values(scalar), (std::vector<double>{2.25}));
  HostTensor empty = parseOrDie("0x3xf32=");
  EXPECT_EQ(empty.numElements(), 0);
  EXPECT_TRUE(empty.data.empty());
}

TEST(TensorIO, ParseFloatSpellings) {
  HostTensor t = parseOrDie("8xf32=inf -INF nan NAN +1.5 0x1.8p1 1e-3 .25");
  std::vector<double> v = values(t);
  EXPECT_EQ(v[0], INFINITY);
  EXPECT_EQ(v[1], -INFINITY);
  EXPECT_TRUE(std::isnan(v[2]));
  EXPECT_TRUE(std::isnan(v[3]));
  EXPECT_EQ(v[4], 1.5);
  EXPECT_EQ(v[5], 3.0);
  EXPECT_EQ(v[6], static_cast<double>(1e-3f));
  EXPECT_EQ(v[7], 0.25);
}

TEST(TensorIO, ParseIntegers) {
  EXPECT_EQ(values(parseOrDie("5xi32=-2147483648 2147483647 0x10 -7 +3")),
            (std::vector<double>{-2147483648.0, 2147483647, 16, -7, 3}));
  // Signless: the unsigned range of the width is accepted too and wraps.
  EXPECT_EQ(values(parseOrDie("4xi8=-128 127 255 0x80")),
            (std::vector<double>{-128, 127, -1, -128}));
  EXPECT_EQ(parseError("2xi8=1 256"), "cannot parse '256' as i8");
  EXPECT_EQ(parseError("2xi8=1 -129"), "cannot parse '-129' as i8");
  EXPECT_EQ(parseError("2xi32=1 1.5"), "cannot parse '1.5' as i32");
}

TEST(TensorIO, ParseErrors) {
  EXPECT_EQ(parseError("2x3xf32=1 2 3 4 5"), "2x3xf32 needs 6 values, got 5");
  EXPECT_EQ(parseError("2x3xf32=[1 2 3][4 5 6 7]"),
            "2x3xf32 needs 6 values, got 7");
  EXPECT_EQ(parseError("2xf32=1 abc"), "cannot parse 'abc' as f32");
  EXPECT_EQ(parseError("2xf32=[1 2"), "unbalanced '[' in the values");
  EXPECT_EQ(parseError("2xf32=1 2]"), "unbalanced ']' in the values");
  EXPECT_EQ(parseError(""),
            "empty tensor; expected e.g. 2x3xf32=1 2 3 4 5 6 or @file.npy");
  EXPECT_EQ(parseError("2x3=1"),
            "unsupported element type '3' in '2x3'; "
            "expected f32, f16, bf16, f64, i32, i8 or i64");
  EXPECT_EQ(parseError("@/nonexistent/x.npy"),
            "cannot read '/nonexistent/x.npy': No such file or directory");
}

TEST(TensorIO, ParseRawFile) {
  TempFile file(".bin");
  float data[] = {1.5f, -2.0f, 3.25f, 0.0f};
  file.write(StringRef(reinterpret_cast<const char *>(data), sizeof(data)));
  HostTensor t = parseOrDie("2x2xf32=@" + file.path);
  EXPECT_EQ(values(t), (std::vector<double>{1.5, -2.0, 3.25, 0.0}));
  EXPECT_EQ(parseError("3x2xf32=@" + file.path),
            "'" + file.path + "' holds 16 bytes; 3x2xf32 needs 24");
}

//===----------------------------------------------------------------------===//
// f16 / bf16 conversions
//===----------------------------------------------------------------------===//

TEST(HostTensor, BF16RoundsToNearestEven) {
  EXPECT_EQ(roundToBF16(1.0), 0x3F80);
  EXPECT_EQ(roundToBF16(-2.0), 0xC000);
  // 1 + 2^-8 lies halfway between 1 (0x3F80, even) and 1 + 2^-7 (0x3F81).
  EXPECT_EQ(roundToBF16(1.0 + ldexp2(1, -8)), 0x3F80);
  // 1 + 3 * 2^-8: halfway between 0x3F81 (odd) and 0x3F82 (even).
  EXPECT_EQ(roundToBF16(1.0 + 3 * ldexp2(1, -8)), 0x3F82);
  // Just above half rounds up. Through f32 this would round twice (to
  // 1 + 2^-8 first, then to even 0x3F80).
  EXPECT_EQ(roundToBF16(1.0 + ldexp2(1, -8) + ldexp2(1, -30)), 0x3F81);
  // 0.1 = 0x3DCCCCCD in f32: the dropped half 0xCCCD > 0x8000 rounds up.
  EXPECT_EQ(roundToBF16(0.1), 0x3DCD);
  // Largest finite is (2 - 2^-7) * 2^127; from halfway to 2^128 on: inf.
  EXPECT_EQ(roundToBF16(ldexp2(2 - ldexp2(1, -7), 127)), 0x7F7F);
  EXPECT_EQ(roundToBF16(3.4e38), 0x7F80);
  EXPECT_EQ(roundToBF16(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(roundToBF16(-1e300), 0xFF80);
  // Subnormals: the smallest is 2^-133; exactly half of it ties to 0.
  EXPECT_EQ(roundToBF16(ldexp2(1, -133)), 0x0001);
  EXPECT_EQ(roundToBF16(ldexp2(1, -134)), 0x0000);
  EXPECT_EQ(roundToBF16(ldexp2(1.5, -134)), 0x0001);
  EXPECT_EQ(roundToBF16(ldexp2(3, -134)), 0x0002); // 1.5 units: to even 2.
  EXPECT_EQ(roundToBF16(-ldexp2(1, -140)), 0x8000);
  EXPECT_EQ(roundToBF16(-0.0), 0x8000);
  EXPECT_EQ(roundToBF16(INFINITY), 0x7F80);
  EXPECT_EQ(roundToBF16(-INFINITY), 0xFF80);
  EXPECT_EQ(roundToBF16(NAN), 0x7FC0);
  EXPECT_EQ(roundToBF16(-NAN), 0xFFC0);
  EXPECT_EQ(bf16ToFloat(0x3DCD), 0.10009765625f);
  EXPECT_EQ(bf16ToFloat(0x0001), std::ldexp(1.0f, -133));
  EXPECT_TRUE(std::isnan(bf16ToFloat(0x7FC1)));
}

TEST(HostTensor, F16RoundsToNearestEven) {
  EXPECT_EQ(roundToF16(1.0), 0x3C00);
  EXPECT_EQ(roundToF16(-0.5), 0xB800);
  EXPECT_EQ(roundToF16(1.0 + ldexp2(1, -11)), 0x3C00);     // tie, to even
  EXPECT_EQ(roundToF16(1.0 + 3 * ldexp2(1, -11)), 0x3C02); // tie, to even
  EXPECT_EQ(roundToF16(1.0 + ldexp2(1, -11) + ldexp2(1, -40)), 0x3C01);
  EXPECT_EQ(roundToF16(65504.0), 0x7BFF);
  EXPECT_EQ(roundToF16(65519.99), 0x7BFF);
  EXPECT_EQ(roundToF16(65520.0), 0x7C00); // tie between 0x7BFF and "2^16"
  EXPECT_EQ(roundToF16(-1e6), 0xFC00);
  EXPECT_EQ(roundToF16(ldexp2(1, -24)), 0x0001);
  EXPECT_EQ(roundToF16(ldexp2(1, -25)), 0x0000);
  EXPECT_EQ(roundToF16(ldexp2(1.0000001, -25)), 0x0001);
  EXPECT_EQ(roundToF16(ldexp2(1023.5, -24)), 0x0400); // up to the min normal
  EXPECT_EQ(roundToF16(ldexp2(1022.5, -24)), 0x03FE); // tie, to even
  EXPECT_EQ(roundToF16(ldexp2(1, -14)), 0x0400);
  EXPECT_EQ(roundToF16(NAN), 0x7E00);
  EXPECT_EQ(roundToF16(-INFINITY), 0xFC00);
  EXPECT_EQ(f16ToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(f16ToFloat(0x03FF), std::ldexp(1023.0f, -24));
  EXPECT_EQ(f16ToFloat(0x3555), 0.333251953125f);
  EXPECT_EQ(f16ToFloat(0x7BFF), 65504.0f);
  EXPECT_EQ(f16ToFloat(0xFC00), -INFINITY);
  EXPECT_TRUE(std::isnan(f16ToFloat(0x7E00)));
  EXPECT_TRUE(std::signbit(f16ToFloat(0x8000)));
}

/// Cross-checks the bit-twiddling conversions against APFloat on random
/// doubles over the whole exponent range of both formats.
TEST(HostTensor, ConversionsMatchAPFloat) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> mantissa(-2.0, 2.0);
  std::uniform_int_distribution<int> exponent(-150, 130);
  for (int i = 0; i < 200000; ++i) {
    double v = std::ldexp(mantissa(rng), exponent(rng));
    for (bool bf16 : {false, true}) {
      llvm::APFloat f(v);
      bool losesInfo;
      f.convert(bf16 ? llvm::APFloat::BFloat() : llvm::APFloat::IEEEhalf(),
                llvm::APFloat::rmNearestTiesToEven, &losesInfo);
      uint16_t expected = f.bitcastToAPInt().getZExtValue();
      uint16_t got = bf16 ? roundToBF16(v) : roundToF16(v);
      ASSERT_EQ(got, expected) << (bf16 ? "bf16" : "f16") << " of " << v
                               << " (seed 42, iteration " << i << ")";
    }
  }
  // Every f16 and bf16 value converts back and forth exactly.
  for (uint32_t b = 0; b < 0x10000; ++b) {
    uint16_t bits = static_cast<uint16_t>(b);
    float h = f16ToFloat(bits), g = bf16ToFloat(bits);
    if (!std::isnan(h))
      ASSERT_EQ(roundToF16(h), bits);
    if (!std::isnan(g))
      ASSERT_EQ(roundToBF16(g), bits);
  }
}

TEST(HostTensor, SetFromDoubleAndConvert) {
  HostTensor t =
      HostTensor::fromDoubles({4}, ElementType::I8, {2.5, -3.5, 1000, NAN});
  EXPECT_EQ(values(t), (std::vector<double>{2, -4, 127, 0}));
  HostTensor f = HostTensor::fromDoubles({2}, ElementType::F32,
                                         {1.0 + ldexp2(1, -8), 0.1});
  HostTensor b = f.convertTo(ElementType::BF16);
  EXPECT_EQ(b.getTypeString(), "2xbf16");
  EXPECT_EQ(bits16(b, 0), 0x3F80);
  EXPECT_EQ(bits16(b, 1), 0x3DCD);
  // Text input of bf16 rounds once from the decimal.
  HostTensor parsed = parseOrDie("2xbf16=0.1 1.00390625");
  EXPECT_EQ(bits16(parsed, 0), 0x3DCD);
  EXPECT_EQ(bits16(parsed, 1), 0x3F80);
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

TEST(TensorIO, Print) {
  EXPECT_EQ(formatTensor(parseOrDie("2x3xf32=[1 2 3][4 5 6]")),
            "2x3xf32=[1 2 3][4 5 6]");
  EXPECT_EQ(formatTensor(parseOrDie("3xi32=1 -2 3")), "3xi32=1 -2 3");
  EXPECT_EQ(formatTensor(parseOrDie("f32=0.5")), "f32=0.5");
  EXPECT_EQ(formatTensor(parseOrDie("5xf64=1e10 1.5e-5 inf -inf nan")),
            "5xf64=1E+10 1.5E-05 INF -INF NAN");
  EXPECT_EQ(formatTensor(parseOrDie("2xbf16=0.1 -3")), "2xbf16=0.100098 -3");
  EXPECT_EQ(formatTensor(parseOrDie("2x2x2xi8=1 2 3 4 5 6 7 8")),
            "2x2x2xi8=[[1 2][3 4]][[5 6][7 8]]");
  EXPECT_EQ(formatTensor(parseOrDie("0x3xf32=")), "0x3xf32=");
  EXPECT_EQ(formatTensor(parseOrDie("2x0xf32=")), "2x0xf32=[][]");
}

TEST(TensorIO, PrintElidesLikeIree) {
  HostTensor t = parseOrDie("2x3xf32=[1 2 3][4 5 6]");
  EXPECT_EQ(formatTensor(t, 4), "2x3xf32=[1 2 3][4...]");
  EXPECT_EQ(formatTensor(t, 2), "2x3xf32=[1 2...][...]");
  EXPECT_EQ(formatTensor(t, 0), "2x3xf32=[...][...]");
  HostTensor big = HostTensor::zeros({2000}, ElementType::I32);
  std::string text = formatTensor(big);
  EXPECT_EQ(text.size(), std::string("2000xi32=").size() + 1024 * 2 - 1 + 3);
  EXPECT_TRUE(StringRef(text).ends_with(" 0 0..."));
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

TEST(Npy, RoundTripEveryType) {
  for (StringRef spec :
       {"2x3xf32=[1 2 3][4 5 -6.5]", "3xf16=0.5 -2 65504", "f64=3.25",
        "2x2xi32=-7 0 7 2147483647", "4xi8=-128 0 1 127",
        "3xi64=-9007199254740992 0 9007199254740992", "0x5xf32="}) {
    HostTensor t = parseOrDie(spec);
    TempFile file(".npy");
    std::string error;
    ASSERT_TRUE(succeeded(writeNpyFile(t, file.path, error))) << error;
    std::string bytes = file.read();
    // Data starts 64-byte aligned, after a '\n'-terminated header.
    size_t headerEnd = 10 + (static_cast<uint8_t>(bytes[8]) |
                             (static_cast<uint8_t>(bytes[9]) << 8));
    EXPECT_EQ(headerEnd % 64, 0u) << spec.str();
    EXPECT_EQ(bytes[headerEnd - 1], '\n');
    FailureOr<HostTensor> back = readNpyFile(file.path, error);
    ASSERT_TRUE(succeeded(back)) << error;
    EXPECT_EQ(back->getTypeString(), t.getTypeString());
    EXPECT_EQ(back->data, t.data) << spec.str();
  }
}

TEST(Npy, HeaderText) {
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  writeNpy(parseOrDie("3xf32=1 2 3"), os);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_TRUE(StringRef(bytes).substr(10).starts_with(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }"));
  bytes.clear();
  writeNpy(parseOrDie("f32=1"), os);
  EXPECT_NE(bytes.find("'shape': ()"), std::string::npos);
}

TEST(Npy, BF16IsWrittenAsF32) {
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  writeNpy(parseOrDie("2xbf16=0.1 -3"), os);
  std::string error;
  FailureOr<HostTensor> back = parseNpy(bytes, error);
  ASSERT_TRUE(succeeded(back)) << error;
  EXPECT_EQ(back->getTypeString(), "2xf32");
  EXPECT_EQ(values(*back), (std::vector<double>{0.10009765625, -3}));
}

/// Builds a .npy with a hand-written header (padding included).
std::string makeNpy(StringRef header, StringRef data, int major = 1) {
  std::string padded = header.str();
  size_t prefix = major == 1 ? 10 : 12;
  padded.append((64 - (prefix + padded.size() + 1) % 64) % 64, ' ');
  padded += '\n';
  std::string bytes("\x93NUMPY", 6);
  bytes += static_cast<char>(major);
  bytes += '\0';
  size_t n = padded.size();
  bytes += static_cast<char>(n & 0xff);
  bytes += static_cast<char>((n >> 8) & 0xff);
  if (major != 1) {
    bytes += '\0';
    bytes += '\0';
  }
  return bytes + padded + data.str();
}

TEST(Npy, ParsesHeaderVariants) {
  int32_t data[] = {1, -2, 3, -4, 5, -6};
  StringRef raw(reinterpret_cast<const char *>(data), sizeof(data));
  std::string error;
  for (auto [header, major] :
       {std::pair<StringRef, int>{"{'descr': '<i4', 'fortran_order': False, "
                                  "'shape': (2, 3), }",
                                  1},
        {"{\"shape\":(2,3),\"fortran_order\":False,\"descr\":\"<i4\"}", 1},
        {"{'descr': '<i4', 'fortran_order': False, 'shape': (2L, 3L)}", 2}}) {
    FailureOr<HostTensor> t = parseNpy(makeNpy(header, raw, major), error);
    ASSERT_TRUE(succeeded(t)) << header.str() << ": " << error;
    EXPECT_EQ(t->getTypeString(), "2x3xi32");
    EXPECT_EQ(values(*t), (std::vector<double>{1, -2, 3, -4, 5, -6}));
  }
}

TEST(Npy, Errors) {
  std::string error;
  auto parseFails = [&](const std::string &bytes) {
    return failed(parseNpy(bytes, error));
  };
  std::string four(4, '\0');
  EXPECT_TRUE(parseFails("PK\x03\x04 not npy"));
  EXPECT_EQ(error, "not a .npy file (no \\x93NUMPY magic)");
  EXPECT_TRUE(parseFails(makeNpy(
      "{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }", four)));
  EXPECT_EQ(error, "Fortran-ordered .npy arrays (fortran_order: True) are "
                   "not supported; save a C-ordered array "
                   "(np.ascontiguousarray)");
  EXPECT_TRUE(parseFails(makeNpy(
      "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", four)));
  EXPECT_EQ(error, "big-endian .npy data ('>f4') is not supported; save it "
                   "little-endian (arr.astype(arr.dtype.newbyteorder('<')))");
  EXPECT_TRUE(parseFails(makeNpy(
      "{'descr': '<u4', 'fortran_order': False, 'shape': (1,), }", four)));
  EXPECT_TRUE(StringRef(error).starts_with(
      "unsupported .npy dtype '<u4'; supported: '<f4' (f32), '<f2' (f16), "
      "'<f8' (f64), '<i4' (i32), '|i1' (i8), '<i8' (i64)"));
  EXPECT_TRUE(
      parseFails(makeNpy("{'descr': '<f4', 'fortran_order': False, }", four)));
  EXPECT_EQ(error, ".npy header malformed: missing 'shape'");
  EXPECT_TRUE(parseFails(
      makeNpy("{'descr': '<f4', 'fortran_order': False, 'shape': (1,", four)));
  EXPECT_TRUE(StringRef(error).starts_with(".npy header malformed"));
  EXPECT_TRUE(parseFails(makeNpy(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", four)));
  EXPECT_EQ(error, ".npy data of 2xf32 needs 8 bytes, the file holds 4");
  EXPECT_TRUE(parseFails(makeNpy(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (), }", four + four)));
  EXPECT_EQ(error, ".npy data of f32 needs 4 bytes, the file holds 8 "
                   "(several arrays in one file are not supported)");
  EXPECT_TRUE(parseFails(std::string("\x93NUMPY\x01\x00\xff\x00{", 11)));
  EXPECT_EQ(error, ".npy header malformed: the file ends inside the header");
  EXPECT_TRUE(parseFails(std::string("\x93NUMPY\x07\x00\x00\x00", 10)));
  EXPECT_EQ(error, "unsupported .npy format version 7 (1, 2 and 3 are "
                   "supported)");

  TempFile file(".npy");
  file.write("garbage");
  EXPECT_TRUE(failed(readNpyFile(file.path, error)));
  EXPECT_EQ(error,
            "'" + file.path + "': not a .npy file (no \\x93NUMPY magic)");
}

//===----------------------------------------------------------------------===//
// Comparison
//===----------------------------------------------------------------------===//

TEST(TensorIO, Compare) {
  std::string message;
  HostTensor a = parseOrDie("2x2xf32=1 2 3 nan");
  EXPECT_TRUE(succeeded(compareTensors(a, parseOrDie("2x2xf32=1 2.00001 3 nan"),
                                       1e-5, 0, message)));
  EXPECT_TRUE(failed(compareTensors(a, parseOrDie("2x2xf32=1 2 3.5 nan"), 1e-5,
                                    1e-6, message)));
  EXPECT_EQ(message, "1 of 4 elements differ (rtol=1E-05, atol=1E-06):\n"
                     "  at [1, 0] (element 2): got 3, expected 3.5 (|diff| "
                     "0.5)");
  EXPECT_TRUE(
      failed(compareTensors(a, parseOrDie("2x2xf32=1 2 3 4"), 1, 1, message)));
  EXPECT_TRUE(failed(compareTensors(parseOrDie("2xi8=1 2"),
                                    parseOrDie("2xi8=1 3"), 1, 1, message)));
  EXPECT_EQ(message, "1 of 2 elements differ:\n  at [1] (element 1): got 2, "
                     "expected 3 (|diff| 1)");
  EXPECT_TRUE(
      failed(compareTensors(a, parseOrDie("4xf32=1 2 3 4"), 1, 1, message)));
  EXPECT_EQ(message, "shape mismatch: got 2x2xf32, expected 4xf32");
}

} // namespace
