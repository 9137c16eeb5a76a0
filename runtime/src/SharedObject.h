//===- SharedObject.h - Host shared objects loaded from memory --*- C++ -*-===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//
//
// CPU and emulator code objects are ELF shared objects for the host
// (docs/ModuleFormat.md). The runtime loads them from the module's bytes
// without leaving a file behind: through a memfd (dlopen of
// /proc/self/fd/N) or, where memfd_create is refused, a temporary file
// deleted right after dlopen.
//
//===----------------------------------------------------------------------===//

#ifndef BOO_RUNTIME_SRC_SHAREDOBJECT_H
#define BOO_RUNTIME_SRC_SHAREDOBJECT_H

#include "boo/ModuleFormat.h"
#include "boo_runtime.h"

#include <functional>
#include <vector>

#include <memory>
#include <string>

namespace boo {
namespace runtime {

/// A shared object loaded from memory; unloaded when destroyed.
class SharedObject {
public:
  ~SharedObject();

  /// Loads `bytes`, code object `index` of its module (for messages). A
  /// payload dlopen refuses is BOO_STATUS_INVALID_MODULE.
  static boo_status_t load(const std::string &bytes, size_t index,
                           std::unique_ptr<SharedObject> &out);

  /// The address of `symbol` when the object itself defines it (not one of
  /// its dependencies), else null.
  void *lookup(const char *symbol) const;

private:
  SharedObject() = default;

  void *handle = nullptr;
  int fd = -1;
  std::string path;
};

/// The host code objects of a module (CPU and emulator targets), each
/// loaded on first use and unloaded with this.
class HostCodeObjects {
public:
  explicit HostCodeObjects(const ModuleDesc &module)
      : module(module), objects(module.codeObjects.size()) {}

  /// The address of `launch.kernel` (a launch of `function`) in its code
  /// object, which is loaded first if need be (`onLoad` then sees it, e.g.
  /// to set a hook). `what` names the symbol in the error ("kernel").
  boo_status_t lookup(const FunctionDesc &function, const Launch &launch,
                      const char *what, void *&symbol,
                      const std::function<void(SharedObject &)> &onLoad = {});

private:
  const ModuleDesc &module;
  /// Indexed by code object; null for those not loaded.
  std::vector<std::unique_ptr<SharedObject>> objects;
};

} // namespace runtime
} // namespace boo

#endif // BOO_RUNTIME_SRC_SHAREDOBJECT_H
