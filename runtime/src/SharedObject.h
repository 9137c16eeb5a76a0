//===- SharedObject.h - Load a host ELF shared object from memory -*- C++
//-*-===//
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

#include "boo_runtime.h"

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

} // namespace runtime
} // namespace boo

#endif // BOO_RUNTIME_SRC_SHAREDOBJECT_H
