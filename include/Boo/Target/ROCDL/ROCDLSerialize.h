//===- ROCDLSerialize.h - HSACO code objects without ROCm -------*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// The last steps of `boo-to-rocdl`: a ROCDL `gpu.module` becomes an HSACO
// code object (an AMDGPU ELF shared object) through LLVM's AMDGPU backend, the
// in-process assembler and LLVM's `ld.lld`. No ROCm toolkit and no device
// library are involved. See docs/GPUPipeline.md.
//
// Tools that want the intermediate forms of each kernel (boo-translate's
// --emit-llvmir and --emit-isa) pass hooks, which the serializer calls once
// per kernel module.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_TARGET_ROCDL_ROCDLSERIALIZE_H
#define BOO_TARGET_ROCDL_ROCDLSERIALIZE_H

#include "Boo/Target/ROCDL/Passes.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"
#include <functional>
#include <memory>
#include <optional>

namespace mlir {
class DialectRegistry;
namespace boo {

/// Callbacks the serializer invokes for every `gpu.module` it compiles.
/// `module` is the kernel module's symbol name, `chip` the target chip.
struct ROCDLSerializeHooks {
  /// The optimized LLVM IR, as compiled to ISA.
  std::function<void(llvm::StringRef module, llvm::StringRef chip,
                     llvm::StringRef llvmIR)>
      onLLVMIR;
  /// The ISA text (AMDGPU assembly with the `.amdhsa_*` kernel descriptor
  /// directives), as assembled into the code object.
  std::function<void(llvm::StringRef module, llvm::StringRef chip,
                     llvm::StringRef isa)>
      onISA;
};

/// `boo-rocdl-serialize` with hooks.
std::unique_ptr<Pass>
createBooROCDLSerializeWithHooks(const BooROCDLSerializeOptions &options,
                                 ROCDLSerializeHooks hooks);

/// Registers what compiling and serializing ROCDL kernels needs beyond the
/// dialects themselves: the `#rocdl.target` serialization interface and the
/// LLVM IR translations of the builtin, LLVM, GPU and ROCDL dialects. The
/// serializer registers these itself when it runs; tools that parse or
/// translate such modules call this.
void registerROCDLSerializationInterfaces(DialectRegistry &registry);

/// Disassembles the kernels of an HSACO code object for `chip` (LLVM's MC
/// disassembler, in-process): one `<symbol>:` label per function symbol of
/// the text section, then one instruction per line. Fails with a message in
/// `error` when the bytes are not an AMDGPU ELF or LLVM lacks the target.
LogicalResult disassembleCodeObject(llvm::StringRef codeObject,
                                    llvm::StringRef chip, llvm::raw_ostream &os,
                                    std::string &error);

/// Path of the `ld.lld` the serializer runs when its `lld` option is empty:
/// the one next to the LLVM Boo was built against, else `ld.lld` on PATH.
/// Empty when none is found.
std::string findDefaultLLD();

/// Runs `lld -shared object -o out extraArgs...` on temporary files and
/// returns the linked shared object; on failure sets `error` (with lld's
/// output). HSACO code objects and the CPU's shared objects are linked so.
std::optional<llvm::SmallVector<char, 0>>
linkSharedObject(llvm::StringRef lld, llvm::ArrayRef<char> object,
                 llvm::ArrayRef<llvm::StringRef> extraArgs, std::string &error);

} // namespace boo
} // namespace mlir

#endif // BOO_TARGET_ROCDL_ROCDLSERIALIZE_H
