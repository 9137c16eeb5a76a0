//===- ModuleFormat.cpp - Read and write compiled-module files ------------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// Implements docs/ModuleFormat.md. parseModule decodes untrusted bytes with a
// bounds-checked cursor and runs, element by element, the semantic checks of
// ModuleChecks.h that validateModule runs too, so that whatever
// serializeModule writes parseModule reads back, and whatever parseModule
// accepts the backends can load without further validation.
//
//===----------------------------------------------------------------------===//

#include "boo/ModuleFormat.h"

#include "ModuleChecks.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>

using namespace boo;
using namespace boo::runtime;

namespace {

/// The smallest encoding of each manifest element: a count of N elements
/// must have at least N times this many bytes left.
constexpr uint64_t kMinTargetBytes = 1 + 4 + 4;
constexpr uint64_t kMinFunctionBytes = 4 + 4 + 4 + 4;
constexpr uint64_t kMinTensorBytes = 4 + 1 + 4;
constexpr uint64_t kMinImplBytes = 4 + 4 + 4;
constexpr uint64_t kMinLaunchBytes = 4 + 4 + 12 + 12 + 4 + 4;
constexpr uint64_t kMinArgBytes = 1 + 4 + 8;

std::string hex32(uint32_t value) {
  char buffer[16];
  snprintf(buffer, sizeof(buffer), "0x%08x", value);
  return buffer;
}

uint64_t alignTo(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

uint32_t loadU32(const uint8_t *p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
         uint32_t(p[3]) << 24;
}

uint64_t loadU64(const uint8_t *p) {
  return uint64_t(loadU32(p)) | uint64_t(loadU32(p + 4)) << 32;
}

/// A bounds-checked cursor over the manifest. Offsets in messages are file
/// offsets. After the first failure every read fails.
class ManifestReader {
public:
  ManifestReader(const uint8_t *data, size_t size, uint64_t fileOffset,
                 std::string &error)
      : data(data), size(size), fileOffset(fileOffset), error(error) {}

  uint64_t offset() const { return fileOffset + pos; }
  size_t left() const { return size - pos; }
  bool atEnd() const { return pos == size; }

  /// Sets the error "<context> at offset N: <problem>" and returns false.
  bool fail(const std::string &context, const std::string &problem,
            uint64_t at) {
    error = "manifest: " + context + " at offset " + std::to_string(at) + ": " +
            problem;
    return false;
  }

  bool readBytes(void *out, size_t bytes, const std::string &context) {
    if (left() < bytes)
      return fail(context,
                  "needs " + std::to_string(bytes) + " bytes, " +
                      std::to_string(left()) + " left",
                  offset());
    memcpy(out, data + pos, bytes);
    pos += bytes;
    return true;
  }
  bool readU8(uint8_t &value, const std::string &context) {
    return readBytes(&value, 1, context);
  }
  bool readU32(uint32_t &value, const std::string &context) {
    uint8_t bytes[4];
    if (!readBytes(bytes, 4, context))
      return false;
    value = loadU32(bytes);
    return true;
  }
  bool readU64(uint64_t &value, const std::string &context) {
    uint8_t bytes[8];
    if (!readBytes(bytes, 8, context))
      return false;
    value = loadU64(bytes);
    return true;
  }
  bool readString(std::string &value, const std::string &context) {
    uint64_t at = offset();
    uint32_t length;
    if (!readU32(length, context))
      return false;
    if (length > kMaxStringBytes)
      return fail(context,
                  "length " + std::to_string(length) +
                      " exceeds the limit of " +
                      std::to_string(kMaxStringBytes),
                  at);
    if (length > left())
      return fail(context,
                  "length " + std::to_string(length) + " but only " +
                      std::to_string(left()) + " bytes left",
                  at);
    value.assign(reinterpret_cast<const char *>(data + pos), length);
    pos += length;
    return true;
  }
  /// Reads a count of elements whose encoding takes at least `minBytes`
  /// each, and checks that they can fit in what is left before the caller
  /// allocates anything.
  bool readCount(uint32_t &count, uint64_t minBytes,
                 const std::string &context) {
    uint64_t at = offset();
    if (!readU32(count, context))
      return false;
    if (uint64_t(count) * minBytes > left())
      return fail(context,
                  "count " + std::to_string(count) + " needs at least " +
                      std::to_string(uint64_t(count) * minBytes) + " bytes, " +
                      std::to_string(left()) + " left",
                  at);
    return true;
  }

private:
  const uint8_t *data;
  size_t size;
  size_t pos = 0;
  uint64_t fileOffset;
  std::string &error;
};

bool parseTensor(ManifestReader &reader, TensorDesc &tensor,
                 const std::string &context) {
  uint64_t at = reader.offset();
  uint8_t dtype;
  uint32_t rank;
  if (!reader.readString(tensor.name, context + " name") ||
      !reader.readU8(dtype, context + " dtype") ||
      !reader.readCount(rank, 8, context + " dims"))
    return false;
  if (rank > kMaxRank)
    return reader.fail(context + " dims",
                       "rank " + std::to_string(rank) +
                           " exceeds the limit of " + std::to_string(kMaxRank),
                       reader.offset() - 4);
  tensor.dtype = static_cast<ElementType>(dtype);
  tensor.dims.resize(rank);
  for (uint32_t i = 0; i < rank; ++i) {
    uint64_t dim;
    if (!reader.readU64(dim, context + " dims"))
      return false;
    tensor.dims[i] = static_cast<int64_t>(dim);
  }
  if (std::string problem = checkTensor(tensor); !problem.empty())
    return reader.fail(context, problem, at);
  return true;
}

bool parseTensors(ManifestReader &reader, std::vector<TensorDesc> &tensors,
                  const std::string &context) {
  uint32_t count;
  if (!reader.readCount(count, kMinTensorBytes, context + "s"))
    return false;
  tensors.resize(count);
  for (uint32_t i = 0; i < count; ++i)
    if (!parseTensor(reader, tensors[i], context + " " + std::to_string(i)))
      return false;
  return true;
}

bool parseLaunch(ManifestReader &reader, Launch &launch,
                 const FunctionDesc &function, const FunctionImpl &impl,
                 const TargetDesc &target, size_t codeObjectCount,
                 const std::string &context) {
  uint64_t at = reader.offset();
  if (!reader.readU32(launch.codeObject, context + " code_object") ||
      !reader.readString(launch.kernel, context + " kernel"))
    return false;
  for (uint32_t &size : launch.grid)
    if (!reader.readU32(size, context + " grid"))
      return false;
  for (uint32_t &size : launch.workgroup)
    if (!reader.readU32(size, context + " workgroup"))
      return false;
  if (!reader.readU32(launch.dynamicLdsBytes, context + " dynamic_lds_bytes"))
    return false;
  if (std::string problem = checkLaunch(launch, target, codeObjectCount);
      !problem.empty())
    return reader.fail(context, problem, at);
  uint32_t count;
  if (!reader.readCount(count, kMinArgBytes, context + " args"))
    return false;
  launch.args.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    LaunchArg &arg = launch.args[i];
    std::string argContext = context + " arg " + std::to_string(i);
    uint64_t argAt = reader.offset();
    uint8_t kind;
    if (!reader.readU8(kind, argContext + " kind") ||
        !reader.readU32(arg.index, argContext + " index") ||
        !reader.readU64(arg.value, argContext + " value"))
      return false;
    arg.kind = static_cast<ArgKind>(kind);
    if (std::string problem = checkArg(arg, function, impl, target);
        !problem.empty())
      return reader.fail(argContext, problem, argAt);
  }
  return true;
}

bool parseFunction(ManifestReader &reader, FunctionDesc &function,
                   const ModuleDesc &module, size_t codeObjectCount,
                   const std::string &context) {
  uint64_t at = reader.offset();
  if (!reader.readString(function.name, context + " name"))
    return false;
  if (function.name.empty())
    return reader.fail(context, "the name is empty", at);
  std::string named = context + " ('" + function.name + "')";
  if (!parseTensors(reader, function.inputs, named + " input") ||
      !parseTensors(reader, function.results, named + " result"))
    return false;
  uint32_t count;
  if (!reader.readCount(count, kMinImplBytes, named + " impls"))
    return false;
  function.impls.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    FunctionImpl &impl = function.impls[i];
    std::string implContext = named + " impl " + std::to_string(i);
    uint64_t implAt = reader.offset();
    if (!reader.readU32(impl.target, implContext + " target"))
      return false;
    if (impl.target >= module.targets.size())
      return reader.fail(implContext,
                         "target " + std::to_string(impl.target) +
                             " does not exist (the module has " +
                             std::to_string(module.targets.size()) + ")",
                         implAt);
    uint32_t scratchCount;
    if (!reader.readCount(scratchCount, 8, implContext + " scratch_bytes"))
      return false;
    impl.scratchBytes.resize(scratchCount);
    for (uint64_t &bytes : impl.scratchBytes)
      if (!reader.readU64(bytes, implContext + " scratch_bytes"))
        return false;
    uint32_t launchCount;
    if (!reader.readCount(launchCount, kMinLaunchBytes,
                          implContext + " launches"))
      return false;
    impl.launches.resize(launchCount);
    for (uint32_t j = 0; j < launchCount; ++j)
      if (!parseLaunch(reader, impl.launches[j], function, impl,
                       module.targets[impl.target], codeObjectCount,
                       implContext + " launch " + std::to_string(j)))
        return false;
  }
  return true;
}

bool parseManifest(ManifestReader &reader, ModuleDesc &module,
                   size_t codeObjectCount) {
  if (!reader.readString(module.producer, "producer"))
    return false;
  uint32_t count;
  if (!reader.readCount(count, kMinTargetBytes, "targets"))
    return false;
  module.targets.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    TargetDesc &target = module.targets[i];
    std::string context = "target " + std::to_string(i);
    uint64_t at = reader.offset();
    uint8_t kind;
    if (!reader.readU8(kind, context + " kind") ||
        !reader.readString(target.name, context + " name") ||
        !reader.readString(target.features, context + " features"))
      return false;
    target.kind = static_cast<TargetKind>(kind);
    if (std::string problem = checkTarget(target); !problem.empty())
      return reader.fail(context, problem, at);
  }
  if (!reader.readCount(count, kMinFunctionBytes, "functions"))
    return false;
  module.functions.resize(count);
  for (uint32_t i = 0; i < count; ++i)
    if (!parseFunction(reader, module.functions[i], module, codeObjectCount,
                       "function " + std::to_string(i)))
      return false;
  if (!reader.atEnd())
    return reader.fail("end",
                       std::to_string(reader.left()) +
                           " trailing bytes after the last function",
                       reader.offset());
  if (std::string problem = checkModuleWide(module); !problem.empty())
    return reader.fail("functions", problem, reader.offset());
  return true;
}

struct SectionEntry {
  uint32_t kind;
  uint64_t offset, size;
};

/// Step 5 of the checks: the section table and where payloads lie.
bool parseSections(const uint8_t *bytes, uint64_t size, uint32_t count,
                   std::vector<SectionEntry> &sections, std::string &error) {
  if (count == 0) {
    error = "section count at offset 28 is 0: section 0 must be the manifest";
    return false;
  }
  uint64_t tableEnd = kHeaderSize + uint64_t(count) * kSectionEntrySize;
  if (tableEnd > size) {
    error = "section table at offset 32: " + std::to_string(count) +
            " entries need " + std::to_string(tableEnd) +
            " bytes, the file has " + std::to_string(size);
    return false;
  }
  sections.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t *entry =
        bytes + kHeaderSize + uint64_t(i) * kSectionEntrySize;
    uint64_t at = kHeaderSize + uint64_t(i) * kSectionEntrySize;
    SectionEntry &section = sections[i];
    section.kind = loadU32(entry);
    uint32_t flags = loadU32(entry + 4);
    section.offset = loadU64(entry + 8);
    section.size = loadU64(entry + 16);
    std::string where = "section " + std::to_string(i) + " at offset " +
                        std::to_string(at) + ": ";
    uint32_t expected = i == 0 ? uint32_t(SectionKind::Manifest)
                               : uint32_t(SectionKind::CodeObject);
    if (section.kind != expected) {
      error = where + "kind " + std::to_string(section.kind) + ", expected " +
              std::to_string(expected) +
              (i == 0 ? " (section 0 is the manifest)" : " (code object)");
      return false;
    }
    if (flags != 0) {
      error = where + "flags " + hex32(flags) + ", expected 0";
      return false;
    }
    if (section.offset % kSectionAlignment != 0 || section.offset < tableEnd ||
        section.offset > size || section.size > size - section.offset) {
      error = where + "payload [" + std::to_string(section.offset) + ", +" +
              std::to_string(section.size) +
              ") is not a 64-byte aligned range after the section table "
              "inside the " +
              std::to_string(size) + "-byte file";
      return false;
    }
    if (section.size == 0) {
      error = where + "the payload is empty";
      return false;
    }
  }
  // Payloads must not overlap, and every byte outside them is zero padding.
  std::vector<uint32_t> order(count);
  for (uint32_t i = 0; i < count; ++i)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return sections[a].offset < sections[b].offset;
  });
  uint64_t covered = tableEnd;
  auto checkPadding = [&](uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end; ++i) {
      if (bytes[i] != 0) {
        error = "byte at offset " + std::to_string(i) +
                " lies outside every section and is not zero padding";
        return false;
      }
    }
    return true;
  };
  for (uint32_t i : order) {
    const SectionEntry &section = sections[i];
    if (section.offset < covered) {
      error = "section " + std::to_string(i) + " payload at offset " +
              std::to_string(section.offset) + " overlaps another section";
      return false;
    }
    if (!checkPadding(covered, section.offset))
      return false;
    covered = section.offset + section.size;
  }
  return checkPadding(covered, size);
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

void appendU8(std::string &out, uint8_t value) {
  out.push_back(static_cast<char>(value));
}
void appendU32(std::string &out, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    out.push_back(static_cast<char>(value >> (8 * i)));
}
void appendU64(std::string &out, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    out.push_back(static_cast<char>(value >> (8 * i)));
}
void appendString(std::string &out, const std::string &value) {
  appendU32(out, static_cast<uint32_t>(value.size()));
  out += value;
}
void storeU32(std::string &out, size_t at, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    out[at + i] = static_cast<char>(value >> (8 * i));
}
void storeU64(std::string &out, size_t at, uint64_t value) {
  for (int i = 0; i < 8; ++i)
    out[at + i] = static_cast<char>(value >> (8 * i));
}

void appendTensors(std::string &out, const std::vector<TensorDesc> &tensors) {
  appendU32(out, static_cast<uint32_t>(tensors.size()));
  for (const TensorDesc &tensor : tensors) {
    appendString(out, tensor.name);
    appendU8(out, static_cast<uint8_t>(tensor.dtype));
    appendU32(out, static_cast<uint32_t>(tensor.dims.size()));
    for (int64_t dim : tensor.dims)
      appendU64(out, static_cast<uint64_t>(dim));
  }
}

std::string writeManifest(const ModuleDesc &module) {
  std::string out;
  appendString(out, module.producer);
  appendU32(out, static_cast<uint32_t>(module.targets.size()));
  for (const TargetDesc &target : module.targets) {
    appendU8(out, static_cast<uint8_t>(target.kind));
    appendString(out, target.name);
    appendString(out, target.features);
  }
  appendU32(out, static_cast<uint32_t>(module.functions.size()));
  for (const FunctionDesc &function : module.functions) {
    appendString(out, function.name);
    appendTensors(out, function.inputs);
    appendTensors(out, function.results);
    appendU32(out, static_cast<uint32_t>(function.impls.size()));
    for (const FunctionImpl &impl : function.impls) {
      appendU32(out, impl.target);
      appendU32(out, static_cast<uint32_t>(impl.scratchBytes.size()));
      for (uint64_t bytes : impl.scratchBytes)
        appendU64(out, bytes);
      appendU32(out, static_cast<uint32_t>(impl.launches.size()));
      for (const Launch &launch : impl.launches) {
        appendU32(out, launch.codeObject);
        appendString(out, launch.kernel);
        for (uint32_t size : launch.grid)
          appendU32(out, size);
        for (uint32_t size : launch.workgroup)
          appendU32(out, size);
        appendU32(out, launch.dynamicLdsBytes);
        appendU32(out, static_cast<uint32_t>(launch.args.size()));
        for (const LaunchArg &arg : launch.args) {
          appendU8(out, static_cast<uint8_t>(arg.kind));
          appendU32(out, arg.index);
          appendU64(out, arg.value);
        }
      }
    }
  }
  return out;
}

/// CRC-32 tables for slicing by 8: table[0] is the classic byte table,
/// table[k][b] the CRC of byte b followed by k zero bytes.
struct CRCTables {
  uint32_t table[8][256];
  CRCTables() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t crc = i;
      for (int bit = 0; bit < 8; ++bit)
        crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
      table[0][i] = crc;
    }
    for (uint32_t i = 0; i < 256; ++i)
      for (int k = 1; k < 8; ++k)
        table[k][i] = (table[k - 1][i] >> 8) ^ table[0][table[k - 1][i] & 0xFF];
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Public functions
//===----------------------------------------------------------------------===//

bool TensorDesc::getByteSize(uint64_t &bytes) const {
  uint64_t total = getElementSize(dtype);
  for (int64_t dim : dims) {
    if (dim < 0 || __builtin_mul_overflow(total, uint64_t(dim), &total))
      return false;
  }
  // Byte offsets and sizes are signed in the kernels' address arithmetic.
  if (total > uint64_t(std::numeric_limits<int64_t>::max()))
    return false;
  bytes = total;
  return true;
}

uint32_t boo::runtime::crc32(const void *data, size_t size) {
  static const CRCTables tables;
  const auto &t = tables.table;
  const uint8_t *p = static_cast<const uint8_t *>(data);
  uint32_t crc = 0xFFFFFFFFu;
  for (; size >= 8; size -= 8, p += 8) {
    uint32_t low = loadU32(p) ^ crc, high = loadU32(p + 4);
    crc = t[7][low & 0xFF] ^ t[6][(low >> 8) & 0xFF] ^
          t[5][(low >> 16) & 0xFF] ^ t[4][low >> 24] ^ t[3][high & 0xFF] ^
          t[2][(high >> 8) & 0xFF] ^ t[1][(high >> 16) & 0xFF] ^
          t[0][high >> 24];
  }
  for (; size > 0; --size, ++p)
    crc = (crc >> 8) ^ t[0][(crc ^ *p) & 0xFF];
  return crc ^ 0xFFFFFFFFu;
}

bool boo::runtime::serializeModule(const ModuleDesc &module, std::string &bytes,
                                   std::string &error) {
  error = validateModule(module);
  if (!error.empty()) {
    error = "invalid module description: " + error;
    return false;
  }
  std::string manifest = writeManifest(module);
  uint32_t sectionCount = static_cast<uint32_t>(module.codeObjects.size() + 1);
  std::vector<const std::string *> payloads = {&manifest};
  for (const std::string &codeObject : module.codeObjects)
    payloads.push_back(&codeObject);

  bytes.assign(kHeaderSize + uint64_t(sectionCount) * kSectionEntrySize, '\0');
  memcpy(&bytes[0], kModuleMagic, sizeof(kModuleMagic));
  storeU32(bytes, 8, kModuleFormatVersion);
  storeU32(bytes, 12, kHeaderSize);
  storeU32(bytes, 28, sectionCount);
  for (uint32_t i = 0; i < sectionCount; ++i) {
    bytes.resize(alignTo(bytes.size(), kSectionAlignment), '\0');
    size_t entry = kHeaderSize + size_t(i) * kSectionEntrySize;
    storeU32(
        bytes, entry,
        uint32_t(i == 0 ? SectionKind::Manifest : SectionKind::CodeObject));
    storeU64(bytes, entry + 8, bytes.size());
    storeU64(bytes, entry + 16, payloads[i]->size());
    bytes += *payloads[i];
  }
  storeU64(bytes, 16, bytes.size());
  storeU32(bytes, 24,
           crc32(bytes.data() + kHeaderSize, bytes.size() - kHeaderSize));
  return true;
}

bool boo::runtime::parseModule(const void *data, size_t size,
                               ModuleDesc &module, std::string &error) {
  module = ModuleDesc();
  const uint8_t *bytes = static_cast<const uint8_t *>(data);
  // 1. Header and magic.
  if (size < kHeaderSize || !bytes) {
    error = "truncated: the file has " + std::to_string(size) +
            " bytes, less than the " + std::to_string(kHeaderSize) +
            "-byte header";
    return false;
  }
  if (memcmp(bytes, kModuleMagic, sizeof(kModuleMagic)) != 0) {
    error = "not a Boo module: bad magic at offset 0 (expected "
            "\"BOOMODL\\0\")";
    return false;
  }
  // 2. Version and header size.
  uint32_t version = loadU32(bytes + 8);
  if (version != kModuleFormatVersion) {
    error = "format version " + std::to_string(version) +
            ", this runtime reads " + std::to_string(kModuleFormatVersion) +
            " (recompile the module)";
    return false;
  }
  uint32_t headerSize = loadU32(bytes + 12);
  if (headerSize != kHeaderSize) {
    error = "header size " + std::to_string(headerSize) +
            " at offset 12, expected " + std::to_string(kHeaderSize);
    return false;
  }
  // 3. File size.
  uint64_t fileSize = loadU64(bytes + 16);
  if (fileSize != size) {
    error = std::string(fileSize > size ? "truncated" : "trailing data") +
            ": the header says " + std::to_string(fileSize) +
            " bytes, the file has " + std::to_string(size);
    return false;
  }
  // 4. Checksum, before anything after the header is interpreted.
  uint32_t stored = loadU32(bytes + 24);
  uint32_t computed = crc32(bytes + kHeaderSize, size - kHeaderSize);
  if (stored != computed) {
    error = "checksum mismatch (stored " + hex32(stored) + ", computed " +
            hex32(computed) + "): the file is corrupted";
    return false;
  }
  // 5. Section table.
  std::vector<SectionEntry> sections;
  if (!parseSections(bytes, size, loadU32(bytes + 28), sections, error))
    return false;
  // 6. Manifest.
  size_t codeObjectCount = sections.size() - 1;
  ManifestReader reader(bytes + sections[0].offset, sections[0].size,
                        sections[0].offset, error);
  if (!parseManifest(reader, module, codeObjectCount)) {
    module = ModuleDesc();
    return false;
  }
  module.codeObjects.resize(codeObjectCount);
  for (size_t i = 0; i < codeObjectCount; ++i)
    module.codeObjects[i].assign(
        reinterpret_cast<const char *>(bytes + sections[i + 1].offset),
        sections[i + 1].size);
  return true;
}
