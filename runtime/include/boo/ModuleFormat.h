//===- ModuleFormat.h - The compiled-module file format ---------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The in-memory form of a compiled Boo module and its (de)serialization.
// The byte layout is specified in docs/ModuleFormat.md. The compiler writes
// modules with serializeModule; the runtime reads them with parseModule.
// Neither depends on MLIR or LLVM.
//
// parseModule is the gate between untrusted bytes and the runtime: every
// read is bounds-checked, every count is checked against the bytes left
// before anything is allocated, and the checksum is verified before the
// manifest is read. It never crashes or reads out of bounds, whatever the
// input.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_RUNTIME_MODULEFORMAT_H
#define BOO_RUNTIME_MODULEFORMAT_H

#include "boo/ElementType.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace boo {
namespace runtime {

/// "BOOMODL" followed by a 0 byte.
inline constexpr char kModuleMagic[8] = {'B', 'O', 'O', 'M', 'O', 'D', 'L', 0};
inline constexpr uint32_t kModuleFormatVersion = 1;
inline constexpr uint32_t kHeaderSize = 32;
inline constexpr uint32_t kSectionEntrySize = 24;
/// Sections start at multiples of this (code objects are loaded in place).
inline constexpr uint32_t kSectionAlignment = 64;

enum class SectionKind : uint32_t { Manifest = 1, CodeObject = 2 };

/// The CPU code-object ABI's dispatcher hook: a pointer-sized global the
/// compiled code calls its parallel loops through (boo-cpu-outline-parallel
/// emits it; a loader sets it; docs/ModuleFormat.md).
inline constexpr char kParallelForSymbol[] = "__boo_parallel_for";

/// The CPU code-object ABI's allocation hooks: pointer-sized globals, null
/// or `void *(*)(uint64_t size)` and `void (*)(void *)`, that the compiled
/// code allocates and frees its temporaries through (malloc and free while
/// null; boo-cpu-hook-allocations emits them; docs/ModuleFormat.md).
inline constexpr char kAllocSymbol[] = "__boo_alloc";
inline constexpr char kFreeSymbol[] = "__boo_free";

enum class TargetKind : uint8_t {
  /// Host native code: an ELF shared object (see docs/ModuleFormat.md for
  /// its ABI). Target name: the architecture ("x86_64", "aarch64").
  CPU = 0,
  /// An AMDGPU code object (HSACO). Target name: the chip ("gfx942").
  HIP = 1,
  /// The GPU kernels of a chip lowered to host code for the runtime's SIMT
  /// emulator: an ELF shared object for the host whose kernels follow
  /// boo/EmuABI.h. Target name: the emulated chip ("gfx942").
  Emu = 2,
};
inline constexpr uint8_t kMaxTargetKind = 2;

struct TensorDesc {
  std::string name; // may be empty
  ElementType dtype = ElementType::F32;
  std::vector<int64_t> dims; // each >= 0; dense row-major
  /// Elements times element size; false on overflow.
  bool getByteSize(uint64_t &bytes) const;
};

/// Where one kernel argument comes from.
enum class ArgKind : uint8_t {
  Input = 0,   // buffer of input `index`, plus `value` bytes
  Result = 1,  // buffer of result `index`, plus `value` bytes
  Scratch = 2, // scratch buffer `index`, plus `value` bytes
  Imm64 = 3,   // the 64-bit immediate `value` (index unused, 0)
  Imm32 = 4,   // the low 32 bits of `value` (index unused, 0)
};

struct LaunchArg {
  ArgKind kind = ArgKind::Input;
  uint32_t index = 0;
  uint64_t value = 0; // byte offset for buffers, the immediate otherwise
};

/// One kernel launch. On HIP targets, `kernel` is a kernel symbol of code
/// object `codeObject` (an HSACO for the target's chip) and `grid`
/// (workgroups) and `workgroup` (threads) are the launch sizes;
/// `dynamicLdsBytes` is the launch's dynamic shared memory (static LDS is in
/// the code object). On Emu targets, `kernel` is a host function of shared
/// object `codeObject` following boo/EmuABI.h, grid and workgroup are as on
/// HIP, and `dynamicLdsBytes` is the kernel's TOTAL LDS size (the emulator
/// allocates that many bytes per workgroup). On CPU targets, `kernel` is an
/// entry symbol `void entry(void **args)` of shared object `codeObject`
/// (args[i]: a pointer to the memref descriptor of argument i), grid and
/// workgroup are {1,1,1}, and every argument is an Input or Result at
/// offset 0.
struct Launch {
  uint32_t codeObject = 0; // index into ModuleDesc::codeObjects
  std::string kernel;
  uint32_t grid[3] = {1, 1, 1};
  uint32_t workgroup[3] = {1, 1, 1};
  uint32_t dynamicLdsBytes = 0;
  std::vector<LaunchArg> args;
};

/// A function's implementation for one target.
struct FunctionImpl {
  uint32_t target = 0;                // index into ModuleDesc::targets
  std::vector<uint64_t> scratchBytes; // device buffers the launches share
  std::vector<Launch> launches;       // in order
};

struct FunctionDesc {
  std::string name;
  std::vector<TensorDesc> inputs, results;
  std::vector<FunctionImpl> impls; // at most one per target
};

struct TargetDesc {
  TargetKind kind = TargetKind::CPU;
  std::string name;
  /// CPU: the instruction-set features the code needs, comma-separated
  /// (a subset of "sse4.2,avx,avx2,fma,avx512f"), checked before loading.
  /// HIP and Emu: empty (not checked).
  std::string features;
};

struct ModuleDesc {
  std::string producer; // e.g. "boo-translate (LLVM 22)"
  std::vector<TargetDesc> targets;
  std::vector<FunctionDesc> functions;
  /// Raw bytes of each code object (section payloads).
  std::vector<std::string> codeObjects;
};

/// CRC-32 (ISO-HDLC: zlib's, polynomial 0xEDB88320) of `size` bytes.
uint32_t crc32(const void *data, size_t size);

/// Checks a ModuleDesc for internal consistency (indices in range, names
/// non-empty, launch arguments referring to existing buffers, ...). Returns
/// an empty string when valid, else what is wrong.
std::string validateModule(const ModuleDesc &module);

/// Writes `module` in the file format. Returns false and sets `error` when
/// validateModule fails.
bool serializeModule(const ModuleDesc &module, std::string &bytes,
                     std::string &error);

/// Parses and checks `size` bytes. On failure returns false and sets
/// `error` to a message that says what is wrong and where (byte offset),
/// e.g. "truncated: the header says 4096 bytes, the file has 4000" or
/// "checksum mismatch (stored 0x..., computed 0x...): the file is corrupted".
bool parseModule(const void *data, size_t size, ModuleDesc &module,
                 std::string &error);

} // namespace runtime
} // namespace boo

#endif // BOO_RUNTIME_MODULEFORMAT_H
