//===- ModuleFormatTest.cpp - The compiled-module file format -------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Round trips, and the reader's rejection of every truncation, random byte
// flips, wrong headers and crafted manifests (docs/ModuleFormat.md).
//
//===----------------------------------------------------------------------===//

#include "boo/ModuleFormat.h"

#include "gtest/gtest.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>

using namespace boo::runtime;
using boo::ElementType;

//===----------------------------------------------------------------------===//
// Allocation tracking: the largest single allocation while enabled. Replaces
// the global operator new of this test binary.
//===----------------------------------------------------------------------===//

namespace {
std::atomic<bool> trackAllocations{false};
std::atomic<size_t> largestAllocation{0};
} // namespace

void *operator new(size_t size) {
  if (trackAllocations.load(std::memory_order_relaxed)) {
    size_t largest = largestAllocation.load();
    while (size > largest &&
           !largestAllocation.compare_exchange_weak(largest, size)) {
    }
  }
  void *pointer = malloc(size ? size : 1);
  if (!pointer)
    abort();
  return pointer;
}
void *operator new[](size_t size) { return operator new(size); }
void operator delete(void *pointer) noexcept { free(pointer); }
void operator delete[](void *pointer) noexcept { free(pointer); }
void operator delete(void *pointer, size_t) noexcept { free(pointer); }
void operator delete[](void *pointer, size_t) noexcept { free(pointer); }

namespace {

TensorDesc tensor(const std::string &name, ElementType dtype,
                  std::vector<int64_t> dims) {
  TensorDesc result;
  result.name = name;
  result.dtype = dtype;
  result.dims = std::move(dims);
  return result;
}

std::string pattern(size_t size, char seed) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; ++i)
    bytes[i] = static_cast<char>(seed + i * 7);
  return bytes;
}

/// Three targets, two functions, every argument kind, code objects of
/// sizes around the 64-byte alignment.
ModuleDesc makeRichModule() {
  ModuleDesc module;
  module.producer = "boo-translate (LLVM 22)";
  module.targets = {{TargetKind::CPU, "x86_64", "avx2,fma"},
                    {TargetKind::HIP, "gfx942", ""},
                    {TargetKind::HIP, "gfx1100", ""}};
  module.codeObjects = {pattern(1000, 'c'), pattern(64, 'g'), pattern(63, 'h'),
                        pattern(1, 'r')};

  FunctionDesc conv;
  conv.name = "conv";
  conv.inputs = {tensor("x", ElementType::F16, {1, 8, 16, 16}),
                 tensor("w", ElementType::F32, {3, 3, 8, 8})};
  conv.results = {tensor("", ElementType::BF16, {1, 8, 14, 14})};
  FunctionImpl cpu;
  cpu.target = 0;
  Launch cpuLaunch;
  cpuLaunch.codeObject = 0;
  cpuLaunch.kernel = "conv_cpu";
  cpuLaunch.args = {
      {ArgKind::Input, 0, 0}, {ArgKind::Input, 1, 0}, {ArgKind::Result, 0, 0}};
  cpu.launches = {cpuLaunch};
  FunctionImpl gfx942;
  gfx942.target = 1;
  gfx942.scratchBytes = {4096, 0};
  Launch first;
  first.codeObject = 1;
  first.kernel = "conv_im2col";
  first.grid[0] = 196;
  first.workgroup[0] = 256;
  first.args = {{ArgKind::Input, 0, 128},
                {ArgKind::Scratch, 0, 64},
                {ArgKind::Imm32, 0, 0xdeadbeef},
                {ArgKind::Imm64, 0, 0x123456789abcdefull}};
  Launch second;
  second.codeObject = 2;
  second.kernel = "conv_gemm";
  second.grid[0] = 14;
  second.grid[1] = 2;
  second.grid[2] = 3;
  second.workgroup[0] = 64;
  second.workgroup[1] = 4;
  second.dynamicLdsBytes = 32768;
  second.args = {{ArgKind::Scratch, 0, 0},
                 {ArgKind::Input, 1, 0},
                 {ArgKind::Result, 0, 0},
                 {ArgKind::Scratch, 1, 0}};
  gfx942.launches = {first, second};
  conv.impls = {cpu, gfx942};

  FunctionDesc relu;
  relu.name = "relu";
  relu.inputs = {tensor("in", ElementType::I8, {}),
                 tensor("n", ElementType::F64, {0})};
  relu.results = {tensor("out", ElementType::I32, {7})};
  FunctionImpl gfx1100;
  gfx1100.target = 2;
  Launch launch;
  launch.codeObject = 3;
  launch.kernel = "relu";
  launch.args = {{ArgKind::Input, 0, 1}, {ArgKind::Result, 0, 28}};
  gfx1100.launches = {launch};
  relu.impls = {gfx1100};

  module.functions = {conv, relu};
  return module;
}

void expectEqual(const TensorDesc &a, const TensorDesc &b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.dtype, b.dtype);
  EXPECT_EQ(a.dims, b.dims);
}

void expectEqual(const ModuleDesc &a, const ModuleDesc &b) {
  EXPECT_EQ(a.producer, b.producer);
  ASSERT_EQ(a.targets.size(), b.targets.size());
  for (size_t i = 0; i < a.targets.size(); ++i) {
    EXPECT_EQ(a.targets[i].kind, b.targets[i].kind);
    EXPECT_EQ(a.targets[i].name, b.targets[i].name);
    EXPECT_EQ(a.targets[i].features, b.targets[i].features);
  }
  EXPECT_EQ(a.codeObjects, b.codeObjects);
  ASSERT_EQ(a.functions.size(), b.functions.size());
  for (size_t f = 0; f < a.functions.size(); ++f) {
    const FunctionDesc &x = a.functions[f], &y = b.functions[f];
    EXPECT_EQ(x.name, y.name);
    ASSERT_EQ(x.inputs.size(), y.inputs.size());
    for (size_t i = 0; i < x.inputs.size(); ++i)
      expectEqual(x.inputs[i], y.inputs[i]);
    ASSERT_EQ(x.results.size(), y.results.size());
    for (size_t i = 0; i < x.results.size(); ++i)
      expectEqual(x.results[i], y.results[i]);
    ASSERT_EQ(x.impls.size(), y.impls.size());
    for (size_t i = 0; i < x.impls.size(); ++i) {
      const FunctionImpl &p = x.impls[i], &q = y.impls[i];
      EXPECT_EQ(p.target, q.target);
      EXPECT_EQ(p.scratchBytes, q.scratchBytes);
      ASSERT_EQ(p.launches.size(), q.launches.size());
      for (size_t l = 0; l < p.launches.size(); ++l) {
        const Launch &s = p.launches[l], &t = q.launches[l];
        EXPECT_EQ(s.codeObject, t.codeObject);
        EXPECT_EQ(s.kernel, t.kernel);
        for (int d = 0; d < 3; ++d) {
          EXPECT_EQ(s.grid[d], t.grid[d]);
          EXPECT_EQ(s.workgroup[d], t.workgroup[d]);
        }
        EXPECT_EQ(s.dynamicLdsBytes, t.dynamicLdsBytes);
        ASSERT_EQ(s.args.size(), t.args.size());
        for (size_t k = 0; k < s.args.size(); ++k) {
          EXPECT_EQ(s.args[k].kind, t.args[k].kind);
          EXPECT_EQ(s.args[k].index, t.args[k].index);
          EXPECT_EQ(s.args[k].value, t.args[k].value);
        }
      }
    }
  }
}

std::string serialize(const ModuleDesc &module) {
  std::string bytes, error;
  EXPECT_TRUE(serializeModule(module, bytes, error)) << error;
  return bytes;
}

/// Parses `bytes`, expecting failure; returns the message.
std::string parseError(const std::string &bytes) {
  ModuleDesc module;
  std::string error;
  EXPECT_FALSE(parseModule(bytes.data(), bytes.size(), module, error));
  EXPECT_FALSE(error.empty());
  return error;
}

uint32_t readU32(const std::string &bytes, size_t at) {
  uint32_t value;
  memcpy(&value, bytes.data() + at, 4);
  return value;
}
uint64_t readU64(const std::string &bytes, size_t at) {
  uint64_t value;
  memcpy(&value, bytes.data() + at, 8);
  return value;
}
void writeU32(std::string &bytes, size_t at, uint32_t value) {
  memcpy(&bytes[at], &value, 4);
}
void writeU64(std::string &bytes, size_t at, uint64_t value) {
  memcpy(&bytes[at], &value, 8);
}

/// Recomputes the header's CRC after an edit.
void fixChecksum(std::string &bytes) {
  writeU32(bytes, 24, crc32(bytes.data() + 32, bytes.size() - 32));
}

/// The file offset of the manifest (section 0's payload).
size_t manifestOffset(const std::string &bytes) { return readU64(bytes, 40); }

//===----------------------------------------------------------------------===//
// Tests
//===----------------------------------------------------------------------===//

TEST(ModuleFormatTest, CRC32KnownValues) {
  EXPECT_EQ(crc32("123456789", 9), 0xCBF43926u);
  EXPECT_EQ(crc32("", 0), 0u);
  // The sliced implementation agrees with the bytewise definition at every
  // length and alignment.
  std::mt19937 random(7);
  std::string data(300, '\0');
  for (char &c : data)
    c = static_cast<char>(random());
  for (size_t begin = 0; begin < 9; ++begin) {
    for (size_t size = 0; begin + size <= data.size(); size += 13) {
      uint32_t crc = 0xFFFFFFFFu;
      for (size_t i = begin; i < begin + size; ++i) {
        crc ^= static_cast<uint8_t>(data[i]);
        for (int bit = 0; bit < 8; ++bit)
          crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
      }
      EXPECT_EQ(crc32(data.data() + begin, size), crc ^ 0xFFFFFFFFu)
          << "begin " << begin << " size " << size;
    }
  }
}

TEST(ModuleFormatTest, RoundTrip) {
  ModuleDesc module = makeRichModule();
  std::string bytes = serialize(module);
  ModuleDesc parsed;
  std::string error;
  ASSERT_TRUE(parseModule(bytes.data(), bytes.size(), parsed, error)) << error;
  expectEqual(module, parsed);
  EXPECT_EQ(serialize(parsed), bytes);
}

TEST(ModuleFormatTest, EmptyModuleRoundTrips) {
  ModuleDesc module, parsed;
  std::string bytes = serialize(module), error;
  ASSERT_TRUE(parseModule(bytes.data(), bytes.size(), parsed, error)) << error;
  expectEqual(module, parsed);
}

TEST(ModuleFormatTest, Layout) {
  ModuleDesc module = makeRichModule();
  std::string bytes = serialize(module);
  EXPECT_EQ(memcmp(bytes.data(), "BOOMODL\0", 8), 0);
  EXPECT_EQ(readU32(bytes, 8), 1u);
  EXPECT_EQ(readU32(bytes, 12), 32u);
  EXPECT_EQ(readU64(bytes, 16), bytes.size());
  EXPECT_EQ(readU32(bytes, 24), crc32(bytes.data() + 32, bytes.size() - 32));
  uint32_t sections = readU32(bytes, 28);
  ASSERT_EQ(sections, 1 + module.codeObjects.size());
  for (uint32_t i = 0; i < sections; ++i) {
    size_t entry = 32 + 24 * i;
    EXPECT_EQ(readU32(bytes, entry), i == 0 ? 1u : 2u);
    EXPECT_EQ(readU32(bytes, entry + 4), 0u);
    uint64_t offset = readU64(bytes, entry + 8);
    EXPECT_EQ(offset % 64, 0u) << "section " << i;
    if (i > 0) {
      EXPECT_EQ(readU64(bytes, entry + 16), module.codeObjects[i - 1].size());
      EXPECT_EQ(bytes.substr(offset, module.codeObjects[i - 1].size()),
                module.codeObjects[i - 1]);
    }
  }
}

TEST(ModuleFormatTest, EveryTruncationIsRejected) {
  std::string bytes = serialize(makeRichModule());
  for (size_t length = 0; length < bytes.size(); ++length) {
    std::string error = parseError(bytes.substr(0, length));
    EXPECT_NE(error.find("truncated"), std::string::npos)
        << "length " << length << ": " << error;
  }
}

TEST(ModuleFormatTest, RandomByteFlipsAreRejected) {
  std::string bytes = serialize(makeRichModule());
  std::mt19937 random(20261121);
  for (int i = 0; i < 5000; ++i) {
    size_t offset = random() % bytes.size();
    uint8_t mask = static_cast<uint8_t>(1 + random() % 255);
    std::string damaged = bytes;
    damaged[offset] = static_cast<char>(damaged[offset] ^ mask);
    std::string error = parseError(damaged);
    if (offset >= 32 || (offset >= 24 && offset < 28))
      EXPECT_NE(error.find("checksum mismatch"), std::string::npos)
          << "offset " << offset << ": " << error;
  }
}

TEST(ModuleFormatTest, HeaderErrors) {
  std::string bytes = serialize(makeRichModule());

  std::string magic = bytes;
  magic[3] = 'X';
  EXPECT_EQ(parseError(magic),
            "not a Boo module: bad magic at offset 0 (expected "
            "\"BOOMODL\\0\")");

  std::string version = bytes;
  writeU32(version, 8, 2);
  EXPECT_EQ(parseError(version),
            "format version 2, this runtime reads 1 (recompile the module)");

  std::string headerSize = bytes;
  writeU32(headerSize, 12, 64);
  EXPECT_EQ(parseError(headerSize), "header size 64 at offset 12, expected 32");

  std::string size = std::to_string(bytes.size());
  EXPECT_EQ(parseError(bytes.substr(0, bytes.size() - 96)),
            "truncated: the header says " + size + " bytes, the file has " +
                std::to_string(bytes.size() - 96));
  EXPECT_EQ(parseError(bytes + "xy"), "trailing data: the header says " + size +
                                          " bytes, the file has " +
                                          std::to_string(bytes.size() + 2));
  EXPECT_EQ(parseError(bytes.substr(0, 20)),
            "truncated: the file has 20 bytes, less than the 32-byte header");

  std::string corrupted = bytes;
  corrupted[bytes.size() - 1] ^= 1;
  std::string error = parseError(corrupted);
  EXPECT_EQ(error.rfind("checksum mismatch (stored 0x", 0), 0u) << error;
  EXPECT_NE(error.find("): the file is corrupted"), std::string::npos);
}

TEST(ModuleFormatTest, SectionTableErrors) {
  std::string bytes = serialize(makeRichModule());

  // Fewer sections: the dropped payloads are non-zero bytes outside every
  // section (the section count is not covered by the CRC).
  std::string fewer = bytes;
  writeU32(fewer, 28, 2);
  EXPECT_NE(parseError(fewer).find("not zero padding"), std::string::npos);
  std::string none = bytes;
  writeU32(none, 28, 0);
  EXPECT_NE(parseError(none).find("section 0 must be the manifest"),
            std::string::npos);
  std::string many = bytes;
  writeU32(many, 28, 0x10000000);
  EXPECT_NE(parseError(many).find("section table"), std::string::npos);

  std::string kind = bytes;
  writeU32(kind, 32, 2);
  fixChecksum(kind);
  EXPECT_NE(parseError(kind).find("section 0 is the manifest"),
            std::string::npos);

  std::string outside = bytes;
  writeU64(outside, 32 + 24 + 16, bytes.size());
  fixChecksum(outside);
  EXPECT_NE(parseError(outside).find("inside the"), std::string::npos);

  std::string unaligned = bytes;
  writeU64(unaligned, 32 + 24 + 8, readU64(bytes, 32 + 24 + 8) + 1);
  fixChecksum(unaligned);
  EXPECT_NE(parseError(unaligned).find("64-byte aligned"), std::string::npos);

  std::string overlap = bytes;
  writeU64(overlap, 32 + 2 * 24 + 8, readU64(bytes, 32 + 24 + 8));
  fixChecksum(overlap);
  EXPECT_NE(parseError(overlap).find("overlaps"), std::string::npos);

  std::string padding = bytes;
  padding[32 + 24 * 5] = 1; // Between the table and the manifest.
  fixChecksum(padding);
  EXPECT_NE(parseError(padding).find("not zero padding"), std::string::npos);
}

TEST(ModuleFormatTest, HugeCountsAreRejectedWithoutAllocating) {
  ModuleDesc module = makeRichModule();
  std::string bytes = serialize(module);
  size_t manifest = manifestOffset(bytes);
  size_t targetsCount = manifest + 4 + module.producer.size();
  // The first target's name length, then the first function's input count.
  size_t nameLength = targetsCount + 4 + 1;
  size_t functions = targetsCount + 4;
  for (const TargetDesc &target : module.targets)
    functions += 1 + 4 + target.name.size() + 4 + target.features.size();
  size_t inputs = functions + 4 + 4 + module.functions[0].name.size();
  size_t firstDims =
      inputs + 4 + 4 + module.functions[0].inputs[0].name.size() + 1;

  struct Case {
    size_t offset;
    const char *expected;
  } cases[] = {
      {targetsCount, "targets at offset"},
      {nameLength, "exceeds the limit of 4096"},
      {functions, "functions at offset"},
      {inputs, "inputs at offset"},
      {firstDims, "dims at offset"},
  };
  for (const Case &c : cases) {
    std::string crafted = bytes;
    writeU32(crafted, c.offset, 0xFFFFFFFFu);
    fixChecksum(crafted);
    ModuleDesc parsed;
    std::string error;
    largestAllocation = 0;
    trackAllocations = true;
    bool parsedOk = parseModule(crafted.data(), crafted.size(), parsed, error);
    trackAllocations = false;
    EXPECT_FALSE(parsedOk);
    EXPECT_NE(error.find(c.expected), std::string::npos) << error;
    if (c.offset != nameLength)
      EXPECT_NE(error.find("count 4294967295 needs at least"),
                std::string::npos)
          << error;
    EXPECT_LT(largestAllocation.load(), size_t(64) << 10) << error;
  }
}

TEST(ModuleFormatTest, ManifestErrorsNameFieldAndOffset) {
  ModuleDesc module = makeRichModule();
  module.targets.push_back({TargetKind::CPU, "aarch64", ""});
  std::string bytes = serialize(module);
  size_t manifest = manifestOffset(bytes);
  size_t targets = manifest + 4 + module.producer.size();
  std::string crafted = bytes;
  crafted[targets + 4] = 7; // First target's kind.
  fixChecksum(crafted);
  EXPECT_EQ(parseError(crafted),
            "manifest: target 0 at offset " + std::to_string(targets + 4) +
                ": kind 7 is unknown (0 cpu, 1 hip, 2 emu)");

  // Trailing manifest bytes: grow the manifest section by one zero byte
  // that lies in the padding after it.
  ASSERT_NE(readU64(bytes, 32 + 16) % 64, 0u);
  std::string trailing = bytes;
  writeU64(trailing, 32 + 16, readU64(bytes, 32 + 16) + 1);
  fixChecksum(trailing);
  EXPECT_NE(parseError(trailing).find("1 trailing bytes"), std::string::npos);
}

/// Emulator targets (kind 2) share the chip names of HIP targets and follow
/// the GPU launch rules.
TEST(ModuleFormatTest, EmuTargets) {
  ModuleDesc module = makeRichModule();
  module.targets[2].kind = TargetKind::Emu; // the gfx1100 target
  module.targets.push_back({TargetKind::Emu, "gfx942", ""});
  FunctionImpl emu = module.functions[0].impls[1];
  emu.target = 3;
  module.codeObjects.push_back(pattern(200, 'e'));
  module.codeObjects.push_back(pattern(300, 'f'));
  emu.launches[0].codeObject = 4;
  emu.launches[1].codeObject = 5;
  module.functions[0].impls.push_back(emu);
  std::string bytes = serialize(module);
  ModuleDesc parsed;
  std::string error;
  ASSERT_TRUE(parseModule(bytes.data(), bytes.size(), parsed, error)) << error;
  expectEqual(module, parsed);
  EXPECT_EQ(parsed.targets[3].kind, TargetKind::Emu);

  module.functions[0].impls[2].launches[1].grid[2] = 0;
  EXPECT_NE(validateModule(module).find(
                "impl 2 launch 1: grid and workgroup sizes must be positive"),
            std::string::npos)
      << validateModule(module);
}

/// Each broken description is refused by validateModule and serializeModule.
TEST(ModuleFormatTest, ValidateCatchesBadModules) {
  struct Case {
    const char *expected;
    void (*breakIt)(ModuleDesc &);
  } cases[] = {
      {"target 3 does not exist",
       [](ModuleDesc &m) { m.functions[0].impls[0].target = 3; }},
      {"code object 9 does not exist",
       [](ModuleDesc &m) {
         m.functions[0].impls[1].launches[0].codeObject = 9;
       }},
      {"input 2 does not exist",
       [](ModuleDesc &m) {
         m.functions[0].impls[1].launches[0].args[0].index = 2;
       }},
      {"result 1 does not exist",
       [](ModuleDesc &m) {
         m.functions[0].impls[1].launches[1].args[2].index = 1;
       }},
      {"scratch buffer 2 does not exist",
       [](ModuleDesc &m) {
         m.functions[0].impls[1].launches[1].args[0].index = 2;
       }},
      {"offset 4097 is past the end of scratch buffer 0",
       [](ModuleDesc &m) {
         m.functions[0].impls[1].launches[1].args[0].value = 4097;
       }},
      {"a CPU launch argument binds an input or result at offset 0",
       [](ModuleDesc &m) {
         m.functions[0].impls[0].launches[0].args[0].value = 4;
       }},
      {"a CPU launch has grid and workgroup 1x1x1",
       [](ModuleDesc &m) { m.functions[0].impls[0].launches[0].grid[1] = 2; }},
      {"grid and workgroup sizes must be positive",
       [](ModuleDesc &m) {
         m.functions[0].impls[1].launches[0].workgroup[2] = 0;
       }},
      {"an immediate has index 0",
       [](ModuleDesc &m) {
         m.functions[0].impls[1].launches[0].args[2].index = 1;
       }},
      {"kind 9 is unknown",
       [](ModuleDesc &m) {
         m.functions[0].impls[1].launches[0].args[2].kind =
             static_cast<ArgKind>(9);
       }},
      {"the name is empty", [](ModuleDesc &m) { m.functions[1].name = ""; }},
      {"function 'conv' is defined twice",
       [](ModuleDesc &m) { m.functions[1].name = "conv"; }},
      {"has two impls for target 1",
       [](ModuleDesc &m) { m.functions[0].impls[0].target = 1; }},
      {"dim 1 is negative",
       [](ModuleDesc &m) { m.functions[0].inputs[0].dims[1] = -1; }},
      {"rank 17 exceeds the limit of 16",
       [](ModuleDesc &m) { m.functions[0].inputs[0].dims.assign(17, 1); }},
      {"overflows",
       [](ModuleDesc &m) {
         m.functions[0].inputs[0].dims = {int64_t(1) << 40, int64_t(1) << 40};
       }},
      {"dtype 7 is unknown",
       [](ModuleDesc &m) {
         m.functions[0].results[0].dtype = static_cast<ElementType>(7);
       }},
      {"code object 0 is used by targets 0 and 2",
       [](ModuleDesc &m) {
         m.functions[1].impls[0].launches[0].codeObject = 0;
       }},
      {"code object 3 is empty",
       [](ModuleDesc &m) { m.codeObjects[3].clear(); }},
      {"kernel is empty",
       [](ModuleDesc &m) { m.functions[1].impls[0].launches[0].kernel = ""; }},
      {"more than the limit of 4096",
       [](ModuleDesc &m) { m.targets[1].name.assign(5000, 'g'); }},
  };
  EXPECT_EQ(validateModule(makeRichModule()), "");
  for (const Case &c : cases) {
    ModuleDesc module = makeRichModule();
    c.breakIt(module);
    std::string problem = validateModule(module);
    EXPECT_NE(problem.find(c.expected), std::string::npos)
        << "expected \"" << c.expected << "\", got \"" << problem << "\"";
    std::string bytes, error;
    EXPECT_FALSE(serializeModule(module, bytes, error));
    EXPECT_NE(error.find(c.expected), std::string::npos) << error;
  }
}

TEST(ModuleFormatTest, DTypes) {
  EXPECT_STREQ(getElementTypeName(ElementType::BF16), "bf16");
  EXPECT_EQ(getElementSize(ElementType::F64), 8);
  EXPECT_EQ(getElementSize(ElementType::I8), 1);
  uint64_t bytes = 0;
  EXPECT_TRUE(tensor("t", ElementType::F16, {3, 5}).getByteSize(bytes));
  EXPECT_EQ(bytes, 30u);
  EXPECT_TRUE(tensor("t", ElementType::F32, {}).getByteSize(bytes));
  EXPECT_EQ(bytes, 4u);
}

} // namespace
