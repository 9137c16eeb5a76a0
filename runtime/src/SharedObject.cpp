//===- SharedObject.cpp - Load a host ELF shared object from memory -------===//
//
// Part of the Boo project.
//
//===----------------------------------------------------------------------===//

#include "SharedObject.h"

#include "Backend.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

using namespace boo::runtime;

namespace {

bool writeAll(int fd, const std::string &bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t written = write(fd, bytes.data() + done, bytes.size() - done);
    if (written < 0 && errno == EINTR)
      continue;
    if (written <= 0)
      return false;
    done += size_t(written);
  }
  return true;
}

/// Whether a library of this exact name is loaded (glibc reuses a loaded
/// library whose name matches, whatever file the name now refers to).
bool isLoadedByName(const std::string &path) {
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (!handle)
    return false;
  dlclose(handle);
  return true;
}

} // namespace

SharedObject::~SharedObject() {
  if (handle)
    dlclose(handle);
  // Keep the memfd (and so its /proc/self/fd name) while the library may
  // still be mapped under that name, so no later load can collide with it.
  if (fd >= 0 && !isLoadedByName(path))
    close(fd);
}

void *SharedObject::lookup(const char *symbol) const {
  void *address = dlsym(handle, symbol);
  if (!address)
    return nullptr;
  Dl_info info;
  struct link_map *map = nullptr;
  if (dladdr(address, &info) == 0 ||
      dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || !map || !info.dli_fname ||
      strcmp(info.dli_fname, map->l_name) != 0)
    return nullptr;
  return address;
}

boo_status_t SharedObject::load(const std::string &bytes, size_t index,
                                std::unique_ptr<SharedObject> &out) {
  std::string what = "code object " + std::to_string(index);
  std::unique_ptr<SharedObject> object(new SharedObject());
  int fd = memfd_create("boo-code-object", MFD_CLOEXEC);
  bool viaMemfd = fd >= 0 && access("/proc/self/fd", X_OK) == 0;
  if (viaMemfd) {
    // A name still in use by a loaded library would make dlopen return
    // that library: move to a fresh descriptor number.
    std::vector<int> spare;
    std::string path = "/proc/self/fd/" + std::to_string(fd);
    while (isLoadedByName(path) && spare.size() < 64) {
      spare.push_back(fd);
      fd = dup(fd);
      if (fd < 0)
        break;
      path = "/proc/self/fd/" + std::to_string(fd);
    }
    for (int other : spare)
      close(other);
    if (fd < 0)
      return makeStatus(BOO_STATUS_INTERNAL,
                        what + ": dup: " + std::string(strerror(errno)));
    object->fd = fd;
    object->path = path;
  } else {
    if (fd >= 0)
      close(fd);
    const char *directory = getenv("TMPDIR");
    std::string pattern =
        std::string(directory && *directory ? directory : "/tmp") +
        "/boo-code-object-XXXXXX";
    for (int attempt = 0; attempt < 16; ++attempt) {
      std::vector<char> name(pattern.begin(), pattern.end());
      name.push_back('\0');
      fd = mkstemp(name.data());
      if (fd < 0)
        return makeStatus(BOO_STATUS_INTERNAL,
                          what + ": memfd_create and mkstemp(" + pattern +
                              ") failed: " + strerror(errno));
      object->path = name.data();
      if (!isLoadedByName(object->path))
        break;
      close(fd);
      fd = -1;
    }
    if (fd < 0)
      return makeStatus(BOO_STATUS_INTERNAL,
                        what + ": no unused temporary file name");
  }

  if (!writeAll(fd, bytes)) {
    std::string message =
        what + ": cannot write " + object->path + ": " + strerror(errno);
    if (!viaMemfd) {
      unlink(object->path.c_str());
      close(fd);
    }
    return makeStatus(BOO_STATUS_INTERNAL, message);
  }
  dlerror();
  object->handle = dlopen(object->path.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::string dlopenError;
  if (!object->handle) {
    const char *text = dlerror();
    dlopenError = text ? text : "unknown error";
  }
  if (!viaMemfd) {
    unlink(object->path.c_str());
    close(fd);
  }
  if (!object->handle)
    return makeStatus(BOO_STATUS_INVALID_MODULE,
                      what +
                          " is not a loadable shared object: " + dlopenError);
  out = std::move(object);
  return nullptr;
}

boo_status_t
HostCodeObjects::lookup(const FunctionDesc &function, const Launch &launch,
                        const char *what, void *&symbol,
                        const std::function<void(SharedObject &)> &onLoad) {
  std::unique_ptr<SharedObject> &object = objects[launch.codeObject];
  if (!object) {
    if (boo_status_t status = SharedObject::load(
            module.codeObjects[launch.codeObject], launch.codeObject, object))
      return status;
    if (onLoad)
      onLoad(*object);
  }
  symbol = object->lookup(launch.kernel.c_str());
  if (!symbol)
    return makeStatus(BOO_STATUS_INVALID_MODULE,
                      "@" + function.name + ": code object " +
                          std::to_string(launch.codeObject) +
                          " does not define the " + what + " '" +
                          launch.kernel + "'");
  return nullptr;
}
